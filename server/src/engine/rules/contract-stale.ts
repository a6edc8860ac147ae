/**
 * contract-stale (error): the manifest no longer matches the entry: a `noFinishTimeout` Job now
 * sets a TTL; an `otherFinishTimeout` Job's TTL differs from `value` (or it sets none); a
 * `serviceAccounts.external` account the repository now declares, or that no pod uses; a
 * `flux.substituteFrom` object nothing defines; a `flux.variables` name no file uses; a
 * `flux.variables` `from` item for a source no live Kustomization takes from outside the
 * repository and no live HelmRelease reads from outside it, or a name of its `names` that no file
 * built with that source uses.
 *
 * Why it matters: the contract is the written record of each exception; a record that no longer
 * matches what is applied is wrong in one of the two places.
 *
 * Example:
 *   otherFinishTimeout:
 *     - file: apps/backup.yaml
 *       value: 3600            # ← the Job now sets 7200
 *
 * Fix: update the value (quick fix, when every covered Job agrees), or remove the entry.
 * Checked in contract/checks.ts.
 */
import type { Rule } from './rule';

export const contractStale: Rule = {
  meta: { id: 'contract-stale', defaultSeverity: 'error', summary: 'A contract entry no longer matches the manifest.' },
};
