// The small, whole-repository facts a single file's analysis depends on: the
// file list, which files kustomize uses as patches, where Helm charts are,
// and the Flux graph (Kustomizations, their variables, ServiceAccounts). Each
// file contributes facts found by a text prefilter, so most files are never
// parsed for it; the graph is rebuilt lazily, and only when the facts that
// shape it change.
import type { FileRole } from './analyze';
import { extractFacts, FileFacts, isKustomizationFile, mayHoldFacts } from './flux/facts';
import { FluxGraph } from './flux/graph';
import { basenameOf, dirnameOf } from './paths';

export { isKustomizationFile };
export { KUSTOMIZATION_FILE_NAMES } from './flux/facts';

export class RepoIndex {
  private readonly files = new Set<string>();
  private readonly facts = new Map<string, FileFacts>();
  /** Each file's facts without positions: a change of shape means a new graph. */
  private readonly shapes = new Map<string, string>();
  private readonly chartDirs = new Set<string>();
  private graph: FluxGraph | null = null;
  private graphHasStalePositions = false;
  private patchFiles: Set<string> | null = null;
  /** Bumped whenever the index changes in a way other files' analyses can see. */
  version = 0;

  setFiles(paths: Iterable<string>): void {
    this.files.clear();
    for (const path of paths) this.files.add(path);
    this.invalidate();
    this.version++;
  }

  /**
   * Records what one file contributes (`text` undefined: the file is gone).
   * Returns true when the change can alter other files' analyses.
   */
  update(path: string, text: string | undefined, knownFacts?: FileFacts | null): boolean {
    let changed = false;
    if (text === undefined ? this.files.delete(path) : !this.files.has(path)) {
      if (text !== undefined) this.files.add(path);
      changed = true;
    }
    if (basenameOf(path) === 'Chart.yaml') {
      changed = (text === undefined ? this.chartDirs.delete(dirnameOf(path)) : !this.chartDirs.has(dirnameOf(path))) || changed;
      if (text !== undefined) this.chartDirs.add(dirnameOf(path));
    }
    const facts = text === undefined ? null : knownFacts !== undefined ? knownFacts : mayHoldFacts(path, text) ? extractFacts(path, text) : null;
    const shape = facts ? shapeOf(facts) : undefined;
    if (shape !== this.shapes.get(path)) changed = true;
    else if (facts) this.graphHasStalePositions = true;
    if (facts) {
      this.facts.set(path, facts);
      this.shapes.set(path, shape!);
    } else {
      this.facts.delete(path);
      this.shapes.delete(path);
    }
    if (changed) {
      this.invalidate();
      this.version++;
    }
    return changed;
  }

  /** The Flux graph; `withFreshPositions` rebuilds it when only positions moved (for hover and definitions). */
  fluxGraph(withFreshPositions = false): FluxGraph {
    if (!this.graph || (withFreshPositions && this.graphHasStalePositions)) {
      this.graph = new FluxGraph(this.files, this.facts);
      this.graphHasStalePositions = false;
    }
    return this.graph;
  }

  /** Whether a ServiceAccount document declares `name` (in `namespace`, when both sides know it). */
  declaresServiceAccount(name: string, namespace: string | null): boolean {
    for (const facts of this.facts.values()) {
      if (facts.serviceAccounts.some((sa) => sa.name === name && (namespace === null || sa.namespace === null || sa.namespace === namespace))) return true;
    }
    return false;
  }

  /** Whether any pod in the repository runs as `name` (in `namespace`, when both sides know it). */
  usesServiceAccount(name: string, namespace: string | null): boolean {
    for (const facts of this.facts.values()) {
      if (facts.serviceAccountUses.some((sa) => sa.name === name && (namespace === null || sa.namespace === null || sa.namespace === namespace))) return true;
    }
    return false;
  }

  allFacts(): IterableIterator<FileFacts> {
    return this.facts.values();
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  roleOf(path: string): FileRole {
    if (this.isChartTemplate(path)) return 'chart-template';
    this.patchFiles ??= new Set([...this.facts.values()].flatMap((facts) => facts.kustomize?.patches ?? []));
    return this.patchFiles.has(path) ? 'patch' : 'resource';
  }

  private invalidate(): void {
    this.graph = null;
    this.patchFiles = null;
  }

  private isChartTemplate(path: string): boolean {
    const parts = path.split('/');
    for (let i = parts.length - 2; i >= 0; i--) {
      if (parts[i] === 'templates' && this.chartDirs.has(parts.slice(0, i).join('/'))) return true;
    }
    return false;
  }
}

function shapeOf(facts: FileFacts): string {
  return JSON.stringify(facts, (key, value) => {
    if (key === 'span' || key === 'pathSpan') return undefined;
    return value instanceof Map ? [...value.entries()] : value;
  });
}
