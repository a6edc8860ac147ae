// Outside sources, each modelled once: a ConfigMap or Secret that
// Kustomizations substitute from and that the repository cannot show (no such
// object here, or a producer whose keys are not written out). For each: the
// worlds it is outside in, every Kustomization (per world) that takes it, and
// per Kustomization the names its files use that only it can define (no known
// source of that Kustomization defines them, no declaration of another of its
// outside sources lists them). The report of unknown names, the declare fix
// and the contract's checks all read this one model. Pure over the graph and
// the names each file uses.
import type { SubstituteFromRef, VariableSource } from '../facts/model';
import type { FluxGraph } from './graph';
import type { Builder, World } from './world';
import type { InputFacts } from '../facts/model';
import type { OutsideRef } from './variables';

export interface OutsideTaker {
  builder: Builder;
  /** The builder's reference to the source, with what the model knows of it. */
  entry: OutsideRef;
  /** The names the builder's files use that only this source can define, sorted. */
  names: string[];
}

export interface OutsideSource {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  /** The namespace Flux reads it in (the Kustomizations'), null when they do not say. */
  namespace: string | null;
  /** Why its names cannot be known (the first taker's reason). */
  why: string;
  /** The first in-repository producer whose keys are unknowable, in (file, offset) order. */
  producer: VariableSource | null;
  /** Where it is named first: the producer's `dataFrom` (or kind), else the first reference. */
  file: string;
  span: [number, number];
  takers: OutsideTaker[];
  /** Every name the repository uses from it (all takers, all worlds), sorted. */
  names: string[];
  /** Worlds where it is outside, and worlds where the same reference reads an object the repository shows. */
  worlds: World[];
  knownIn: World[];
}

/** What the model reads besides the graph: the `${NAME}`s each YAML file uses, and what generator inputs hold. */
export interface NamesUsed {
  yaml(file: string): readonly string[];
  inputs: ReadonlyMap<string, InputFacts>;
}

export function outsideSources(graph: FluxGraph, used: NamesUsed): OutsideSource[] {
  const takes = graph.liveBuilders().filter((builder) => (builder.vars?.outside.length ?? 0) > 0);
  if (takes.length === 0) return [];
  const names = namesUsedBy(graph, new Set(takes), used);
  const byName = new Map<string, OutsideTaker[]>();
  for (const builder of takes) {
    for (const entry of builder.vars!.outside) {
      const key = `${entry.ref.kind}/${entry.ref.name}`;
      const takers = byName.get(key) ?? [];
      takers.push({ builder, entry, names: namesFrom(builder, entry, names.get(builder)!) });
      byName.set(key, takers);
    }
  }
  const sources: OutsideSource[] = [];
  for (const takers of byName.values()) for (const group of byNamespace(takers)) sources.push(sourceOf(group, graph));
  return sources.sort((a, b) => compareLocation(a, b));
}

/** The names each builder's files use (YAML scalars it substitutes, generator inputs it reads with substitution). */
function namesUsedBy(graph: FluxGraph, builders: Set<Builder>, used: NamesUsed): Map<Builder, Set<string>> {
  const names = new Map<Builder, Set<string>>();
  for (const builder of builders) names.set(builder, new Set());
  for (const [file, entries] of graph.allEntries()) {
    for (const entry of entries) {
      const into = names.get(entry.builder);
      if (!into) continue;
      const generator = entry.role === 'generator' ? entry.generator! : null;
      const inputs = generator && generator.generator.substituted ? used.inputs.get(file) : undefined;
      const list = generator ? ((generator.input.kind === 'env' ? inputs?.envUses : inputs?.uses) ?? []) : used.yaml(file);
      for (const name of list) into.add(name);
    }
  }
  return names;
}

/**
 * The names a builder uses that only `entry` can define: defined by nothing, or only by the
 * contract's word for this source (its `from` item, or the old `{name}` list where that stands for it).
 */
function namesFrom(builder: Builder, entry: OutsideRef, used: Set<string>): string[] {
  const out: string[] = [];
  for (const name of used) {
    const defined = builder.vars!.defined.get(name);
    if (!defined || defined.declared === entry.ref || (defined.declared === 'legacy' && entry.state === 'legacy')) out.push(name);
  }
  return out.sort();
}

/**
 * Kustomizations of several namespaces read several objects of one name: one source per namespace.
 * Those whose namespace is not written join the first (one namespace, or none, is one source).
 */
function byNamespace(takers: OutsideTaker[]): OutsideTaker[][] {
  const namespaces = [...new Set(takers.map((t) => t.entry.namespace).filter((ns): ns is string => ns !== null))].sort();
  if (namespaces.length <= 1) return [takers];
  return namespaces.map((namespace, i) => takers.filter((t) => t.entry.namespace === namespace || (i === 0 && t.entry.namespace === null)));
}

function sourceOf(takers: OutsideTaker[], graph: FluxGraph): OutsideSource {
  const { ref } = takers[0].entry;
  const namespace = takers.find((t) => t.entry.namespace !== null)?.entry.namespace ?? null;
  const producers = takers.map((t) => t.entry.producer).filter((p): p is VariableSource => p !== null);
  const producer = producers.sort((a, b) => compareAt(a.file, a.unknownSpan?.[0] ?? 0, b.file, b.unknownSpan?.[0] ?? 0))[0] ?? null;
  const refs = takers.map((t) => t.entry.ref).sort((a, b) => compareAt(a.file, a.span[0], b.file, b.span[0]));
  const first: SubstituteFromRef = refs.find((r) => r.file !== '') ?? refs[0];
  const at = producer ? { file: producer.file, span: producer.unknownSpan ?? first.span } : { file: first.file, span: first.span };
  const worlds = [...new Set(takers.map((t) => t.builder.world))].sort((a, b) => a.index - b.index);
  const knownIn = graph.worlds.filter((world) => !worlds.includes(world) && readsKnown(graph, world, ref));
  const names = [...new Set(takers.flatMap((t) => t.names))].sort();
  return { kind: ref.kind, name: ref.name, namespace, why: takers[0].entry.why, producer, ...at, takers, names, worlds, knownIn };
}

/** Whether some live Kustomization of the world takes a reference of that kind and name that reads an object the repository shows. */
function readsKnown(graph: FluxGraph, world: World, ref: SubstituteFromRef): boolean {
  return graph
    .liveBuilders()
    .some(
      (b) =>
        b.world === world &&
        b.vars !== null &&
        (b.postBuild?.substituteFrom ?? []).some((r) => r.kind === ref.kind && r.name === ref.name) &&
        !b.vars.outside.some((o) => o.ref.kind === ref.kind && o.ref.name === ref.name),
    );
}

function compareAt(fileA: string, offsetA: number, fileB: string, offsetB: number): number {
  return fileA < fileB ? -1 : fileA > fileB ? 1 : offsetA - offsetB;
}

function compareLocation(a: OutsideSource, b: OutsideSource): number {
  return compareAt(a.file, a.span[0], b.file, b.span[0]) || (a.kind + a.name < b.kind + b.name ? -1 : 1);
}

/** The model's source that a reference of a Kustomization reads (kind, name, and its namespace). */
export function sourceFor(sources: readonly OutsideSource[], kind: string, name: string, namespace: string | null): OutsideSource | undefined {
  return sources.find((s) => s.kind === kind && s.name === name && s.takers.some((t) => t.entry.namespace === namespace));
}
