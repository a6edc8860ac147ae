// `kustomize build <folder>` (krusty's KustTarget, kustomize v5.5, no load
// restrictions, no plugins): the resources a folder accumulates — its
// `resources` (files and folders with their own kustomization, each built on
// its own first), what its generators make, then its components, which add
// their own and transform everything so far — then its transformers; at the
// end, generated names get their hash and `local-config` resources drop out.
// The first failure ends the build, as in kustomize.
import { isRemote, KustomizeFiles, kustomizationFilesIn, resolveIn, unreadable } from './files';
import { generate, mergeGenerated } from './generators';
import { generatedNameHash } from './hash';
import { Kustomization, loadKustomization } from './kustomization';
import type { KNode } from './knode';
import { loadPatches, Patch } from './patches';
import { loadReplacements, Replacement, replacementStage, treeField } from './replacements';
import { readTree } from './tree-reader';
import { scanResourceDocs, ResourceDoc } from './resource-docs';
import { anyIds, cloneRes, currentId, idKey, idText, Origin, Res, resourceFromDoc, sameId } from './resource';
import { runStages, TransformerStage, transformerStages } from './transformers';
import { BuildError, fail, KustomizeFailure, Span, Written } from './types';

export const SUBSTITUTE_OPT_OUT = 'kustomize.toolkit.fluxcd.io/substitute';
/** Resources annotated `"true"` with it stay out of kustomize's output. */
export const LOCAL_CONFIG = 'config.kubernetes.io/local-config';

export interface BuiltResource {
  apiVersion: string;
  kind: string;
  /** null when the built resource has none. */
  namespace: string | null;
  name: string;
  /** False when the name's hash suffix depends on bytes the model did not read (a binary generator input). */
  nameKnown: boolean;
  /** A generated object's name before its hash suffix (what a nameReference rewrites references to it from); absent without a suffix. */
  unhashedName?: string;
  /** The texts of the patches and replacements that changed it (what they may write beyond its metadata). */
  writtenBy: readonly string[];
  labels: ReadonlyMap<string, string>;
  annotations: ReadonlyMap<string, string>;
  origin: Origin;
}

/** A field the model leaves out (it may change ids or metadata), where a build meets it. */
export interface Unmodelled {
  file: string;
  field: string;
}

export type BuildOutcome =
  | { status: 'ok'; resources: BuiltResource[]; unmodelled: Unmodelled[] }
  | { status: 'failed'; failure: KustomizeFailure; unmodelled: Unmodelled[] }
  /** kustomize would fetch a URL or inflate a Helm chart: beyond the model (and the snapshot). */
  | { status: 'unsupported'; reason: 'remote' | 'helm'; file: string; span: Span | null; unmodelled: Unmodelled[] };

class Unsupported extends Error {
  constructor(
    readonly reason: 'remote' | 'helm',
    readonly file: string,
    readonly span: Span | null,
  ) {
    super(reason);
  }
}

/** A cached answer: a value or the failure that stands in its place. */
type Cached<T> = { value: T } | { error: BuildError | Unsupported };

/** The cached answer of `make`; a cycle is not cached (it depends on the path by which a folder is reached). */
function cached<T>(cache: Map<string, Cached<T>>, key: string, make: () => T): T {
  let entry = cache.get(key);
  if (!entry) {
    try {
      entry = { value: make() };
    } catch (error) {
      if (!(error instanceof BuildError || error instanceof Unsupported)) throw error;
      if (error instanceof BuildError && error.failure.reason === 'cycle') throw error;
      entry = { error };
    }
    cache.set(key, entry);
  }
  if ('error' in entry) throw entry.error;
  return entry.value;
}

/** What a builder keeps of a repository view: each read once, whatever builds reach it. */
interface Caches {
  kustomizations: Map<string, Cached<Kustomization>>;
  patches: Map<string, Cached<{ strategicMerge: Patch[]; patches: Patch[]; json6902: Patch[] }>>;
  docs: Map<string, ResourceDoc[]>;
  replacements: Map<string, Cached<Replacement[]>>;
  accumulated: Map<string, Cached<Accumulated>>;
}

function newCaches(): Caches {
  return { kustomizations: new Map(), patches: new Map(), docs: new Map(), replacements: new Map(), accumulated: new Map() };
}

/**
 * Fields added to one folder's kustomization before it is built (Flux's
 * kustomize-controller writes its own into the folder's kustomization file,
 * or generates one where the folder has none).
 */
export interface KustomizationLayer {
  dir: string;
  /** The folder's kustomization with the layer's fields; `own` is null where the folder has no kustomization file. */
  apply(own: Kustomization | null): Kustomization;
}

/** What a Kustomization folder accumulates, and every folder it reads a kustomization of on the way (itself first). */
interface Accumulated {
  resources: Res[];
  visited: string[];
}

/**
 * Builds kustomization folders over one repository view. Kustomization files,
 * patches, resource documents and each folder's accumulated resources are
 * read once and shared by every build that reaches them.
 */
export class KustomizeBuilder {
  private readonly caches: Caches;
  /** The layered folder's own answers (its kustomization and what it accumulates differ from the shared ones). */
  private readonly own: Caches = newCaches();

  constructor(
    readonly files: KustomizeFiles,
    /** A negative control's switch: build as if no kustomization had patches. */
    private readonly options: { ignorePatches?: boolean } = {},
    private readonly layer: KustomizationLayer | null = null,
    shared?: Caches,
  ) {
    this.caches = shared ?? newCaches();
  }

  /**
   * A builder that sees `layer.dir`'s kustomization with the layer's fields
   * (what Flux writes into it): every other folder's answers are shared with
   * this builder, so building many layered folders costs what they add.
   */
  layered(layer: KustomizationLayer): KustomizeBuilder {
    return new KustomizeBuilder(this.files, this.options, layer, this.caches);
  }

  /** The caches that hold a folder's (or a kustomization file's) answers: the layered folder has its own. */
  private cachesOf(dir: string): Caches {
    return this.layer !== null && dir === this.layer.dir ? this.own : this.caches;
  }

  /** What `kustomize build dir` outputs, or why it fails. */
  build(dir: string): BuildOutcome {
    const visited = new Set<string>();
    try {
      const resources = this.accumulateTarget(dir, [], { file: dir, span: null }, visited).map(cloneRes);
      const output = resources.filter((res) => res.annotations.get(LOCAL_CONFIG) !== 'true').map(finish);
      return { status: 'ok', resources: output, unmodelled: this.unmodelledIn(visited) };
    } catch (error) {
      if (error instanceof BuildError) return { status: 'failed', failure: error.failure, unmodelled: this.unmodelledIn(visited) };
      if (error instanceof Unsupported) return { status: 'unsupported', reason: error.reason, file: error.file, span: error.span, unmodelled: this.unmodelledIn(visited) };
      throw error;
    }
  }

  /** The kustomization of a folder (cached); throws where kustomize cannot load it. */
  kustomization(dir: string, from: { file: string; span: Span | null }): Kustomization {
    const present = kustomizationFilesIn(this.files, dir).length > 0;
    if (this.layer !== null && dir === this.layer.dir) {
      const layer = this.layer;
      // Flux rewrites the folder's own file before kustomize reads it (loadKustomization's asFlux)
      return cached(this.own.kustomizations, dir, () => layer.apply(present ? loadKustomization(this.files, dir, from, true) : null));
    }
    // a missing file is said where it is referenced from, so it is not cached
    if (!present) loadKustomization(this.files, dir, from);
    return cached(this.caches.kustomizations, dir, () => loadKustomization(this.files, dir, from));
  }

  /** The documents of a resource file (the caller's parse where it offers one). */
  resourceDocs(path: string): ResourceDoc[] {
    let docs = this.caches.docs.get(path);
    if (!docs) {
      docs = this.files.resourceDocs?.(path) ?? scanResourceDocs(this.files.read(path) ?? '');
      this.caches.docs.set(path, docs);
    }
    return docs;
  }

  /** The transformer stages of a kustomization (its patches and replacements loaded once); throws where one cannot be loaded. */
  stages(k: Kustomization): TransformerStage[] {
    const caches = this.cachesOf(k.dir);
    const patches = this.options.ignorePatches ? { strategicMerge: [], patches: [], json6902: [] } : cached(caches.patches, k.file, () => loadPatches(this.files, k));
    const replacements = cached(caches.replacements, k.file, () => loadReplacements(this.files, k));
    return transformerStages(
      k,
      patches,
      replacements.map((replacement) => replacementStage(replacement, (res, path) => this.documentField(res, path))),
    );
  }

  /** A field of a resource's own document (its whole text parsed); null when the document cannot be read alone. */
  private documentField(res: Res, path: string[]): KNode | undefined | null {
    if (res.origin.kind !== 'file') return null;
    const text = this.files.read(res.origin.file);
    const trees = text === undefined ? undefined : readTree(text, res.origin.span[0], res.origin.span[1]);
    if (!trees || trees.length !== 1) return null;
    return treeField(trees[0], path);
  }

  private unmodelledIn(visited: Set<string>): Unmodelled[] {
    const out: Unmodelled[] = [];
    for (const dir of visited) {
      const entry = this.cachesOf(dir).kustomizations.get(dir);
      if (entry && 'value' in entry) for (const field of entry.value.unmodelled) out.push({ file: entry.value.file, field });
    }
    return out;
  }

  /** AccumulateTarget of a Kustomization folder, cached (callers clone what they change). */
  private accumulateTarget(dir: string, stack: string[], from: { file: string; span: Span | null }, visited: Set<string>): Res[] {
    checkCycle(dir, stack, from);
    visited.add(dir);
    const k = this.kustomization(dir, from);
    if (k.kind === 'Component') fail('component-as-resource', `expected kind != 'Component' for path '${dir}'`, from.file, from.span);
    const result = cached(this.cachesOf(dir).accumulated, dir, () => {
      const own = new Set<string>([dir]);
      const ra = new Accumulator();
      this.accumulate(k, ra, [...stack, dir], own);
      return { resources: this.transform(k, ra.items), visited: [...own] };
    });
    // reached from elsewhere, the folders it reads may close a cycle with this path
    for (const inner of result.visited) {
      checkCycle(inner, stack, from);
      visited.add(inner);
    }
    return result.resources;
  }

  /** Resources, generators and components of a kustomization (or component), into `ra`. */
  private accumulate(k: Kustomization, ra: Accumulator, stack: string[], visited: Set<string>): void {
    for (const entry of k.resources) this.accumulateResource(k, entry, ra, stack, visited);
    for (const spec of k.generators) {
      // kustomize fetches a file source given as a URL: beyond the model
      const remote = spec.files.find((source) => isRemote(source.value.slice(source.value.indexOf('=') + 1)));
      if (remote) throw new Unsupported('remote', k.file, remote.span);
      ra.absorb(generate(this.files, k, spec), k.file, spec.span);
    }
    for (const entry of k.components) {
      if (isRemote(entry.value)) throw new Unsupported('remote', k.file, entry.span);
      const path = resolveIn(k.dir, entry.value);
      if (path === null || !this.files.isDir(path))
        fail(
          'missing-component',
          path === null ? unreadable(entry.value, path) : `loader.New "must build at directory: not a valid directory: ${path}: no such file or directory"`,
          k.file,
          entry.span,
          path,
        );
      const from = { file: k.file, span: entry.span };
      checkCycle(path, stack, from);
      visited.add(path);
      const component = this.kustomization(path, from);
      if (component.kind !== 'Component') fail('kustomization-as-component', `expected kind 'Component' for path '${path}' but got '${component.kind}'`, k.file, entry.span);
      this.accumulate(component, ra, [...stack, path], visited);
      ra.reset(this.transform(component, ra.items));
    }
  }

  private accumulateResource(k: Kustomization, entry: Written, ra: Accumulator, stack: string[], visited: Set<string>): void {
    if (isRemote(entry.value)) throw new Unsupported('remote', k.file, entry.span);
    const path = resolveIn(k.dir, entry.value);
    if (path !== null && this.files.isFile(path)) {
      for (const doc of this.resourceDocs(path)) {
        if (doc.error) fail('invalid-resource', `accumulating resources from '${entry.value}': ${doc.error.message}`, path, doc.error.span);
        ra.append(resourceFromDoc(doc, path), k.file, entry.span);
      }
      return;
    }
    if (path === null || !this.files.isDir(path))
      fail('missing-resource', `accumulating resources from '${entry.value}': ${unreadable(entry.value, path, path ?? entry.value)}`, k.file, entry.span, path);
    for (const res of this.accumulateTarget(path, stack, { file: k.file, span: entry.span }, visited)) ra.append(cloneRes(res), k.file, entry.span);
  }

  private transform(k: Kustomization, ra: Res[]): Res[] {
    if (k.unmodelled.includes('helmCharts') || k.unmodelled.includes('helmChartInflationGenerator')) throw new Unsupported('helm', k.file, null);
    return runStages(this.stages(k), ra);
  }
}

/** The loader's check: a folder may not contain a folder the build is already inside. */
function checkCycle(dir: string, stack: string[], from: { file: string; span: Span | null }): void {
  for (const visited of stack) {
    if (visited === dir || dir === '' || visited.startsWith(dir + '/')) fail('cycle', `cycle detected: candidate root '${dir}' contains visited root '${visited}'`, from.file, from.span);
  }
}

/**
 * kustomize's resWrangler: the resources a build accumulates, with the set of their current ids,
 * so that each append checks for a duplicate in constant time (a folder of thousands of
 * Kustomizations made the scan of every earlier resource quadratic). The set is made again after
 * anything that may change ids: a transformer run (reset) or a generator's merge.
 */
class Accumulator {
  private ids: Set<string> | null = null;

  constructor(public items: Res[] = []) {}

  /** resWrangler.Append: no two resources with the same current id. */
  append(res: Res, file: string, span: Span): void {
    const id = currentId(res);
    const key = idKey(id);
    const ids = this.currentIds();
    if (ids.has(key)) fail('duplicate-id', `may not add resource with an already registered id: ${idText(id)}`, file, span);
    ids.add(key);
    this.items.push(res);
  }

  /** resWrangler.appendReplaceOrMerge: a generated object is created, or merged into (or replaces) the one of its id. */
  absorb(res: Res, file: string, span: Span): void {
    const id = currentId(res);
    const matches = this.items.filter((other) => anyIds(other).some((otherId) => sameId(otherId, id)));
    const behavior = res.generated?.behavior ?? '';
    const merging = behavior === 'merge' || behavior === 'replace';
    this.ids = null;
    if (matches.length === 0) {
      if (merging) fail('generator', `id ${idText(id)} does not exist; cannot merge or replace`, file, span);
      this.items.push(res);
      return;
    }
    if (matches.length > 1) fail('generator', `found multiple objects that could accept merge of ${idText(id)}`, file, span);
    if (!merging) fail('generator', `id ${idText(id)} exists; behavior must be merge or replace`, file, span);
    this.items[this.items.indexOf(matches[0])] = mergeGenerated(res, matches[0]);
  }

  /** The resources after a transformer ran over them (their ids may have changed). */
  reset(items: Res[]): void {
    this.items = items;
    this.ids = null;
  }

  private currentIds(): Set<string> {
    return (this.ids ??= new Set(this.items.map((res) => idKey(currentId(res)))));
  }
}

/** The end of the build: a generated object's name gets its hash suffix. */
function finish(res: Res): BuiltResource {
  let name = res.name;
  let nameKnown = true;
  const unhashed = res.generated?.needsHash ? { unhashedName: res.name } : {};
  if (res.generated?.needsHash) {
    name = `${name}-${generatedNameHash(res.kind === 'Secret' ? 'Secret' : 'ConfigMap', { data: res.generated.data.size > 0 ? res.generated.data : null, binaryData: res.generated.binaryData, type: res.generated.type })}`;
    nameKnown = res.generated.hashKnown;
  }
  return {
    apiVersion: res.apiVersion,
    kind: res.kind,
    namespace: res.namespace === '' ? null : res.namespace,
    name,
    nameKnown,
    ...unhashed,
    writtenBy: res.writtenBy ?? [],
    labels: res.labels ?? new Map(),
    annotations: res.annotations,
    origin: res.origin,
  };
}
