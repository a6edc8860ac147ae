// Kustomizations that apply themselves: on a cycle of "builds the file of"
// through Kustomizations of one source (bootstrap's flux-system, which builds
// the folder holding its own gotk-sync.yaml). Tarjan's SCC, linear in edges,
// twice: first over the edges the build bounds allow (build-bounds.ts), a
// superset of the real ones, so that only the Kustomizations on a cycle of
// those are built; then over their real builds.
import { componentSizes } from '../../base/components';
import type { FileFacts, FluxKustomization } from '../facts/model';
import { inRepository, type ArtifactIndex } from './artifact';
import { resolveSpecPath, type Build } from './build';
import { BuildBounds } from './build-bounds';

export interface SelfApplyingInput {
  kustomizations: readonly FluxKustomization[];
  byFile: ReadonlyMap<string, FluxKustomization[]>;
  facts: ReadonlyMap<string, FileFacts>;
  /** The artifact a Kustomization builds from as its own source (null: another repository's). */
  artifactOf(k: FluxKustomization): ArtifactIndex | null;
  buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build;
}

export function selfApplying(input: SelfApplyingInput): FluxKustomization[] {
  const artifacts = new Map(input.kustomizations.map((k) => [k, input.artifactOf(k)]));
  const bounded = new BoundedEdges(input);
  const possible = onCycles(input.kustomizations, (k) => bounded.children(k, artifacts.get(k) ?? null));
  const real = onCycles([...possible], (k) => builtChildren(input, k, artifacts.get(k)!).filter((child) => possible.has(child)));
  return input.kustomizations.filter((k) => real.has(k));
}

/** The nodes on a cycle: in a strongly connected component of two or more, or with an edge to themselves. */
function onCycles(nodes: readonly FluxKustomization[], next: (k: FluxKustomization) => FluxKustomization[]): Set<FluxKustomization> {
  const edges = new Map(nodes.map((k) => [k, next(k)]));
  const sizes = componentSizes(nodes, (k) => edges.get(k) ?? []);
  return new Set(nodes.filter((k) => sizes.get(k)! > 1 || edges.get(k)!.includes(k)));
}

/** The Kustomizations of k's source written in files its build applies (each document of a resource file is applied). */
function builtChildren(input: SelfApplyingInput, k: FluxKustomization, artifact: ArtifactIndex): FluxKustomization[] {
  const children: FluxKustomization[] = [];
  for (const [file, built] of input.buildOf(k, artifact).files) {
    if (!built.some((entry) => entry.role === 'resource')) continue;
    for (const child of input.byFile.get(file) ?? []) if (sameSource(child, k)) children.push(child);
  }
  return children;
}

function sameSource(a: FluxKustomization, b: FluxKustomization): boolean {
  return a.sourceKind === b.sourceKind && a.sourceName === b.sourceName;
}

/** Edges to every Kustomization of the source written below the paths a build may reach. */
class BoundedEdges {
  private readonly bounds: BuildBounds;
  /** The files that declare Kustomizations, sorted: those below a folder are one run of them. */
  private readonly files: string[];

  constructor(private readonly input: SelfApplyingInput) {
    this.bounds = new BuildBounds([...input.facts.values()].flatMap((facts) => (facts.kustomize ? [facts.kustomize] : [])));
    this.files = [...input.byFile.keys()].sort();
  }

  children(k: FluxKustomization, artifact: ArtifactIndex | null): FluxKustomization[] {
    if (!artifact) return [];
    const path = resolveSpecPath(k.pathAsWritten).path;
    if (path === null) return []; // the build adds nothing
    const starts = [path, ...k.components.flatMap((component) => (component.path === null ? [] : [component.path]))].map((dir) => inRepository(artifact.artifact, dir));
    const children: FluxKustomization[] = [];
    for (const root of this.bounds.reach(starts)) for (const file of this.filesBelow(root)) for (const child of this.input.byFile.get(file)!) if (sameSource(child, k)) children.push(child);
    return children;
  }

  /** The files at `root` or below it (those below it are one run of the sorted list). */
  private filesBelow(root: string): string[] {
    if (root === '') return this.files;
    const prefix = root + '/';
    const out = this.input.byFile.has(root) ? [root] : [];
    for (let i = lowerBound(this.files, prefix); i < this.files.length && this.files[i].startsWith(prefix); i++) out.push(this.files[i]);
    return out;
  }
}

/** The first index whose value is not below `value` in sort order. */
function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
