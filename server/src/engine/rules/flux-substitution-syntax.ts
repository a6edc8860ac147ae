/**
 * flux-substitution-syntax: `${` text that Flux's lexer rejects (`${}`,
 * `${arr[@]}`, `${VAR-def}`, `${a.b}`, an unterminated `${`). The whole
 * Kustomization fails to build, strict or not. Fix: escape to `$${`.
 */
import { FLUX_SYNTAX } from './catalogue';
import { escapeFix, kustomizationNames, SubstitutionRule } from './substitution-rule';

export const fluxSubstitutionSyntax: SubstitutionRule = {
  meta: FLUX_SYNTAX,
  check(occurrence, context) {
    const found = occurrence.occurrence;
    if (found.kind !== 'syntax-error') return [];
    const written = occurrence.value.slice(found.start, Math.min(found.end, found.start + 40));
    const message = `Flux cannot substitute ${JSON.stringify(written)}: ${found.error}. Kustomization ${kustomizationNames(context.substituting)} fails to build. If this is shell syntax, write $\${ so the shell sees \${.`;
    const fix = escapeFix(context, occurrence, '${');
    return [context.finding(this.meta, occurrence.span, message, fix ? [fix] : [])];
  },
};
