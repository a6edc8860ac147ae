/**
 * flux-substitution-bare-dollar (off by default): a lone `$` (not `$$`, not
 * `${`) in substituted text, for teams whose convention is to write every
 * shell `$` as `$$`. Flux passes it through unchanged. Fix: write `$$`.
 */
import { FLUX_BARE_DOLLAR } from './catalogue';
import { SubstitutionRule } from './substitution-rule';

export const fluxSubstitutionBareDollar: SubstitutionRule = {
  meta: FLUX_BARE_DOLLAR,
  check(occurrence, context) {
    if (occurrence.occurrence.kind !== 'bare-dollar' || !occurrence.shell) return [];
    const message = 'A lone $ in text Flux substitutes: the team convention is to write every shell $ as $$.';
    return [context.finding(this.meta, occurrence.span, message, [context.fix('Write $$', [{ start: occurrence.span[0], end: occurrence.span[0], newText: '$' }], true)])];
  },
};
