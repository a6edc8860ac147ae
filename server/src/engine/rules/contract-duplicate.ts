/**
 * contract-duplicate (error): the same Job is covered twice: by both lists, twice in one list, or
 * by a file-wide entry and a `job` entry (reported on the later entry); or a
 * `serviceAccounts.external` account is listed twice; or two `flux.variables` `from` items
 * declare one source (checked by the contract loader, contract/load.ts).
 *
 * Why it matters: two entries can say two different things about one Job (no TTL, and another
 * TTL); which one holds would depend on the order.
 *
 * Example:
 *   noFinishTimeout:
 *     - file: apps/seed.yaml
 *   otherFinishTimeout:
 *     - file: apps/seed.yaml   # ← covered twice
 *       value: 600
 *
 * Fix: keep one entry (the quick fix removes the later one). Checked in contract/checks.ts.
 */
import type { Rule } from './rule';

export const contractDuplicate: Rule = {
  meta: { id: 'contract-duplicate', defaultSeverity: 'error', summary: 'The same Job is covered twice by the contract.' },
};
