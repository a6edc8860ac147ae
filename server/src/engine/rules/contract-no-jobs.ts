/**
 * contract-no-jobs (error): the audit found zero Job resources under `jobs.include` (reported
 * only where a contract file exists: many Flux repositories have no Job, and without a contract
 * the audit says "ok: 0 Job(s)").
 *
 * Why it matters: a broken search must not look like success. A `jobs.include` that matches
 * nothing (a moved folder, a typo) would otherwise pass every audit.
 *
 * Example:
 *   jobs:
 *     include: ['k8s/**']   # ← the manifests live under kubernetes/
 *
 * Fix: correct `jobs.include` and `jobs.exclude`. Placed on `jobs.include` when the file has it,
 * else on its first line. Only the audit (CLI, "Audit Workspace") reports it.
 */
import type { Contract, Span } from '../contract/model';
import type { Finding } from '../base/types';
import { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const contractNoJobs: Rule = {
  meta: { id: 'contract-no-jobs', defaultSeverity: 'error', summary: 'The audit found zero Job resources: a broken search must not look like success.' },
};

/** On `jobs.include` when the contract file has one, else on its first line. */
export function noJobsFinding(contract: Contract): Finding {
  const lines = new LineIndex(contract.text);
  const span: Span = contract.includeSpan ?? [0, Math.min(lines.lineEnd(0), contract.text.length)];
  const where = contract.include.length > 0 ? `under ${contract.include.join(', ')}` : 'anywhere';
  const message = `The audit found zero Job resources ${where}. A search that finds nothing must not look like success: check jobs.include and jobs.exclude.`;
  return makeFinding(contractNoJobs.meta, contract.path, lines, span, message, null);
}
