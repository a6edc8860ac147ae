/**
 * flux-substitution-bare-dollar (off by default): a lone `$` (not `$$`, not `${`) in substituted
 * text a shell runs, for teams whose convention is to write every shell `$` as `$$`.
 *
 * Why it matters: Flux passes it through unchanged today, but the same `$` followed by `{` one
 * day becomes a substitution; the convention keeps shell text and Flux text apart.
 *
 * Example:
 *   command: ["sh", "-c", "echo $HOME"]   # ← the convention writes $$HOME
 *
 * Fix: write `$$`.
 */
import type { Rule } from './rule';

export const fluxSubstitutionBareDollar: Rule = {
  meta: { id: 'flux-substitution-bare-dollar', defaultSeverity: 'off', summary: 'A lone $ in substituted text (for teams that write every shell $ as $$).' },
  check: {
    substituted(occurrence, context) {
      if (occurrence.occurrence.kind !== 'bare-dollar' || !occurrence.shell) return [];
      const message = 'A lone $ in text Flux substitutes: the team convention is to write every shell $ as $$.';
      return [context.finding(fluxSubstitutionBareDollar.meta, occurrence.span, message, [context.fix('Write $$', [{ start: occurrence.span[0], end: occurrence.span[0], newText: '$' }], true)])];
    },
  },
};
