/**
 * directive-unused (warning): a `flux-job-guard-disable-next-line` comment silences nothing: no
 * finding of the rules it names on the next line (the finding moved, or was fixed), or it names
 * no rule of Flux Job Guard (a typo).
 *
 * Why it matters: a directive that silences nothing today silences whatever appears on that
 * line tomorrow, and a misspelt id silences nothing at all while looking like it does.
 *
 * Example:
 *   # flux-job-guard-disable-next-line ttl-mising -- seeded once   # ← no such rule
 *   ttlSecondsAfterFinished: 600
 *
 * Fix: remove the directive (quick fix, when it silences nothing) or move it above the finding.
 * The directives are applied in pipeline/directives.ts; the findings are made here.
 */
import type { Finding, Fix } from '../base/types';
import type { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const directiveUnused: Rule = {
  meta: { id: 'directive-unused', defaultSeverity: 'warning', summary: 'A flux-job-guard-disable-next-line comment silences nothing: no such finding on the next line, or no such rule.' },
};

/** A directive that names ids no rule has. */
export function unknownRulesFinding(file: string, lines: LineIndex, span: [number, number], unknown: string[]): Finding {
  return makeFinding(directiveUnused.meta, file, lines, span, `The directive names ${unknown.map((rule) => `\`${rule}\``).join(', ')}, which is no rule of Flux Job Guard.`, null);
}

/** A directive with nothing to silence on the next line (`idle`: the rules it names that have none; none named: every rule). */
export function idleDirectiveFinding(file: string, lines: LineIndex, span: [number, number], named: string[], idle: string[], fixes?: Fix[]): Finding {
  const what = named.length === 0 ? 'no finding' : `no ${idle.map((rule) => `\`${rule}\``).join(', ')} finding`;
  return makeFinding(directiveUnused.meta, file, lines, span, `The directive silences ${what} on the next line: remove it (or move it above the finding).`, null, fixes);
}
