/**
 * flux-substitution-default (warning): a default operator (`:-` `:=` `=` `:?` `:+`) on a name the
 * Kustomization does not define, in text a shell runs (a container's command or args, a `#!`
 * script); and any `:+` or `:?`, wherever it is. Elsewhere (a HelmRelease value, a component's
 * `${VOLSYNC_CAPACITY:=1Gi}`) a Flux default is the intended use; nor is a name an
 * out-of-repository `substituteFrom` object may define reported.
 *
 * Why it matters: Flux bakes the default in at build time and the shell never sees the variable;
 * and Flux gives `:+` and `:?` the meaning of `:-`, not bash's.
 *
 * Example:
 *   command: ["sh", "-c", "cd ${WORKDIR:-/tmp}"]   # ← Flux writes /tmp
 *
 * Fix: escape to `$${` if the shell should evaluate it.
 */
import { escapeFix, knowsItsNames, kustomizationNames, lookup } from './support/substitution';
import type { Rule } from './rule';

const NOT_BASH = new Set([':+', ':?']);

export const fluxSubstitutionDefault: Rule = {
  meta: { id: 'flux-substitution-default', defaultSeverity: 'warning', summary: 'A default operator Flux evaluates at build time, not the shell.' },
  check: {
    substituted(occurrence, context) {
      const expression = occurrence.occurrence;
      if (expression.kind !== 'expression' || !expression.hasDefault || expression.name === null) return [];
      const written = occurrence.value.slice(expression.start, expression.end);
      const { undefinedIn } = lookup(expression.name, context.substituting);
      const operator = expression.operator ?? '';
      let message: string;
      if (NOT_BASH.has(operator)) {
        message = `Flux reads ${operator} in ${written} as "the value if set, else the argument", not as bash does (${operator === ':+' ? 'bash gives the argument only when the variable is set' : 'bash fails when the variable is unset'}).`;
      } else if (occurrence.shell && undefinedIn.some(knowsItsNames)) {
        message = `${expression.name} is not defined by Kustomization ${kustomizationNames(undefinedIn.filter(knowsItsNames))}, so Flux replaces ${written} with its default at build time: the shell never sees the variable.`;
      } else return [];
      message += ` If the shell should evaluate it, write $${written}.`;
      const fix = escapeFix(context, occurrence, written);
      return [context.finding(fluxSubstitutionDefault.meta, occurrence.span, message, fix ? [fix] : [])];
    },
  },
};
