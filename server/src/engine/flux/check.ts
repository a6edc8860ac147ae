// Runs the Flux substitution rules over one file: only where a Flux
// Kustomization substitutes it (or, for needless escapes, builds it without
// substituting), only in scalars, never in comments, and never in a resource
// that opts out with `kustomize.toolkit.fluxcd.io/substitute: disabled`.
import type { SubstitutionMode } from '../contract/model';
import { fluxSubstitutionBareDollar } from '../rules/flux-substitution-bare-dollar';
import { fluxSubstitutionDefault } from '../rules/flux-substitution-default';
import { fluxSubstitutionNeedlessEscape } from '../rules/flux-substitution-needless-escape';
import { fluxSubstitutionPid } from '../rules/flux-substitution-pid';
import { fluxSubstitutionSyntax } from '../rules/flux-substitution-syntax';
import { fluxSubstitutionUndefined } from '../rules/flux-substitution-undefined';
import type { SubstitutionContext, SubstitutionRule } from '../rules/substitution-rule';
import type { Finding, Fix, RuleMeta } from '../types';
import { getString, ParsedDocument } from '../yaml-docs';
import type { OffsetEdit } from '../yaml-edit';
import type { Builder, VarSet } from './graph';
import { documentOccurrences } from './scalars';

export const SUBSTITUTION_RULES: readonly SubstitutionRule[] = [
  fluxSubstitutionSyntax,
  fluxSubstitutionUndefined,
  fluxSubstitutionDefault,
  fluxSubstitutionPid,
  fluxSubstitutionBareDollar,
];

export interface FluxFileContext {
  builders: Builder[];
  strict: boolean;
  mode: SubstitutionMode;
}

const OPT_OUT = 'kustomize.toolkit.fluxcd.io/substitute';
const NO_VARIABLES: VarSet = { defined: new Map(), unknownSources: [], substitutes: true };

/** The builders that substitute the file, and those that only build it. */
export function substitutionRoles(flux: FluxFileContext): { substituting: Builder[]; plain: Builder[] } {
  if (flux.mode === 'never') return { substituting: [], plain: [] };
  const substituting = flux.builders.filter((builder) => builder.vars?.substitutes);
  const plain = flux.builders.filter((builder) => !builder.vars?.substitutes);
  if (flux.mode === 'always' && substituting.length === 0) {
    const assumed = { name: '(flux.substitution: always)', file: '', span: [0, 0] } as unknown as Builder['kustomization'];
    return { substituting: [{ kustomization: assumed, postBuild: null, vars: NO_VARIABLES }], plain: [] };
  }
  return { substituting, plain };
}

export function optsOut(parsed: ParsedDocument): boolean {
  const { doc } = parsed;
  return getString(doc, doc.contents, 'metadata', 'labels', OPT_OUT) === 'disabled' || getString(doc, doc.contents, 'metadata', 'annotations', OPT_OUT) === 'disabled';
}

export function substitutionFindings(
  parsed: ParsedDocument,
  flux: FluxFileContext,
  finding: (meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], severity?: Finding['severity']) => Finding,
  fix: (title: string, edits: OffsetEdit[], preferred?: boolean) => Fix,
): Finding[] {
  const { substituting, plain } = substitutionRoles(flux);
  const rules = substituting.length > 0 ? SUBSTITUTION_RULES : plain.length > 0 ? [fluxSubstitutionNeedlessEscape] : [];
  if (rules.length === 0 || !parsed.source.slice(parsed.base, parsed.end).includes('$') || optsOut(parsed)) return [];
  const occurrences = documentOccurrences(parsed);
  const findings: Finding[] = [];
  const context: SubstitutionContext = { substituting, plain, strict: flux.strict, occurrences, index: 0, text: parsed.source, finding, fix };
  occurrences.forEach((occurrence, index) => {
    context.index = index;
    for (const rule of rules) findings.push(...rule.check(occurrence, context));
  });
  return findings;
}
