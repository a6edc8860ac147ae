/**
 * flux-substitution-needless-escape (warning): in text a shell runs, a `$$` before a letter, `_`,
 * `{` or `(` in a resource that Flux Kustomizations build without substituting it (no postBuild,
 * or the substitution opt-out `kustomize.toolkit.fluxcd.io/substitute: disabled` as kustomize's build
 * writes it: the resource's own metadata, a patch, commonAnnotations, generator options), in text no
 * later layer unescapes either: not a container's command, args or env, where the kubelet turns `$$`
 * into `$` (so `$${mod}` there reaches the shell as `${mod}`). A `$$` before a space or the end (a
 * real PID) is left alone, and so is one in a shell comment. A Grafana dashboard's JSON is read the
 * same way: `$${DS_PROMETHEUS}` there reaches Grafana as `$` before the variable (no layer unescapes
 * it), where the author meant `${DS_PROMETHEUS}`.
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
import { isGrafanaDashboard } from './support/dashboard';
import { SUBSTITUTE_OPT_OUT } from '../flux/facts/kustomize-config';
import type { Rule } from './rule';

const MEANT_AS_ESCAPE = /^[\p{L}_{(]$/u;

export const fluxSubstitutionNeedlessEscape: Rule = {
  meta: { id: 'flux-substitution-needless-escape', defaultSeverity: 'warning', summary: 'A $$ in a resource no substitution unescapes: the shell sees its PID.' },
  check: {
    notSubstituted(occurrence, context) {
      if (occurrence.occurrence.kind !== 'escape' || context.plain.length === 0) return [];
      // Only a shell reads $$ as its PID; a dashboard's `$${VAR}` reaches Grafana as `$` and the variable.
      const reader = shellReads(occurrence) ? 'shell' : !occurrence.shell && occurrence.occurrence.next === '{' && isGrafanaDashboard(occurrence.value) ? 'dashboard' : null;
      if (reader === null) return [];
      const run = runStartedBy(occurrence, context);
      // Exactly `$$`, and both reach the consumer: no layer unescapes it.
      if (!run || run.to - run.from !== 2 || !MEANT_AS_ESCAPE.test(run.next) || run.reaching !== 2) return [];
      const optedOut = context.optedOut ?? [];
      const how = context.plain.every((builder) => optedOut.includes(builder)) ? `builds this with substitution turned off (${SUBSTITUTE_OPT_OUT}: disabled)` : 'builds this file without postBuild';
      const builds = `Kustomization ${kustomizationNames(context.plain)} ${how}`;
      const message =
        reader === 'shell'
          ? `${builds}, and the kubelet does not expand this text, so nothing turns $$ into $: the shell sees $$ (its PID) followed by "${run.next}". Write a single $.`
          : `${builds}, so nothing turns $$ into $: Grafana receives $\${…} in this dashboard, a stray $ before its variable (an input the grafana-operator replaces becomes "$" and the value). Write a single $.`;
      const written = spelling(occurrence, run, 1);
      const fix = written === null ? null : respellFix(occurrence, run, written, context, 'Write a single $ (no substitution unescapes it here)');
      return [context.finding(fluxSubstitutionNeedlessEscape.meta, occurrence.span, message, fix ? [fix] : [])];
    },
  },
};
