/**
 * flux-substitution-pid (warning): in text a shell runs, `$$` (after pairing) followed by the end
 * of the text or by a character that starts nothing in shell (not a letter, digit, `_`, `{`, `(`,
 * `$`, one of `? # @ * ! -`, nor `'`: `$$'\n'` is bash's ANSI-C quoting correctly escaped). An even
 * run (`$$$$`) is the correct spelling and is not reported.
 *
 * Why it matters: meant as the shell's PID (or a PL/pgSQL `$$` quote), it arrives as a lone `$`.
 *
 * Example:
 *   command: ["sh", "-c", "echo $$ > /tmp/pid"]   # ← the shell gets `echo $ > /tmp/pid`
 *
 * Fix: write `$$$$` (Flux turns it into `$$`).
 */
import type { Rule } from './rule';

const STARTS_SOMETHING = /^[\p{L}\p{Nd}_{($?#@*!'-]$/u;

export const fluxSubstitutionPid: Rule = {
  meta: { id: 'flux-substitution-pid', defaultSeverity: 'warning', summary: 'A $$ meant as the shell PID reaches the shell as a lone $.' },
  check: {
    substituted(occurrence, context) {
      const escape = occurrence.occurrence;
      if (escape.kind !== 'escape' || STARTS_SOMETHING.test(escape.next)) return [];
      if (!occurrence.shell) return []; // only a shell reads $$ as its PID
      // In a run of `$$` pairs only the last one meets the next character; an
      // even run (`$$$$`) already arrives as `$$`, the PID.
      let run = 1;
      for (let i = context.index - 1; i >= 0; i--) {
        const previous = context.occurrences[i];
        if (previous.occurrence.kind !== 'escape' || previous.span[1] !== context.occurrences[i + 1].span[0]) break;
        run++;
      }
      if (run % 2 === 0) return [];
      const message = 'Flux turns $$ into a lone $: a shell PID (or a $$ quote, as in PL/pgSQL) written $$ arrives as $. Write $$$$ to keep $$ (or $$ before a name for a shell variable).';
      return [
        context.finding(fluxSubstitutionPid.meta, occurrence.span, message, [
          context.fix('Write $$$$ (Flux turns it into $$)', [{ start: occurrence.span[0], end: occurrence.span[0], newText: '$$' }], true),
        ]),
      ];
    },
  },
};
