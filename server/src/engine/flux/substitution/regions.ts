// Where Flux substitutes the text of one file, and with which Kustomizations:
// the scalars of a resource or patch (never its comments), the
// inline patches and generator literals of a kustomization file, the bytes of
// a file a configMapGenerator reads (the values of an env file). Never in a
// resource that opts out with `kustomize.toolkit.fluxcd.io/substitute:
// disabled`, nor in what a generator that opts out makes.
import type { SubstitutionMode } from '../../contract/model';
import type { Fix } from '../../base/types';
import { asMap, asSeq, findPair, getString, isScalar, ParsedDocument } from '../../yaml/documents';
import type { VarSet } from '../model/variables';
import type { Builder, BuildEntry } from '../model/world';
import { envLines } from '../facts/generator-inputs';
import { SUBSTITUTE_OPT_OUT } from '../facts/kustomize-config';
import { documentOccurrences, rawOccurrences, SourceOccurrence } from './scalars';

export interface FluxFileContext {
  /** Everything that builds the file, in every world, with the role the file plays. */
  entries: readonly BuildEntry[];
  strict: boolean;
  mode: SubstitutionMode;
}

const NO_VARIABLES: VarSet = { defined: new Map(), unknown: [], outside: [], sources: [], substitutes: true };

/** The builders of the entries with one of `roles` (once each). */
export function buildersIn(flux: FluxFileContext, roles: ReadonlyArray<BuildEntry['role']>, accept: (entry: BuildEntry) => boolean = () => true): Builder[] {
  const out: Builder[] = [];
  for (const entry of flux.entries) if (roles.includes(entry.role) && accept(entry) && !out.includes(entry.builder)) out.push(entry.builder);
  return out;
}

/** Of some builders, those whose postBuild substitutes the text, and those that only build it. */
export function substitutionRoles(builders: Builder[], mode: SubstitutionMode): { substituting: Builder[]; plain: Builder[] } {
  if (mode === 'never') return { substituting: [], plain: [] };
  const substituting = builders.filter((builder) => builder.vars?.substitutes);
  const plain = builders.filter((builder) => !builder.vars?.substitutes);
  if (mode === 'always' && substituting.length === 0) {
    const assumed = { name: '(flux.substitution: always)', file: '', span: [0, 0] } as unknown as Builder['kustomization'];
    const world = { index: 0, label: '', how: 'contract', root: assumed, source: { kind: 'GitRepository', name: '', namespace: null, url: null, folder: null }, count: 1 } as const;
    return { substituting: [{ kustomization: assumed, postBuild: null, vars: NO_VARIABLES, world }], plain: [] };
  }
  return { substituting, plain };
}

export function optsOut(parsed: ParsedDocument): boolean {
  const { doc } = parsed;
  return getString(doc, doc.contents, 'metadata', 'labels', SUBSTITUTE_OPT_OUT) === 'disabled' || getString(doc, doc.contents, 'metadata', 'annotations', SUBSTITUTE_OPT_OUT) === 'disabled';
}

/** Text that Flux substitutes, with the Kustomizations that substitute it (or only build it). */
export interface SubstitutedRegion {
  occurrences: SourceOccurrence[];
  substituting: Builder[];
  plain: Builder[];
  /** Fixes offered on every finding of the region (opting a generator out, in its kustomization file). */
  fixes?: Fix[];
}

/**
 * The regions of one YAML document: a resource or patch whole, a kustomization file's inline text.
 * With `kubelet`, a document Flux does not substitute (nothing builds it with postBuild, or it opts
 * out) is a region too, without Kustomizations: the kubelet still turns its containers' `$$` into `$`.
 */
export function documentRegions(parsed: ParsedDocument, flux: FluxFileContext | undefined, kubelet = false): SubstitutedRegion[] {
  const regions: SubstitutedRegion[] = [];
  const text = parsed.source.slice(parsed.base, parsed.end);
  if (!text.includes('$')) return regions;
  let whole = false;
  if (flux && !optsOut(parsed)) {
    const resource = substitutionRoles(buildersIn(flux, ['resource', 'patch']), flux.mode);
    whole = resource.substituting.length > 0 || resource.plain.length > 0;
    if (whole) regions.push({ occurrences: documentOccurrences(parsed), ...resource });
    const inline = substitutionRoles(buildersIn(flux, ['inline']), flux.mode === 'always' ? 'auto' : flux.mode);
    if (inline.substituting.length > 0) regions.push({ occurrences: inlineOccurrences(parsed), substituting: inline.substituting, plain: [] });
  }
  if (kubelet && !whole && text.includes('$$')) regions.push({ occurrences: documentOccurrences(parsed), substituting: [], plain: [] });
  return regions;
}

/** The regions of a file a configMapGenerator reads: its whole text (`files:`), the values of its lines (`envs:`). */
export function generatorRegions(text: string, flux: FluxFileContext): SubstitutedRegion[] {
  const regions: SubstitutedRegion[] = [];
  if (!text.includes('$')) return regions;
  for (const kind of ['file', 'env'] as const) {
    const reads = (entry: BuildEntry) => entry.generator!.generator.substituted && entry.generator!.input.kind === kind;
    const roles = substitutionRoles(buildersIn(flux, ['generator'], reads), flux.mode === 'always' ? 'auto' : flux.mode);
    if (roles.substituting.length === 0 && roles.plain.length === 0) continue;
    const keys = flux.entries.filter((entry) => entry.role === 'generator' && reads(entry)).map((entry) => entry.generator!.input.key ?? '');
    const occurrences = kind === 'file' ? rawOccurrences(text, 0, isShellScript(keys, text)) : envLines(text).flatMap((line) => rawOccurrences(line.value, line.valueStart, false));
    const entries = flux.entries.filter((entry) => entry.role === 'generator' && reads(entry));
    regions.push({ occurrences, ...roles, fixes: roles.substituting.length === 0 || meantForFlux(occurrences, roles.substituting) ? [] : optOutFixes(entries) });
  }
  return regions;
}

/** Whether some `${NAME}` of the text names a variable a substituting Kustomization defines: then the text is written for Flux. */
function meantForFlux(occurrences: SourceOccurrence[], substituting: Builder[]): boolean {
  return occurrences.some(({ occurrence }) => occurrence.kind === 'expression' && occurrence.name !== null && substituting.some((builder) => builder.vars?.defined.has(occurrence.name!)));
}

/** Opting each generator that reads the file out of substitution: one edit in its kustomization file, comments kept. */
function optOutFixes(entries: BuildEntry[]): Fix[] {
  const fixes: Fix[] = [];
  for (const entry of entries) {
    const { config, generator } = entry.generator!;
    if (!generator.optOut || fixes.some((fix) => fix.edits[0].file === config.file && fix.title.includes(`"${generator.name}"`))) continue;
    fixes.push({ title: `Turn off Flux substitution for configMapGenerator "${generator.name}" (nothing in this file is meant for Flux)`, edits: [{ file: config.file, ...generator.optOut }] });
  }
  return fixes;
}

const SCRIPT_NAME = /\.(sh|bash|zsh|ksh)$/;

/** A generator input is a script when its ConfigMap key (or file name) says so, or its text starts with `#!`. */
function isShellScript(keys: string[], text: string): boolean {
  return text.startsWith('#!') || keys.some((key) => SCRIPT_NAME.test(key));
}

/**
 * The text of a kustomization file that ends up in what it builds: inline
 * patches (`patches[].patch`, `patchesJson6902[].patch`, inline
 * `patchesStrategicMerge` strings) and the literals of ConfigMap generators
 * that do not opt out.
 */
function inlineOccurrences(parsed: ParsedDocument): SourceOccurrence[] {
  const { doc } = parsed;
  const root = asMap(doc, doc.contents);
  if (!root) return [];
  const scalars: unknown[] = [];
  for (const key of ['patches', 'patchesJson6902']) for (const item of asSeq(doc, findPair(root, key)?.value)?.items ?? []) scalars.push(findPair(asMap(doc, item), 'patch')?.value);
  for (const item of asSeq(doc, findPair(root, 'patchesStrategicMerge')?.value)?.items ?? []) if (isScalar(item) && String(item.value).includes('\n')) scalars.push(item);
  const global = findPair(root, 'generatorOptions')?.value;
  for (const item of asSeq(doc, findPair(root, 'configMapGenerator')?.value)?.items ?? []) {
    const generator = asMap(doc, item);
    const own = findPair(generator, 'options')?.value;
    const disabled = ['labels', 'annotations'].some((field) => (getString(doc, own, field, SUBSTITUTE_OPT_OUT) ?? getString(doc, global, field, SUBSTITUTE_OPT_OUT)) === 'disabled');
    if (!disabled) scalars.push(...(asSeq(doc, findPair(generator, 'literals')?.value)?.items ?? []));
  }
  return documentOccurrences(parsed, new Set(scalars.filter((node) => node !== undefined)));
}
