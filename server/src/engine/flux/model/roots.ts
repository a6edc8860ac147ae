// The roots stage: where Flux starts applying this repository. Candidates
// are, in order of authority: the contract's `flux.roots`; the sync a
// FluxInstance declares; a Kustomization that applies itself (what `flux
// bootstrap` writes as gotk-sync.yaml, or any Kustomization whose path builds
// its own file). The graph keeps the candidates that hold up (a sync written in
// a file no world applies is stale; a candidate another one applies is part
// of that world) and falls back to "every Kustomization nothing else builds"
// only when none does.
import type { FluxKustomization, SourceDecl, SubstituteFromRef, SourceKind, SyncDecl } from '../facts/model';
import type { DeclaredSource, ExternalVariable } from './variables';

/** What the contract tells the model (contract.md, `flux:`). */
export interface FluxConfig {
  roots: Array<{ path: string; file: string; span: [number, number] }>;
  sources: Array<{ kind: SourceKind; name: string; namespace: string | null; path: string; file: string; span: [number, number]; item?: [number, number] }>;
  substituteFrom: SubstituteFromRef[];
  /** The `{name}` items of `flux.variables`; null: the contract does not say which names come from outside. */
  variables: ExternalVariable[] | null;
  /** The `from` items of `flux.variables`: outside sources with their names (or unknown on purpose). */
  declaredSources: DeclaredSource[];
}

export const NO_FLUX_CONFIG: FluxConfig = { roots: [], sources: [], substituteFrom: [], variables: null, declaredSources: [] };

/** The source a root names: "this repository" in its world. */
export interface SourceIdentity {
  kind: string;
  name: string;
  namespace: string | null;
  url: string | null;
  /**
   * The repository folder the source's artifact holds: null for the whole repository; a folder
   * for an OCI artifact CI pushes from it, or a folder that is a Git repository of its own.
   */
  folder: string | null;
  /**
   * The source object itself, where the root shows it: one cluster's GitRepository of several
   * with the same name (each with its own `spec.ignore`). Every Kustomization of the world that
   * names the source builds from this object, not from the same-named one nearest to its file.
   */
  decl?: SourceDecl;
}

export interface RootCandidate {
  how: 'contract' | 'sync' | 'bootstrap' | 'fallback';
  /** The Kustomization Flux starts with (a real one, or the one a sync makes). */
  kustomization: FluxKustomization;
  source: SourceIdentity;
  /** For syncs: the file that must be applied for the sync to be current. */
  declaredIn: string | null;
  /** For syncs: how the sync is written (`FluxInstance`, `HelmRelease values`, `chart values`). */
  via?: string;
  /** Why the candidate's source folder is a guess, when it is. */
  assumption: string | null;
  /** The same guess made for other syncs has the same key: said once (d2-fleet syncs one artifact per cluster). */
  assumptionKey?: string;
}

/** A Kustomization the model makes where none is written (what a sync or a contract root starts). */
export function syntheticKustomization(name: string, namespace: string | null, file: string, span: [number, number], path: string, sourceKind: string, sourceName: string): FluxKustomization {
  return {
    file,
    name,
    nameSpan: null,
    namespace,
    labels: {},
    span,
    line: 0,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    define: null,
    path,
    pathAsWritten: path,
    pathSpan: span,
    components: [],
    postBuild: null,
    postBuildSpan: null,
    patches: [],
    interval: null,
    timeout: null,
    wait: false,
    force: false,
    prune: true,
    targetNamespace: null,
    kustomizeLayer: null,
    sourceKind,
    sourceName,
    sourceNamespace: namespace,
    dependsOn: [],
    addPostBuild: null,
  };
}

export function syncCandidate(sync: SyncDecl, config: FluxConfig, folderOf: (path: string) => string[]): RootCandidate | { unresolved: string } {
  const path = sync.pathAsWritten.replace(/^\.?\//, '').replace(/\/+$/, '');
  const kustomization = syntheticKustomization(sync.name, sync.namespace, sync.file, sync.span, path, sync.kind, sync.name);
  const source: SourceIdentity = { kind: sync.kind, name: sync.name, namespace: sync.namespace, url: sync.url, folder: null };
  const base: RootCandidate = { how: 'sync', kustomization, source, declaredIn: sync.file, via: sync.via, assumption: null };
  const mapped = config.sources.find((s) => s.kind === sync.kind && s.name === sync.name && (s.namespace === null || s.namespace === sync.namespace));
  if (mapped) return { ...base, source: { ...source, folder: mapped.path } };
  if (sync.kind === 'GitRepository') return base;
  // CI pushes a folder of this repository as the artifact: the one folder under which the sync's path exists.
  const folders = folderOf(path);
  if (folders.length === 1) {
    const shown = folders[0] === '' ? 'the repository root' : `${folders[0]}/`;
    const assumption = `${sync.via} syncs ${sync.kind} ${sync.name} (${sync.url ?? 'no url'}), which the repository cannot show; assumed it holds ${shown}, the only folder with ${path}/. Say so in flux.sources to be sure.`;
    const assumptionKey = `${sync.via}|${sync.kind}|${sync.name}|${sync.url}|${folders[0]}`;
    // '' is the repository root as the artifact's root (null would be no artifact of this repository at all).
    return { ...base, source: { ...source, folder: folders[0] }, assumption, assumptionKey };
  }
  return {
    unresolved: `${sync.via} in ${sync.file} syncs ${sync.kind} ${sync.name}, an artifact this repository cannot show (${folders.length === 0 ? `no folder holds ${path}/` : `${folders.length} folders hold ${path}/`}): declare the folder it holds in flux.sources`,
  };
}

/** Normalized repository URL (scheme, user, `.git` and case dropped), to recognize this repository by another source's name. */
export function sameRepository(a: string | null, b: string | null): boolean {
  if (!a || !b) return false;
  const normal = (url: string) =>
    url
      .trim()
      .toLowerCase()
      .replace(/^[a-z+]+:\/\//, '')
      .replace(/^[^@/]+@/, '')
      .replace(/:(?!\d)/, '/')
      .replace(/\.git\/?$|\/+$/, '');
  return normal(a) === normal(b);
}
