/**
 * ttl-missing: a Job sets no `spec.ttlSecondsAfterFinished` and the contract
 * does not list it in `noFinishTimeout`. Its finished pods stay until someone
 * deletes them. Fixes: insert the required TTL under `spec` with a convergence
 * comment placeholder above it; or list the Job in `noFinishTimeout`.
 */
import { placeholderComment } from './support/convergence-note';
import { TTL_KEY } from '../k8s/jobs';
import type { Fix } from '../base/types';
import { insertIntoBlockMap } from '../yaml/edit';
import { jobLabel, JobRule } from './rule';

export const ttlMissing: JobRule = {
  meta: { id: 'ttl-missing', defaultSeverity: 'error', summary: 'A Job sets no finish timeout and is not listed as keeping none.' },
  check(job, context) {
    if (job.ttl || context.coverage.noFinishTimeout.length > 0) return [];
    const { contract } = context;
    if (!job.spec) {
      const message = `${jobLabel(job)} has no \`spec\` mapping: Kubernetes rejects it, and its finish timeout cannot be checked.`;
      return [context.finding(this.meta, job.specKeySpan ?? job.kindSpan, message)];
    }
    const fixes: Fix[] = [];
    const insert = insertIntoBlockMap(context.text, context.lines, job.specKeySpan![0], job.spec, job.parsed.base, [
      placeholderComment(contract.convergenceNote),
      `${TTL_KEY}: ${contract.requiredTtl}`,
    ]);
    if (insert) fixes.push(context.fix(`Insert ${TTL_KEY}: ${contract.requiredTtl} with a convergence comment`, [insert], true));
    const listFix = context.contractFix(`Add ${jobLabel(job)} to noFinishTimeout in ${contract.path}`, 'noFinishTimeout');
    if (listFix) fixes.push(listFix);
    const message =
      `${jobLabel(job)} sets no spec.${TTL_KEY}: its finished pods stay until someone deletes them. ` +
      `Set ${TTL_KEY}: ${contract.requiredTtl} with a \`# ${contract.convergenceNote}\` comment saying why a re-run converges, ` +
      `or list the Job in noFinishTimeout with a reason.`;
    return [context.finding(this.meta, job.specKeySpan!, message, fixes)];
  },
};
