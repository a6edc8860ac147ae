// Choosing the roots: of the candidates roots.ts reads (the contract's
// `flux.roots`, FluxInstance syncs, what bootstrap writes, Kustomizations that
// apply themselves), those that hold up: a sync written in a file no world
// applies is stale, a candidate another one applies is part of that world. When
// none does, the fallback: every Kustomization nothing else builds, and an
// info finding that says so.
import { mostCommon, push } from '../../base/collections';
import { componentSizes } from '../../base/components';
import { dirnameOf } from '../../base/paths';
import type { FileFacts, FluxKustomization } from '../facts/model';
import { inRepository, type ArtifactIndex } from './artifact';
import type { Build, GraphProblem } from './build';
import type { Layout } from './layout';
import { FluxConfig, RootCandidate, SourceIdentity, syncCandidate, syntheticKustomization } from './roots';
import type { Sources } from './sources';

/** What root choice reads of the model being built. */
export interface RootChoiceInput {
  files: ReadonlySet<string>;
  facts: ReadonlyMap<string, FileFacts>;
  config: FluxConfig;
  layout: Layout;
  kustomizations: readonly FluxKustomization[];
  byFile: ReadonlyMap<string, FluxKustomization[]>;
  sources: Sources;
  buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build;
  report(problem: GraphProblem): void;
}

export class RootChoice {
  /** True when no root was found and the model fell back to "what nothing else builds". */
  fallback = false;

  constructor(private readonly model: RootChoiceInput) {}

  choose(): RootCandidate[] {
    const { config } = this.model;
    if (config.roots.length > 0) return config.roots.map((root) => this.contractRoot(root));
    const unresolved: string[] = [];
    const syncs: RootCandidate[] = [];
    for (const facts of this.model.facts.values()) {
      for (const sync of facts.syncs) {
        const candidate = syncCandidate(sync, config, (path) => this.model.layout.foldersHolding(path));
        if ('unresolved' in candidate) unresolved.push(candidate.unresolved);
        else syncs.push(candidate);
      }
    }
    const bootstraps = [...new Set([...this.selfApplying(), ...this.bootstrapSyncs()]), ...this.bootstrapPlaceholders()].map((k): RootCandidate => ({
      how: 'bootstrap',
      kustomization: k,
      source: this.model.sources.identityOf(k),
      declaredIn: null,
      assumption: null,
    }));
    // A sync is current when a world applies the file it is written in (the FluxInstance manages itself).
    const reach = new Map<RootCandidate, Set<string>>();
    for (const candidate of [...bootstraps, ...syncs]) reach.set(candidate, this.reachOf(candidate));
    const appliedAnywhere = (file: string) => [...reach.values()].some((files) => files.has(file));
    let current = syncs.filter((sync) => appliedAnywhere(sync.declaredIn!));
    if (current.length === 0 && bootstraps.length === 0) current = syncs;
    const candidates = dedupe([...bootstraps, ...current], reach);
    if (candidates.length > 0) {
      this.reportAssumptions(candidates);
      return candidates;
    }
    return this.fallbackRoots(unresolved);
  }

  /** One info per guess: the syncs that make the same guess (one per cluster) are named in the first one's message. */
  private reportAssumptions(candidates: RootCandidate[]): void {
    const groups = new Map<string, RootCandidate[]>();
    for (const candidate of candidates) if (candidate.assumption) push(groups, candidate.assumptionKey ?? candidate.assumption, candidate);
    for (const [first, ...others] of groups.values()) {
      const also = others.length > 0 ? ` The same is assumed for the syncs in ${others.map((c) => c.kustomization.file).join(', ')}.` : '';
      this.model.report({ kind: 'assumed-root', file: first.kustomization.file, span: first.kustomization.span, message: first.assumption! + also, severity: 'info' });
    }
  }

  private contractRoot(root: FluxConfig['roots'][number]): RootCandidate {
    const probe = syntheticKustomization('flux-system', 'flux-system', root.file, root.span, root.path, 'GitRepository', '');
    // "This repository" is the GitRepository the Kustomizations right under the root name most.
    const counts = new Map<string, number>();
    const build = this.model.buildOf(probe, this.model.sources.repositoryArtifact(null));
    for (const file of build.files.keys()) {
      for (const child of this.model.byFile.get(file) ?? []) {
        if (child.sourceKind === 'GitRepository' && child.sourceName) counts.set(child.sourceName, (counts.get(child.sourceName) ?? 0) + 1);
      }
    }
    const name = mostCommon(counts) ?? 'flux-system';
    const kustomization = { ...probe, sourceName: name };
    return {
      how: 'contract',
      kustomization,
      source: { kind: 'GitRepository', name, namespace: null, url: this.model.sources.declaredSource('GitRepository', name, root.file)?.url ?? null, folder: null },
      declaredIn: null,
      assumption: null,
    };
  }

  /** No root: every Kustomization (of the most used GitRepository) that no other builds and that lies outside every other's path. */
  private fallbackRoots(unresolved: string[]): RootCandidate[] {
    if (this.model.kustomizations.length === 0) return [];
    this.fallback = true;
    const counts = new Map<string, number>();
    for (const k of this.model.kustomizations) if (k.sourceKind === 'GitRepository' && k.sourceName) counts.set(k.sourceName, (counts.get(k.sourceName) ?? 0) + 1);
    const name = mostCommon(counts) ?? 'flux-system';
    const ours = this.model.kustomizations.filter((k) => k.sourceKind === 'GitRepository' && (k.sourceName ?? name) === name);
    const source: SourceIdentity = { kind: 'GitRepository', name, namespace: null, url: null, folder: null };
    const artifact = this.model.sources.repositoryArtifact(name);
    const builtByOther = new Set<FluxKustomization>();
    const paths = new Map<string, FluxKustomization[]>();
    for (const k of ours) {
      if (k.path !== null) push(paths, k.path, k);
      for (const file of this.model.buildOf(k, artifact).files.keys()) for (const child of this.model.byFile.get(file) ?? []) if (child !== k) builtByOther.add(child);
    }
    const insideAnother = (k: FluxKustomization) => {
      for (let dir = dirnameOf(k.file); ; dir = dirnameOf(dir)) {
        if ((paths.get(dir) ?? []).some((other) => other !== k)) return true;
        if (dir === '') return false;
      }
    };
    const first = this.model.kustomizations[0];
    const why = unresolved.length > 0 ? ` (${unresolved.join('; ')})` : '';
    this.model.report({
      kind: 'assumed-root',
      file: first.file,
      span: first.span,
      severity: 'info',
      message: `No root found: no gotk-sync.yaml or other Kustomization that applies itself, no FluxInstance sync, no flux.roots in the contract${why}. Every Kustomization that nothing else here builds is taken as a root; name the folders Flux starts from in flux.roots to check exactly what Flux applies.`,
    });
    return ours.filter((k) => !builtByOther.has(k) && !insideAnother(k)).map((k): RootCandidate => ({ how: 'fallback', kustomization: k, source, declaredIn: null, assumption: null }));
  }

  /**
   * Kustomizations that apply themselves: on a cycle of "builds the file of"
   * through Kustomizations of one source (bootstrap's flux-system, which builds
   * the folder holding its own gotk-sync.yaml). Tarjan's SCC, linear in edges.
   */
  private selfApplying(): FluxKustomization[] {
    const edges = new Map<FluxKustomization, FluxKustomization[]>();
    for (const k of this.model.kustomizations) {
      const artifact = this.model.sources.ownArtifact(k);
      if (!artifact) continue;
      const children: FluxKustomization[] = [];
      for (const [file, built] of this.model.buildOf(k, artifact).files) {
        if (!built.some((entry) => entry.role === 'resource')) continue;
        for (const child of this.model.byFile.get(file) ?? []) if (child.sourceKind === k.sourceKind && child.sourceName === k.sourceName) children.push(child);
      }
      edges.set(k, children);
    }
    const sizes = componentSizes(this.model.kustomizations, (k) => edges.get(k) ?? []);
    return this.model.kustomizations.filter((k) => sizes.get(k)! > 1 || (edges.get(k) ?? []).includes(k));
  }

  /** The files a candidate's world applies (for the checks between candidates). */
  private reachOf(candidate: RootCandidate): Set<string> {
    const files = new Set<string>();
    const seen = new Set<FluxKustomization>([candidate.kustomization]);
    const queue = [candidate.kustomization];
    const world = { source: candidate.source };
    while (queue.length > 0) {
      const k = queue.pop()!;
      const artifact = this.model.sources.artifactIn(k, world);
      if (!artifact) continue;
      for (const [file, built] of this.model.buildOf(k, artifact).files) {
        files.add(file);
        if (!built.some((entry) => entry.role === 'resource')) continue;
        for (const child of this.model.byFile.get(file) ?? []) {
          if (seen.has(child)) continue;
          seen.add(child);
          queue.push(child);
        }
      }
    }
    return files;
  }

  /**
   * What `flux bootstrap` writes (P/flux-system/gotk-sync.yaml) is applied by bootstrap itself,
   * whether or not P's kustomization lists flux-system/ again: its Kustomizations whose path exists.
   */
  private bootstrapSyncs(): FluxKustomization[] {
    const found: FluxKustomization[] = [];
    for (const [file, ks] of this.model.byFile) {
      if (!/(^|\/)flux-system\/gotk-sync\.yaml$/.test(file)) continue;
      for (const k of ks) {
        const artifact = this.model.sources.ownArtifact(k);
        if (artifact && k.path !== null && this.model.layout.hasDir(inRepository(artifact.artifact, k.path))) found.push(k);
      }
    }
    return found;
  }

  /**
   * What `flux bootstrap --path=P` stands for when its sync file is a placeholder (a
   * P/flux-system/gotk-sync.yaml without a Kustomization in it): a Kustomization flux-system that
   * applies P, from the GitRepository flux-system.
   */
  private bootstrapPlaceholders(): FluxKustomization[] {
    const found: FluxKustomization[] = [];
    for (const file of this.model.files) {
      const match = /^(?:(.*)\/)?flux-system\/gotk-sync\.yaml$/.exec(file);
      if (!match) continue;
      if ((this.model.byFile.get(file) ?? []).length > 0) continue;
      const path = match[1] ?? '';
      found.push(syntheticKustomization('flux-system', 'flux-system', file, [0, 0], path, 'GitRepository', 'flux-system'));
    }
    return found;
  }
}

/**
 * Drops candidates that another one covers: the same root twice (a sync and
 * the gotk-sync.yaml it replaced), or a root that another root's world applies
 * (a cluster's self-applying flux-system inside a bigger world).
 */
function dedupe(candidates: RootCandidate[], reach: Map<RootCandidate, Set<string>>): RootCandidate[] {
  const seen = new Set<string>();
  const unique = candidates.filter((c) => {
    const key = `${c.source.kind}/${c.source.name}:${c.kustomization.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.filter((c) => !unique.some((other) => other !== c && coveredBy(c, other, reach)));
}

function coveredBy(c: RootCandidate, other: RootCandidate, reach: Map<RootCandidate, Set<string>>): boolean {
  const mine = reach.get(c)!;
  const theirs = reach.get(other)!;
  if (!theirs.has(c.kustomization.file)) return false;
  // Mutual (each applies the other): keep the first of the two.
  if (mine.has(other.kustomization.file)) return c.kustomization.file + c.kustomization.name > other.kustomization.file + other.kustomization.name;
  return true;
}
