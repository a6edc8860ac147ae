// Where Flux substitutes the text of one file, and with which Kustomizations:
// the scalars of a resource or patch (never its comments), the
// inline patches and generator literals of a kustomization file, the bytes of
// a file a configMapGenerator reads (the values of an env file). Never in a
// resource that opts out with `kustomize.toolkit.fluxcd.io/substitute:
// disabled`, nor in what a generator that opts out makes.
import type { SubstitutionMode } from '../../contract/model';
import type { Fix } from '../../base/types';
import { asMap, asSeq, findPair, getString, isScalar, nodeSpan, ParsedDocument } from '../../yaml/documents';
import type { VarSet } from '../model/variables';
import type { StrictSetting } from '../model/flux-version';
import type { Builder, BuildEntry } from '../model/world';
import { envLines } from '../facts/generator-inputs';
import type { Generator } from '../facts/model';
import { SUBSTITUTE_OPT_OUT } from '../facts/kustomize-config';
import { documentOccurrences, rawOccurrences, SourceOccurrence } from './scalars';
import { dashboardResource, isGrafanaDashboard, type DashboardText } from './dashboards';

export interface FluxFileContext {
  /** Everything that builds the file, in every world, with the role the file plays. */
  entries: readonly BuildEntry[];
  /** The contract's flux.strict, and whether it writes it (flux-version.ts: strictIn decides per world). */
  strict: boolean;
  strictFrom: StrictSetting['strictFrom'];
  mode: SubstitutionMode;
  /**
   * By world index, for the worlds where a Kustomization builds the file without substituting it: the
   * live Kustomizations whose postBuild defines each name (the siblings such a build could follow).
   * Data, not a function: the context crosses to audit workers by structured clone.
   */
  definers?: ReadonlyMap<number, ReadonlyMap<string, readonly Builder[]>>;
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
    const world = { index: 0, label: '', how: 'contract', root: assumed, source: { kind: 'GitRepository', name: '', namespace: null, url: null, folder: null }, count: 1, flux: null } as const;
    return { substituting: [{ kustomization: assumed, postBuild: null, vars: NO_VARIABLES, world }], plain: [] };
  }
  return { substituting, plain };
}

/** Whether a document opts out by its own metadata (what kustomize's verdict falls back to). */
export function optsOut(parsed: ParsedDocument): boolean {
  const { doc } = parsed;
  return getString(doc, doc.contents, 'metadata', 'labels', SUBSTITUTE_OPT_OUT) === 'disabled' || getString(doc, doc.contents, 'metadata', 'annotations', SUBSTITUTE_OPT_OUT) === 'disabled';
}

export type OutputVerdict = 'substituted' | 'disabled' | 'absent';

/**
 * How one build entry outputs a document of its file: kustomize's verdict
 * (the opt-out as the build writes it: patches, commonAnnotations, components…)
 * where the entry carries one, else the document's own metadata. A patch file's
 * text goes where its targets go; its own metadata is what the walk can tell.
 */
export function documentVerdict(entry: BuildEntry, parsed: ParsedDocument): OutputVerdict {
  const inside = entry.role === 'resource' ? (entry.optOut ?? []).filter(({ span }) => span[0] >= parsed.base && span[1] <= parsed.end) : [];
  if (inside.length === 0) return optsOut(parsed) ? 'disabled' : 'substituted';
  if (inside.some(({ verdict }) => verdict === 'substituted')) return 'substituted';
  return inside.some(({ verdict }) => verdict === 'disabled') ? 'disabled' : 'absent';
}

/** Whether no build substitutes the document (each opts it out, or does not output it); with no build, its own metadata. */
export function optedOutEverywhere(parsed: ParsedDocument, flux: FluxFileContext | undefined): boolean {
  const entries = flux?.entries.filter((entry) => entry.role === 'resource' || entry.role === 'patch') ?? [];
  if (entries.length === 0) return optsOut(parsed);
  return entries.every((entry) => documentVerdict(entry, parsed) !== 'substituted');
}

/** How a generator's ConfigMap comes out of the entry's build: kustomize's verdict, else the generator's own options. */
function generatorVerdict(entry: BuildEntry, generator: Generator): OutputVerdict {
  const answer = entry.optOut?.find(({ span }) => span[0] === generator.span[0]);
  return answer ? answer.verdict : generator.substituted ? 'substituted' : 'disabled';
}

/** Text that Flux substitutes, with the Kustomizations that substitute it (or only build it). */
export interface SubstitutedRegion {
  occurrences: SourceOccurrence[];
  substituting: Builder[];
  plain: Builder[];
  /** Of `plain`, those that build the text with the substitution opt-out (kustomize.toolkit.fluxcd.io/substitute: disabled). */
  optedOut?: Builder[];
  /** Fixes offered on every finding of the region (opting a generator out, in its kustomization file). */
  fixes?: Fix[];
  /** A Grafana dashboard that Flux substitutes: its `${…}` are Grafana's (dashboards.ts). */
  dashboard?: DashboardText;
}

/** The builders of entries, once each, by how each outputs the text: those that substitute it and those that opt it out. */
function byVerdict(entries: BuildEntry[], verdictOf: (entry: BuildEntry) => OutputVerdict): { substituted: Builder[]; disabled: Builder[] } {
  const substituted: Builder[] = [];
  const disabled: Builder[] = [];
  for (const entry of entries) {
    const verdict = verdictOf(entry);
    if (verdict === 'substituted' && !substituted.includes(entry.builder)) substituted.push(entry.builder);
  }
  for (const entry of entries) if (verdictOf(entry) === 'disabled' && !substituted.includes(entry.builder) && !disabled.includes(entry.builder)) disabled.push(entry.builder);
  return { substituted, disabled };
}

/** The region of text some builds substitute and others build opted out (those count as builds without postBuild). */
function regionOf(occurrences: SourceOccurrence[], builds: { substituted: Builder[]; disabled: Builder[] }, mode: SubstitutionMode, fixes?: Fix[]): SubstitutedRegion | null {
  const roles = substitutionRoles(builds.substituted, mode);
  const optedOut = mode === 'never' ? [] : builds.disabled;
  if (roles.substituting.length === 0 && roles.plain.length === 0 && optedOut.length === 0) return null;
  const region: SubstitutedRegion = { occurrences, substituting: roles.substituting, plain: [...roles.plain, ...optedOut] };
  if (optedOut.length > 0) region.optedOut = optedOut;
  if (fixes) region.fixes = fixes;
  return region;
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
  if (flux) {
    const entries = flux.entries.filter((entry) => entry.role === 'resource' || entry.role === 'patch');
    // Without a build (the contract's `flux.substitution: always`), the document's own metadata decides.
    if (entries.length > 0 || !optsOut(parsed)) {
      const region = regionOf(
        documentOccurrences(parsed),
        byVerdict(entries, (entry) => documentVerdict(entry, parsed)),
        flux.mode,
      );
      const dashboard = region && region.substituting.length > 0 ? dashboardResource(parsed, !meantForFlux(region.occurrences, region.substituting)) : null;
      if (region && dashboard) region.dashboard = dashboard;
      if (region) regions.push(region);
      whole = region !== null;
    }
    const inlineEntries = flux.entries.filter((entry) => entry.role === 'inline');
    const inline = substitutionRoles(buildersIn(flux, ['inline']), flux.mode === 'always' ? 'auto' : flux.mode);
    if (inline.substituting.length > 0) regions.push({ occurrences: inlineOccurrences(parsed, inlineEntries), substituting: inline.substituting, plain: [] });
  }
  if (kubelet && !whole && text.includes('$$')) regions.push({ occurrences: documentOccurrences(parsed), substituting: [], plain: [] });
  return regions;
}

/** The regions of a file a configMapGenerator reads: its whole text (`files:`), the values of its lines (`envs:`). */
export function generatorRegions(text: string, flux: FluxFileContext): SubstitutedRegion[] {
  const regions: SubstitutedRegion[] = [];
  if (!text.includes('$')) return regions;
  for (const kind of ['file', 'env'] as const) {
    // A Secret's data is base64: Flux's substitution never meets its `$`.
    const entries = flux.entries.filter((entry) => entry.role === 'generator' && entry.generator!.generator.kind === 'ConfigMap' && entry.generator!.input.kind === kind);
    if (entries.length === 0) continue;
    const keys = entries.map((entry) => entry.generator!.input.key ?? '');
    const occurrences = kind === 'file' ? rawOccurrences(text, 0, isShellScript(keys, text)) : envLines(text).flatMap((line) => rawOccurrences(line.value, line.valueStart, false));
    const builds = byVerdict(entries, (entry) => generatorVerdict(entry, entry.generator!.generator));
    const substitutingEntries = entries.filter((entry) => generatorVerdict(entry, entry.generator!.generator) === 'substituted');
    const mode = flux.mode === 'always' ? 'auto' : flux.mode;
    const substituting = substitutionRoles(builds.substituted, mode).substituting;
    const optOut = substituting.length === 0 || meantForFlux(occurrences, substituting) ? [] : optOutFixes(substitutingEntries);
    const region = regionOf(occurrences, builds, mode, optOut);
    if (region && substituting.length > 0 && isGrafanaDashboard(text)) {
      region.dashboard = { what: `configMapGenerator "${substitutingEntries[0].generator!.generator.name}"`, ...(optOut.length > 0 ? { fixes: optOut } : {}) };
    }
    if (region) regions.push(region);
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
 * whose ConfigMap some build outputs substituted.
 */
function inlineOccurrences(parsed: ParsedDocument, entries: BuildEntry[]): SourceOccurrence[] {
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
    const start = nodeSpan(parsed, item)?.[0];
    const verdicts = entries.map((entry) => entry.optOut?.find(({ span }) => span[0] === start)?.verdict);
    // Where no build gives kustomize's verdict, the generator's own options (and generatorOptions) decide.
    const disabled = verdicts.some((verdict) => verdict !== undefined)
      ? verdicts.every((verdict) => verdict !== undefined && verdict !== 'substituted')
      : ['labels', 'annotations'].some((field) => (getString(doc, own, field, SUBSTITUTE_OPT_OUT) ?? getString(doc, global, field, SUBSTITUTE_OPT_OUT)) === 'disabled');
    if (!disabled) scalars.push(...(asSeq(doc, findPair(generator, 'literals')?.value)?.items ?? []));
  }
  return documentOccurrences(parsed, new Set(scalars.filter((node) => node !== undefined)));
}
