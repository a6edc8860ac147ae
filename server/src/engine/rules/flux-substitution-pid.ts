/**
 * flux-substitution-pid: a `$$` in substituted text that is meant as the
 * shell's PID (or a PL/pgSQL `$$` quote) but reaches the shell as a lone `$`.
 * The run of `$` is followed by the end of the text or by a character that
 * starts nothing in shell (not a letter, digit, `_`, `{`, `(`, one of
 * `? # @ * ! -`, nor `'`: `$'\n'` is bash's ANSI-C quoting, so `$$'\n'` is a
 * correct escape of it), and the layers it passes leave an odd number of `$`:
 * Flux turns `$$` into `$`, and in a container's command, args or env the
 * kubelet does it again. Fix: the spelling the layers need (`$$$$` under
 * Flux, `$$$$$$$$` under Flux and the kubelet).
 */
import { FLUX_PID } from './catalogue';
import { SubstitutionRule } from './substitution-rule';
import { loneDollar, loneDollarMessage } from './support/dollar-run';

export const fluxSubstitutionPid: SubstitutionRule = {
  meta: FLUX_PID,
  check(occurrence, context) {
    const found = loneDollar(occurrence, context);
    if (!found) return [];
    const steps = found.run.layers.kubelet ? 'Flux turns $$ into $, and the kubelet does it again in a container command, args or env' : 'Flux turns $$ into a lone $';
    return [context.finding(this.meta, found.span, loneDollarMessage(steps, found, occurrence, context), found.fix ? [found.fix] : [])];
  },
};
