/**
 * flux-substitution-needless-escape (warning): in text a shell runs, a `$$` before a letter, `_`,
 * `{` or `(` in a resource that Flux Kustomizations build without substituting it (no postBuild),
 * in text no later layer unescapes either: not a container's command, args or env, where the
 * kubelet turns `$$` into `$` (so `$${mod}` there reaches the shell as `${mod}`). A `$$` before a
 * space or the end (a real PID) is left alone, and so is one in a shell comment.
 *
 * Why it matters: nothing unescapes it, so where the author meant `$${VAR}`, `$$(cmd)` or `$$VAR`
 * the shell sees `$$` (its PID) followed by text.
 *
 * Example:
 *   data:
 *     run.sh: |
 *       echo $${HOME}   # ← no postBuild, a mounted script: the shell sees $${HOME}
 *
 * Fix: write a single `$`.
 */
import { kustomizationNames } from './support/substitution';
import { respellFix, runStartedBy, shellReads, spelling } from './support/dollar-run';
import type { Rule } from './rule';

const MEANT_AS_ESCAPE = /^[\p{L}_{(]$/u;

export const fluxSubstitutionNeedlessEscape: Rule = {
  meta: { id: 'flux-substitution-needless-escape', defaultSeverity: 'warning', summary: 'A $$ in a resource no substitution unescapes: the shell sees its PID.' },
  check: {
    notSubstituted(occurrence, context) {
      if (!shellReads(occurrence) || context.plain.length === 0) return []; // only a shell reads $$ as its PID
      const run = runStartedBy(occurrence, context);
      // Exactly `$$`, and both reach the shell: no layer unescapes it.
      if (!run || run.to - run.from !== 2 || !MEANT_AS_ESCAPE.test(run.next) || run.reaching !== 2) return [];
      const message = `Kustomization ${kustomizationNames(context.plain)} builds this file without postBuild, and the kubelet does not expand this text, so nothing turns $$ into $: the shell sees $$ (its PID) followed by "${run.next}". Write a single $.`;
      const written = spelling(occurrence, run, 1);
      const fix = written === null ? null : respellFix(occurrence, run, written, context, 'Write a single $ (no substitution unescapes it here)');
      return [context.finding(fluxSubstitutionNeedlessEscape.meta, occurrence.span, message, fix ? [fix] : [])];
    },
  },
};
