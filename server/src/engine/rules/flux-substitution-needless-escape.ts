/**
 * flux-substitution-needless-escape (warning): in text a shell runs, a `$$` before a letter, `_`,
 * `{` or `(` in a resource that Flux Kustomizations build without substituting it (no postBuild,
 * or the substitution opt-out `kustomize.toolkit.fluxcd.io/substitute: disabled` as kustomize's build
 * writes it: the resource's own metadata, a patch, commonAnnotations, generator options).
 * A `$$` before a space or the end (a real PID) is left alone.
 *
 * Why it matters: nothing unescapes it, so where the author meant `$${VAR}`, `$$(cmd)` or `$$VAR`
 * the shell sees `$$` (its PID) followed by text.
 *
 * Example:
 *   command: ["sh", "-c", "echo $${HOME}"]   # ← no postBuild here: the shell sees $${HOME}
 *
 * Fix: write a single `$`.
 */
import { kustomizationNames } from './support/substitution';
import { SUBSTITUTE_OPT_OUT } from '../flux/facts/kustomize-config';
import type { Rule } from './rule';

const MEANT_AS_ESCAPE = /^[\p{L}_{(]$/u;

export const fluxSubstitutionNeedlessEscape: Rule = {
  meta: { id: 'flux-substitution-needless-escape', defaultSeverity: 'warning', summary: 'A $$ in a resource no substitution unescapes: the shell sees its PID.' },
  check: {
    notSubstituted(occurrence, context) {
      const escape = occurrence.occurrence;
      if (escape.kind !== 'escape' || !MEANT_AS_ESCAPE.test(escape.next)) return [];
      if (!occurrence.shell) return []; // only a shell reads $$ as its PID
      const previous = context.occurrences[context.index - 1];
      if (previous && previous.occurrence.kind === 'escape' && previous.span[1] === occurrence.span[0]) return [];
      const optedOut = context.optedOut ?? [];
      const how = context.plain.every((builder) => optedOut.includes(builder)) ? `builds this with substitution turned off (${SUBSTITUTE_OPT_OUT}: disabled)` : 'builds this file without postBuild';
      const message = `Kustomization ${kustomizationNames(context.plain)} ${how}, so nothing turns $$ into $: the shell sees $$ (its PID) followed by "${escape.next}". Write a single $.`;
      return [
        context.finding(fluxSubstitutionNeedlessEscape.meta, occurrence.span, message, [
          context.fix('Write a single $ (no substitution unescapes it here)', [{ start: occurrence.span[0], end: occurrence.span[0] + 1, newText: '' }], true),
        ]),
      ];
    },
  },
};
