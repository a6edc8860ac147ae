/**
 * flux-substitution-default: a default operator (`:-` `:=` `=` `:?` `:+`) on
 * a name the Kustomization does not define, in text a shell runs (a
 * container's command or args, a `#!` script): Flux bakes the default in at
 * build time and the shell never sees the variable. Elsewhere (a HelmRelease
 * value, a component's `${VOLSYNC_CAPACITY:=1Gi}`) a Flux default is the
 * intended use and is not reported; nor is a name an out-of-repository
 * `substituteFrom` object may define. Any `:+` or `:?` is reported wherever it
 * is: Flux gives them the meaning of `:-`, not bash's. Fix: escape to `$${`.
 */
import { FLUX_DEFAULT } from './catalogue';
import { escapeFix, knowsItsNames, kustomizationNames, lookup, SubstitutionRule } from './substitution-rule';

const NOT_BASH = new Set([':+', ':?']);

export const fluxSubstitutionDefault: SubstitutionRule = {
  meta: FLUX_DEFAULT,
  check(occurrence, context) {
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
    return [context.finding(this.meta, occurrence.span, message, fix ? [fix] : [])];
  },
};
