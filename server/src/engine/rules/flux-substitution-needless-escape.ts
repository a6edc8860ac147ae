/**
 * flux-substitution-needless-escape: a `$$` in a resource that a Flux
 * Kustomization builds without postBuild, or with substitution turned off
 * for it (the opt-out, as kustomize's build writes it). Nothing unescapes it, so where the
 * author meant `$${VAR}`, `$$(cmd)` or `$$VAR` the shell sees `$$` (its PID)
 * followed by text. A `$$` before a space or the end (a real PID) is left
 * alone. Fix: write `$`.
 */
import { FLUX_NEEDLESS_ESCAPE } from './catalogue';
import { kustomizationNames, SubstitutionRule } from './substitution-rule';
import { SUBSTITUTE_OPT_OUT } from '../flux/facts/kustomize-config';

const MEANT_AS_ESCAPE = /^[\p{L}_{(]$/u;

export const fluxSubstitutionNeedlessEscape: SubstitutionRule = {
  meta: FLUX_NEEDLESS_ESCAPE,
  check(occurrence, context) {
    const escape = occurrence.occurrence;
    if (escape.kind !== 'escape' || !MEANT_AS_ESCAPE.test(escape.next)) return [];
    if (!occurrence.shell) return []; // only a shell reads $$ as its PID
    const previous = context.occurrences[context.index - 1];
    if (previous && previous.occurrence.kind === 'escape' && previous.span[1] === occurrence.span[0]) return [];
    const optedOut = context.optedOut ?? [];
    const how = context.plain.every((builder) => optedOut.includes(builder))
      ? `builds this with substitution turned off (${SUBSTITUTE_OPT_OUT}: disabled)`
      : 'builds this file without postBuild';
    const message = `Kustomization ${kustomizationNames(context.plain)} ${how}, so nothing turns $$ into $: the shell sees $$ (its PID) followed by "${escape.next}". Write a single $.`;
    return [
      context.finding(this.meta, occurrence.span, message, [
        context.fix('Write a single $ (no substitution unescapes it here)', [{ start: occurrence.span[0], end: occurrence.span[0] + 1, newText: '' }], true),
      ]),
    ];
  },
};
