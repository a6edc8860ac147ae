// Where one Flux variable lives: the places that define it (a `substitute:`
// key, a ConfigMap/Secret or generated data key, an env-file line, the
// contract's flux.variables entry) and every `${NAME}` Flux substitutes with
// it. References and rename both stand on this.
//
// The set is closed: from a use, the Kustomizations that substitute it and the
// definitions they resolve the name to; from a definition, the live
// Kustomizations that resolve the name to it; from each of those
// Kustomizations, the uses in every file it builds; from each use, the other
// Kustomizations that substitute the same text (another cluster's, with its own
// definition). So a rename changes every definition and every use together,
// and no Kustomization is left reading the old name where another reads the new.
import type { Contract } from '../contract/model';
import type { FluxGraph } from '../flux/model/graph';
import type { DefinedVariable } from '../flux/model/variables';
import type { Builder } from '../flux/model/world';
import { fluxContextOf } from '../pipeline/repo-analysis';
import type { RepoIndex } from '../pipeline/repo-index';
import { nameUses, NameUse, substitutedRegions } from './substituted-text';

export interface VariableSite {
  file: string;
  /** [start, end) of the name's characters. */
  span: [number, number];
  definition: boolean;
}

/** The variable under the cursor: its name, where the name is written there, and the Kustomizations to start from. */
export interface VariableTarget {
  name: string;
  span: [number, number];
  builders: Builder[];
  definition: boolean;
}

export interface VariableSites {
  name: string;
  /** Definitions first, then uses; each file's in order. */
  sites: VariableSite[];
  /** The Kustomizations whose variable this is (in every world). */
  builders: Builder[];
  /** Definitions whose name is not written verbatim where they point (an inline patch text): not editable. */
  unlocated: DefinedVariable[];
  /** Uses of `other` (see variableSites) in the files those Kustomizations build. */
  otherUses: VariableSite[];
}

/** Reads a file as the editor sees it (open documents shadow the disk); undefined when it cannot. */
export type ReadText = (path: string) => Promise<string | undefined>;

/** The `${NAME}` (innermost) or the defining key at `offset`, or null. */
export function variableTargetAt(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): VariableTarget | null {
  const graph = index.fluxGraph(true); // definitions' positions must be those of the current texts
  const flux = fluxContextOf(index, contract, path);
  if (flux) {
    let best: NameUse | null = null;
    for (const use of nameUses(substitutedRegions(flux, path, text, offset, offset), text)) {
      if (offset < use.span[0] || offset > use.span[1]) continue;
      if (!best || use.span[1] - use.span[0] < best.span[1] - best.span[0]) best = use;
    }
    if (best) return { name: best.name, span: best.nameSpan, builders: best.region.substituting, definition: false };
  }
  for (const builder of graph.liveBuilders()) {
    for (const [name, defined] of builder.vars?.defined ?? []) {
      if (defined.file !== path || offset < defined.span[0] || offset > defined.span[1]) continue;
      const span = locateDefinition(text, name, defined.span);
      if (span && offset >= span[0] && offset <= span[1]) return { name, span, builders: buildersDefining(graph, name, defined), definition: true };
    }
  }
  return null;
}

/**
 * Every site of the target's variable. `other`, when given, is a second name whose uses in the
 * same files are collected too (a rename's collision check).
 */
export async function variableSites(index: RepoIndex, contract: Contract, target: VariableTarget, read: ReadText, other: string | null = null): Promise<VariableSites> {
  const graph = index.fluxGraph(true);
  const { name } = target;
  const filesOf = builtFiles(graph);
  const builders = new Set<Builder>();
  const pending: Builder[] = [];
  const definitions = new Map<string, DefinedVariable>();
  const scanned = new Set<string>();
  /** Uses of the name (or of `other`) in scanned files, accepted once one of the set's Kustomizations substitutes them. */
  const candidates: Array<{ use: NameUse; file: string; accepted: boolean }> = [];
  const add = (builder: Builder) => {
    if (builders.has(builder)) return;
    builders.add(builder);
    pending.push(builder);
  };
  target.builders.forEach(add);
  do {
    while (pending.length > 0) {
      const builder = pending.pop()!;
      const defined = builder.vars?.defined.get(name);
      if (defined && !definitions.has(key(defined.file, defined.span))) {
        definitions.set(key(defined.file, defined.span), defined);
        buildersDefining(graph, name, defined).forEach(add);
      }
      for (const file of filesOf.get(builder) ?? []) {
        if (scanned.has(file)) continue;
        scanned.add(file);
        const text = await read(file);
        // Only a file that holds the name can use it: most files are never parsed here.
        if (text === undefined || !(text.includes(name) || (other !== null && text.includes(other)))) continue;
        const flux = fluxContextOf(index, contract, file);
        if (!flux) continue;
        for (const use of nameUses(substitutedRegions(flux, file, text), text)) if (use.name === name || use.name === other) candidates.push({ use, file, accepted: false });
      }
    }
    // Whoever else substitutes an accepted use joins the set (and brings its files and definition).
    for (const candidate of candidates) {
      if (candidate.accepted || !candidate.use.region.substituting.some((b) => builders.has(b))) continue;
      candidate.accepted = true;
      if (candidate.use.name === name) candidate.use.region.substituting.forEach(add);
    }
  } while (pending.length > 0);
  const uses = new Map<string, VariableSite>();
  const otherUses = new Map<string, VariableSite>();
  for (const { use, file, accepted } of candidates) {
    if (accepted) (use.name === name ? uses : otherUses).set(key(file, use.nameSpan), { file, span: use.nameSpan, definition: false });
  }
  const sites: VariableSite[] = [];
  const unlocated: DefinedVariable[] = [];
  for (const defined of definitions.values()) {
    const text = await read(defined.file);
    const span = text === undefined ? null : locateDefinition(text, name, defined.span);
    if (span) sites.push({ file: defined.file, span, definition: true });
    else unlocated.push(defined);
  }
  const bySite = (a: VariableSite, b: VariableSite) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.span[0] - b.span[0]);
  return { name, sites: [...dedupe(sites).sort(bySite), ...[...uses.values()].sort(bySite)], builders: [...builders], unlocated, otherUses: [...otherUses.values()].sort(bySite) };
}

/** The live Kustomizations that resolve `name` to this very definition. */
function buildersDefining(graph: FluxGraph, name: string, defined: DefinedVariable): Builder[] {
  return graph.liveBuilders().filter((builder) => {
    const other = builder.vars?.defined.get(name);
    return other !== undefined && other.file === defined.file && other.span[0] === defined.span[0];
  });
}

const filesByGraph = new WeakMap<FluxGraph, Map<Builder, string[]>>();

/** Each live Kustomization's files, any role (the graph indexes the other way round). */
function builtFiles(graph: FluxGraph): Map<Builder, string[]> {
  let files = filesByGraph.get(graph);
  if (!files) {
    files = new Map();
    for (const [file, entries] of graph.allEntries()) {
      for (const entry of entries) {
        const list = files.get(entry.builder);
        if (!list) files.set(entry.builder, [file]);
        else if (list[list.length - 1] !== file) list.push(file);
      }
    }
    filesByGraph.set(graph, files);
  }
  return files;
}

/**
 * The name's characters in a definition's span: a key followed by `:` or `=` (a data key, a
 * `substitute:` key, a literal, an env line), else the name as a whole word (an ExternalSecret's
 * `secretKey:`, the contract's `name:`). Null when it is not written there verbatim.
 */
export function locateDefinition(text: string, name: string, span: [number, number]): [number, number] | null {
  const slice = text.slice(span[0], span[1]);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?<![\\w.-])${escaped}(?=["']?\\s*[:=])`).exec(slice) ?? new RegExp(`(?<![\\w.-])${escaped}(?![\\w.-])`).exec(slice);
  return match ? [span[0] + match.index, span[0] + match.index + name.length] : null;
}

function key(file: string, span: [number, number]): string {
  return `${file}:${span[0]}`;
}

function dedupe(sites: VariableSite[]): VariableSite[] {
  const seen = new Set<string>();
  return sites.filter((site) => !seen.has(key(site.file, site.span)) && Boolean(seen.add(key(site.file, site.span))));
}
