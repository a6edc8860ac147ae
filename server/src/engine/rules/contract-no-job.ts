/**
 * contract-no-job (error): a contract entry names a file with no Job resource, or a `job` that
 * is not in the file (the message lists the Jobs it holds).
 *
 * Why it matters: the exception covers nothing; the Job it was meant for (renamed, moved) is
 * checked without it.
 *
 * Example:
 *   - file: apps/db/migrate.yaml
 *     job: migrate-v1          # ← the file holds "migrate-v2"
 *
 * Fix: remove the entry (quick fix), or correct the name. Checked in contract/checks.ts.
 */
import type { Rule } from './rule';

export const contractNoJob: Rule = {
  meta: { id: 'contract-no-job', defaultSeverity: 'error', summary: 'A contract entry names a file with no Job, or a Job that is not in the file.' },
};
