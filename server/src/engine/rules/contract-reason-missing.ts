/**
 * contract-reason-missing (error): a contract entry has no `reason`, an empty one, or still the
 * placeholder a quick fix wrote (`TODO …`).
 *
 * Why it matters: the contract is the written record of why a Job is an exception; an entry
 * without a reason is an exception nobody can review.
 *
 * Example:
 *   - file: apps/seed.yaml
 *     reason: TODO write why this Job is an exception   # ← the placeholder
 *
 * Fix: write the reason. Reported by the contract loader (contract/load.ts), which reads every
 * entry.
 */
import type { Rule } from './rule';

export const contractReasonMissing: Rule = {
  meta: { id: 'contract-reason-missing', defaultSeverity: 'error', summary: 'A contract entry has no reason.' },
};
