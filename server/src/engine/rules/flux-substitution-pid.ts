/**
 * flux-substitution-pid (warning): in substituted text a shell runs, a run of `$` meant as the
 * shell's PID (or a PL/pgSQL `$$` quote) of which the layers it passes leave an odd number: the
 * last `$` reaches the shell alone. The run is followed by the end of the text or by a character
 * that starts nothing in shell (not a letter, digit, `_`, `{`, `(`, one of `? # @ * ! -`, nor `'`:
 * `$$'\n'` is bash's ANSI-C quoting correctly escaped). Flux turns `$$` into `$`, and in a
 * container's command, args or env the kubelet does it again (k8s/kubelet-expansion.ts); a `$$` in
 * a shell comment is never read.
 *
 * Why it matters: the script gets `$` where it meant `$$`: `echo $ > /tmp/pid`, a PL/pgSQL
 * function body that no longer parses.
 *
 * Example:
 *   command: ["sh", "-c", "echo $$ > /tmp/pid"]   # ← under postBuild the shell gets `echo $ > /tmp/pid`
 *
 * Fix: the spelling the layers need: `$$$$` under Flux, `$$$$$$$$` under Flux and the kubelet (a
 * container's command, args or env).
 */
import type { Rule } from './rule';
import { loneDollar, loneDollarMessage } from './support/dollar-run';

export const fluxSubstitutionPid: Rule = {
  meta: { id: 'flux-substitution-pid', defaultSeverity: 'warning', summary: 'A $$ meant as the shell PID reaches the shell as a lone $.' },
  check: {
    substituted(occurrence, context) {
      const found = loneDollar(occurrence, context);
      if (!found) return [];
      const steps = found.run.layers.kubelet ? 'Flux turns $$ into $, and the kubelet does it again in a container command, args or env' : 'Flux turns $$ into a lone $';
      return [context.finding(fluxSubstitutionPid.meta, found.span, loneDollarMessage(steps, found, occurrence, context), found.fix ? [found.fix] : [])];
    },
  },
};
