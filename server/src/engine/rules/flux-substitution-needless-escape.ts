/**
 * flux-substitution-needless-escape: a `$$` in a resource that a Flux
 * Kustomization builds without postBuild, in text no later layer unescapes
 * either (not a container's command, args or env, where the kubelet turns
 * `$$` into `$`). Where the author meant `$${VAR}`, `$$(cmd)` or `$$VAR` the
 * shell sees `$$` (its PID) followed by text. A `$$` before a space or the
 * end (a real PID) is left alone. Fix: write `$`.
 */
import { FLUX_NEEDLESS_ESCAPE } from './catalogue';
import { kustomizationNames, SubstitutionRule } from './substitution-rule';
import { respellFix, runStartedBy, spelling } from './support/dollar-run';

const MEANT_AS_ESCAPE = /^[\p{L}_{(]$/u;

export const fluxSubstitutionNeedlessEscape: SubstitutionRule = {
  meta: FLUX_NEEDLESS_ESCAPE,
  check(occurrence, context) {
    if (!occurrence.shell || context.plain.length === 0) return []; // only a shell reads $$ as its PID
    const run = runStartedBy(occurrence, context);
    // Exactly `$$`, and both reach the shell: no layer unescapes it.
    if (!run || run.to - run.from !== 2 || !MEANT_AS_ESCAPE.test(run.next) || run.reaching !== 2) return [];
    const message = `Kustomization ${kustomizationNames(context.plain)} builds this file without postBuild, and the kubelet does not expand this text, so nothing turns $$ into $: the shell sees $$ (its PID) followed by "${run.next}". Write a single $.`;
    const written = spelling(occurrence, run, 1);
    const fix = written === null ? null : respellFix(occurrence, run, written, context, 'Write a single $ (no substitution unescapes it here)');
    return [context.finding(this.meta, occurrence.span, message, fix ? [fix] : [])];
  },
};
