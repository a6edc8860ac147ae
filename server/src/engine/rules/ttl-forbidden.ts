/**
 * ttl-forbidden (error): a Job the contract lists in `noFinishTimeout` sets a TTL.
 *
 * Why it matters: its completions were meant to stay as the evidence the entry keeps; with a
 * TTL the TTL controller deletes them and Flux re-runs the Job.
 *
 * Example:
 *   # listed in noFinishTimeout ("runs once per cluster")
 *   ttlSecondsAfterFinished: 86400   # ← ttl-forbidden
 *
 * Fix: remove the TTL and the convergence comment above it, or remove the contract entry.
 */
import { TTL_KEY } from '../k8s/jobs';
import { removeKeyEdit } from './support/ttl-edits';
import { jobLabel } from './support/job-label';
import type { Rule } from './rule';

export const ttlForbidden: Rule = {
  meta: { id: 'ttl-forbidden', defaultSeverity: 'error', summary: 'A Job listed as keeping no finish timeout sets one.' },
  check: {
    job(job, context) {
      const { ttl } = job;
      if (!ttl || context.coverage.noFinishTimeout.length === 0) return [];
      const edit = removeKeyEdit(context.lines, ttl, context.contract.convergenceNote);
      const fixes = edit ? [context.fix(`Remove ${TTL_KEY} (the contract lists ${jobLabel(job)} in noFinishTimeout)`, [edit], true)] : [];
      const reason = context.coverage.noFinishTimeout[0].reason;
      const message = `${jobLabel(job)} is listed in noFinishTimeout${reason ? ` ("${reason}")` : ''} but sets ${TTL_KEY}: the TTL controller will delete its completions and Flux will run it again. Remove the TTL, or remove the contract entry.`;
      return [context.finding(ttlForbidden.meta, ttl.keySpan, message, fixes)];
    },
  },
};
