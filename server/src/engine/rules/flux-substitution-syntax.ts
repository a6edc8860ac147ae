/**
 * flux-substitution-syntax (error): `${` text that Flux's lexer rejects (`${}`, `${arr[@]}`,
 * `${VAR-def}`, `${a.b}`, an unterminated `${`); also a `substituteFrom` key Flux rejects as a
 * variable name (`app.conf`), which the model reports on the key.
 *
 * Why it matters: the whole Kustomization fails to build, strict or not.
 *
 * Example:
 *   command: ["bash", "-c", "echo ${arr[@]}"]   # ← bash syntax: write $${arr[@]}
 *
 * Fix: escape to `$${` (the shell then sees `${`). The editor holds it back while the expression
 * is still being typed (editor/typing-hold.ts).
 */
import { escapeFix, kustomizationNames } from './support/substitution';
import type { Rule } from './rule';

export const fluxSubstitutionSyntax: Rule = {
  meta: { id: 'flux-substitution-syntax', defaultSeverity: 'error', summary: "${ text that Flux's substitution rejects: the whole Kustomization fails to build." },
  check: {
    substituted(occurrence, context) {
      const found = occurrence.occurrence;
      if (found.kind !== 'syntax-error') return [];
      const written = occurrence.value.slice(found.start, Math.min(found.end, found.start + 40));
      const message = `Flux cannot substitute ${JSON.stringify(written)}: ${found.error}. Kustomization ${kustomizationNames(context.substituting)} fails to build. If this is shell syntax, write $\${ so the shell sees \${.`;
      const fix = escapeFix(context, occurrence, '${');
      return [context.finding(fluxSubstitutionSyntax.meta, occurrence.span, message, fix ? [fix] : [])];
    },
  },
  model: { problems: ['invalid-variable-name'] },
};
