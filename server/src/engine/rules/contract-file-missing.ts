/**
 * contract-file-missing (error): a contract entry names a file that does not exist (a
 * `noFinishTimeout` or `otherFinishTimeout` entry's `file`), or a folder that is not in the
 * repository (`flux.roots`, `flux.sources`).
 *
 * Why it matters: an entry for a file that is gone records an exception for nothing, and hides
 * that the manifest moved (its Job is now checked without the exception, or not at all).
 *
 * Example:
 *   ttl:
 *     noFinishTimeout:
 *       - file: apps/old/migrate.yaml   # ← no such file
 *
 * Fix: remove the entry (quick fix), or correct the path. The check is one walk over the
 * entries with contract-no-job, contract-stale and contract-duplicate (contract/checks.ts).
 */
import type { Rule } from './rule';

export const contractFileMissing: Rule = {
  meta: { id: 'contract-file-missing', defaultSeverity: 'error', summary: 'A contract entry names a file that does not exist.' },
};
