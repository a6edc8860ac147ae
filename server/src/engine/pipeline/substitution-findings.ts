// Runs the Flux substitution rules over the regions of one file that Flux
// substitutes (flux/substitution/regions.ts says where they are): every rule
// over every occurrence, or, where nothing substitutes, only the rules of
// text no substitution unescapes (a needless `$$`, and a `$$` the kubelet
// alone turns into `$`).
import type { Finding, Fix, RuleMeta } from '../base/types';
import { documentRegions, generatorRegions, type FluxFileContext, type SubstitutedRegion } from '../flux/substitution/regions';
import { NOT_SUBSTITUTED_CHECKS, SUBSTITUTED_CHECKS } from '../rules/registry';
import type { SubstitutionContext } from '../rules/rule';
import { deliverTraced, layersOf, type TracedText } from '../flux/substitution/layers';
import type { SourceOccurrence } from '../flux/substitution/scalars';
import type { ParsedDocument } from '../yaml/documents';
import type { OffsetEdit } from '../yaml/edit';
import type { Builder } from '../flux/model/world';

type MakeFinding = (meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], severity?: Finding['severity']) => Finding;

type MakeFix = (title: string, edits: OffsetEdit[], preferred?: boolean) => Fix;

/** Findings in one YAML document; `kubelet`: also where Flux does not substitute it (the kubelet's rule). */
export function documentSubstitutionFindings(parsed: ParsedDocument, flux: FluxFileContext | undefined, kubelet: boolean, finding: MakeFinding, fix: MakeFix): Finding[] {
  return documentRegions(parsed, flux, kubelet).flatMap((region) => runRules(region, flux, parsed.source, finding, fix));
}

/** Findings in the bytes of a file that a configMapGenerator reads. */
export function generatorSubstitutionFindings(text: string, flux: FluxFileContext, finding: MakeFinding, fix: MakeFix): Finding[] {
  return generatorRegions(text, flux).flatMap((region) => runRules(region, flux, text, finding, fix));
}

function runRules(region: SubstitutedRegion, flux: FluxFileContext | undefined, text: string, finding: MakeFinding, fix: MakeFix): Finding[] {
  const { occurrences } = region;
  const substituted = region.substituting.length > 0;
  const checks = substituted ? SUBSTITUTED_CHECKS : NOT_SUBSTITUTED_CHECKS;
  const findings: Finding[] = [];
  const context: SubstitutionContext = {
    substituting: region.substituting,
    plain: region.plain,
    optedOut: region.optedOut ?? [],
    ...(region.dashboard ? { dashboard: region.dashboard } : {}),
    strictness: { strict: flux?.strict ?? false, strictFrom: flux?.strictFrom ?? 'default' },
    occurrences,
    index: 0,
    text,
    finding,
    fix,
    layersOf: (occurrence) => layersOf(occurrence, substituted),
    delivered: lastDelivery(substituted),
    definedElsewhere: (name) => definedElsewhere(name, region, flux),
  };
  occurrences.forEach((occurrence, index) => {
    context.index = index;
    for (const check of checks) findings.push(...check(occurrence, context));
  });
  if (!region.fixes || region.fixes.length === 0) return findings;
  return findings.map((found) => {
    const own = found.fixes ?? [];
    // A rule may offer the region's fix itself (a dashboard's opt-out, preferred there): once is enough.
    const offered = region.fixes!.filter((fix) => !own.some((mine) => mine.title === fix.title));
    // Where no in-file fix is preferred (text no shell reads), opting the generator out is the fix.
    const extra = own.some((fix) => fix.preferred) ? offered : offered.map((fix, i) => (i === 0 ? { ...fix, preferred: true } : fix));
    return { ...found, fixes: [...own, ...extra] };
  });
}

/** The Kustomizations of the worlds that build the region without substituting it whose postBuild defines `name`. */
function definedElsewhere(name: string, region: SubstitutedRegion, flux: FluxFileContext | undefined): Builder[] {
  const out: Builder[] = [];
  const worlds = new Set(region.plain.filter((builder) => !region.optedOut?.includes(builder)).map((builder) => builder.world));
  for (const world of worlds) for (const builder of flux?.definers?.get(world.index)?.get(name) ?? []) if (!out.includes(builder)) out.push(builder);
  return out;
}

/** What a scalar delivers, computed once for all the occurrences of the scalar (they come one after another). */
function lastDelivery(substituted: boolean): (occurrence: SourceOccurrence) => TracedText {
  let last: { value: string; kubelet: SourceOccurrence['kubelet']; traced: TracedText } | null = null;
  return (occurrence) => {
    if (last === null || last.value !== occurrence.value || last.kubelet !== occurrence.kubelet) {
      last = { value: occurrence.value, kubelet: occurrence.kubelet, traced: deliverTraced(occurrence.value, layersOf(occurrence, substituted)) };
    }
    return last.traced;
  };
}
