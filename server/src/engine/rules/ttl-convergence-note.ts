/**
 * ttl-convergence-note (warning): a Job sets the required TTL, but no comment starting with the
 * convergence marker (`converges:`, or the contract's `ttl.convergenceNote`) stands directly above
 * the key or at the end of its line; or the comment still holds the placeholder a fix inserted.
 *
 * Why it matters: with a TTL, Flux re-creates the Job after the TTL controller deletes it, so it
 * runs again about once a day. The comment is the record of why a second run converges.
 *
 * Example:
 *   # converges: the script skips repositories that already exist
 *   ttlSecondsAfterFinished: 86400
 *
 * Fix: none; a person writes the reason.
 */
import { convergenceNote } from './support/convergence-note';
import { TTL_KEY } from '../k8s/jobs';
import { jobLabel } from './support/job-label';
import type { Rule } from './rule';

export const ttlConvergenceNote: Rule = {
  meta: { id: 'ttl-convergence-note', defaultSeverity: 'warning', summary: 'A finish timeout without a comment saying why a re-run converges.' },
  check: {
    job(job, context) {
      const { ttl } = job;
      const marker = context.contract.convergenceNote;
      if (!ttl || ttl.value !== context.contract.requiredTtl) return [];
      const state = convergenceNote(context.lines, ttl.keySpan[0], ttl.valueSpan[1], marker);
      if (state === 'present') return [];
      const what = state === 'placeholder' ? `still has the placeholder \`# ${marker} TODO ...\`` : `has no \`# ${marker}\` comment`;
      const message = `${TTL_KEY} of ${jobLabel(job)} ${what}: Flux re-creates the Job after the TTL deletes it, so it runs again about once a day. Say in the comment why a second run reaches the same state and does not fail.`;
      return [context.finding(ttlConvergenceNote.meta, ttl.keySpan, message)];
    },
  },
};
