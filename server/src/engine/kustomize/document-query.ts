// The cheap question, per document: "with its own metadata, is it opted out
// of substitution as kustomize builds it from this folder?" The answer needs
// no other resource file: the chain of transformations that reaches the
// document is found from the kustomization files (and their patch files)
// alone, then applied to the document's own header. Where a transformation
// depends on other resources (a replacement's source, a generator merging
// into a base's object), or a step fails, the whole folder is built instead.
// Whether the folder's build as a whole fails is KustomizeBuilder.build.
import { BuildOutcome, KustomizeBuilder, LOCAL_CONFIG, SUBSTITUTE_OPT_OUT } from './build';
import { isRemote, resolveIn } from './files';
import { generate } from './generators';
import type { Kustomization } from './kustomization';
import type { ResourceDoc } from './resource-docs';
import { Res, resourceFromDoc } from './resource';
import type { TransformerStage } from './transformers';
import { BuildError, KustomizeFailure, Span } from './types';

/** A document of a resource file (its header as the engine parsed it), or the object a generator item makes. */
export type QueryTarget = { kind: 'document'; file: string; doc: ResourceDoc } | { kind: 'generator'; file: string; span: Span };

export interface OptOut {
  annotation: string | null;
  label: string | null;
  /** Whether Flux leaves it unsubstituted: the annotation or the label is `disabled`. */
  disabled: boolean;
}

export type OptOutAnswer =
  /** `results` holds one entry per way the build outputs the target (none: kustomize does not output it). */
  { status: 'built'; how: 'chain' | 'build'; results: OptOut[] } | { status: 'failed'; failure: KustomizeFailure } | { status: 'unsupported'; reason: 'remote' | 'helm' };

/** The chain is not enough: build the folder. */
class NeedsBuild extends Error {}
const NEEDS_BUILD = new NeedsBuild('the whole folder must be built');

interface Chain {
  /** The document's file, or `file#start` of a generator item. */
  key: string;
  start: (target: QueryTarget) => Res;
  stages: TransformerStage[];
}

/** Per folder, the chains to every document and generated object its build reaches (or that it must be built). */
const indexes = new WeakMap<KustomizeBuilder, Map<string, Map<string, Chain[]> | NeedsBuild>>();

function keyOf(target: QueryTarget): string {
  return target.kind === 'document' ? target.file : `${target.file}#${target.span[0]}`;
}

/** The opt-out of a document (or generated object) as the build of `dir` outputs it. */
export function optOutOf(builder: KustomizeBuilder, dir: string, target: QueryTarget): OptOutAnswer {
  try {
    const chains = chainIndex(builder, dir).get(keyOf(target)) ?? [];
    return { status: 'built', how: 'chain', results: chains.map((chain) => run(chain, target)).filter((result): result is OptOut => result !== null) };
  } catch (error) {
    if (!(error instanceof NeedsBuild || error instanceof BuildError)) throw error;
    return fromBuild(builder.build(dir), target);
  }
}

function chainIndex(builder: KustomizeBuilder, dir: string): Map<string, Chain[]> {
  let perBuilder = indexes.get(builder);
  if (!perBuilder) indexes.set(builder, (perBuilder = new Map<string, Map<string, Chain[]> | NeedsBuild>()));
  let index = perBuilder.get(dir);
  if (!index) {
    try {
      const chains: Chain[] = [];
      collect(builder, builder.kustomization(dir, { file: dir, span: null }), chains, [dir]);
      index = new Map();
      for (const chain of chains) index.set(chain.key, [...(index.get(chain.key) ?? []), chain]);
    } catch (error) {
      if (!(error instanceof NeedsBuild || error instanceof BuildError)) throw error;
      index = NEEDS_BUILD;
    }
    perBuilder.set(dir, index);
  }
  if (index instanceof NeedsBuild) throw index;
  return index;
}

function optOutIn(annotations: ReadonlyMap<string, string>, labels: ReadonlyMap<string, string> | null): OptOut {
  const annotation = annotations.get(SUBSTITUTE_OPT_OUT) ?? null;
  const label = labels?.get(SUBSTITUTE_OPT_OUT) ?? null;
  return { annotation, label, disabled: annotation === 'disabled' || label === 'disabled' };
}

function run(chain: Chain, target: QueryTarget): OptOut | null {
  const res = chain.start(target);
  for (const stage of chain.stages) {
    if (stage.wholeSet) throw NEEDS_BUILD;
    if (stage.appliesTo(res) && stage.step(res) === 'deleted') return null;
  }
  return res.annotations.get(LOCAL_CONFIG) === 'true' ? null : optOutIn(res.annotations, res.labels);
}

/**
 * The chains of everything a kustomization (or component) reaches, into
 * `chains`: its resources, its generators, its components (whose
 * transformers apply to all accumulated so far), then its own transformers.
 * Only kustomization and patch files are read.
 */
function collect(builder: KustomizeBuilder, k: Kustomization, chains: Chain[], stack: string[]): void {
  const files = builder.files;
  for (const entry of k.resources) {
    if (isRemote(entry.value)) throw NEEDS_BUILD;
    const path = resolveIn(k.dir, entry.value);
    if (path === null) throw NEEDS_BUILD;
    if (files.isFile(path)) {
      chains.push({ key: path, start: (target) => resourceFromDoc((target as QueryTarget & { kind: 'document' }).doc, path), stages: [] });
    } else if (files.isDir(path)) {
      if (stack.some((visited) => visited === path || visited.startsWith(path + '/') || path === '')) throw NEEDS_BUILD;
      const sub = builder.kustomization(path, { file: k.file, span: entry.span });
      if (sub.kind === 'Component') throw NEEDS_BUILD;
      // a folder is built on its own: its transformers apply to its resources only
      const inner: Chain[] = [];
      collect(builder, sub, inner, [...stack, path]);
      chains.push(...inner);
    } else throw NEEDS_BUILD;
  }
  for (const spec of k.generators) {
    // a generator that merges into a base's object takes that object's metadata: the build decides
    if (spec.behavior === 'merge' || spec.behavior === 'replace') throw NEEDS_BUILD;
    if (spec.files.some((source) => isRemote(source.value.slice(source.value.indexOf('=') + 1)))) throw NEEDS_BUILD;
    chains.push({ key: `${k.file}#${spec.span[0]}`, start: () => generate(files, k, spec), stages: [] });
  }
  for (const entry of k.components) {
    const path = isRemote(entry.value) ? null : resolveIn(k.dir, entry.value);
    if (path === null || !files.isDir(path)) throw NEEDS_BUILD;
    const component = builder.kustomization(path, { file: k.file, span: entry.span });
    if (component.kind !== 'Component') throw NEEDS_BUILD;
    collect(builder, component, chains, [...stack, path]);
  }
  const stages = builder.stages(k);
  for (const chain of chains) chain.stages.push(...stages);
}

function fromBuild(outcome: BuildOutcome, target: QueryTarget): OptOutAnswer {
  if (outcome.status === 'failed') return { status: 'failed', failure: outcome.failure };
  if (outcome.status === 'unsupported') return { status: 'unsupported', reason: outcome.reason };
  const span = target.kind === 'document' ? target.doc.span : target.span;
  const origin = target.kind === 'document' ? 'file' : 'generator';
  const results = outcome.resources
    .filter((res) => res.origin.kind === origin && res.origin.file === target.file && res.origin.span[0] === span[0] && res.origin.span[1] === span[1])
    .map((res) => optOutIn(res.annotations, res.labels));
  return { status: 'built', how: 'build', results };
}

/**
 * The resource files the build of `dir` reads (transitively: what its
 * kustomizations list); null when the folder cannot be built. A file in the
 * folder that no kustomization lists is not among them: kustomize (and Flux,
 * and Argo CD) does not apply it.
 */
export function reachedFiles(builder: KustomizeBuilder, dir: string): Set<string> | null {
  try {
    return new Set([...chainIndex(builder, dir).keys()].filter((key) => !key.includes('#')));
  } catch (error) {
    if (!(error instanceof NeedsBuild || error instanceof BuildError)) throw error;
    const outcome = builder.build(dir);
    if (outcome.status !== 'ok') return null;
    return new Set(outcome.resources.flatMap((res) => (res.origin.kind === 'file' ? [res.origin.file] : [])));
  }
}
