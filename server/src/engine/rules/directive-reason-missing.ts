/**
 * directive-reason-missing (warning): a `flux-job-guard-disable-next-line` comment gives no
 * reason after `--`, or keeps the placeholder the "Disable … for this line" quick fix wrote.
 *
 * Why it matters: the finding stays silenced, but nobody can tell later whether it was meant;
 * the reason is the record, as a contract entry's is.
 *
 * Example:
 *   # flux-job-guard-disable-next-line pod-service-account-undeclared   # ← no `-- reason`
 *   serviceAccountName: postgres-pod
 *
 * Fix: write why after `--`. The directives are applied in pipeline/directives.ts.
 */
import type { Finding } from '../base/types';
import type { LineIndex } from '../yaml/line-index';
import { DIRECTIVE } from './support/directive';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const directiveReasonMissing: Rule = {
  meta: { id: 'directive-reason-missing', defaultSeverity: 'warning', summary: 'A flux-job-guard-disable-next-line comment gives no reason after `--`.' },
};

export function reasonMissingFinding(file: string, lines: LineIndex, span: [number, number]): Finding {
  return makeFinding(directiveReasonMissing.meta, file, lines, span, `The directive gives no reason: write why after \`--\` (${DIRECTIVE} <rule> -- <reason>).`, null);
}
