/**
 * ttl-unexpected-value (error): the TTL is a valid integer other than `ttl.required`, and no
 * `otherFinishTimeout` entry allows exactly that value.
 *
 * Why it matters: one required TTL keeps every Job's re-run cycle the same and reviewed; another
 * value is an exception, and exceptions are written down with their reason.
 *
 * Example:
 *   ttlSecondsAfterFinished: 3600   # ← the contract requires 86400
 *
 * Fix: set the required value, or add (or update) the Job's `otherFinishTimeout` entry.
 */
import { TTL_KEY } from '../k8s/jobs';
import type { Fix } from '../base/types';
import { jobLabel } from './support/job-label';
import { requiredTtlPhrase } from '../contract/model';
import type { Rule } from './rule';

export const ttlUnexpectedValue: Rule = {
  meta: { id: 'ttl-unexpected-value', defaultSeverity: 'error', summary: 'A Job keeps a finish timeout other than the required one without a contract entry.' },
  check: {
    job(job, context) {
      const { ttl } = job;
      const { contract, coverage } = context;
      if (!ttl || ttl.value === null || ttl.value === contract.requiredTtl) return [];
      if (coverage.noFinishTimeout.length > 0) return []; // ttl-forbidden speaks for it
      if (coverage.otherFinishTimeout.some((entry) => entry.value === ttl.value)) return [];
      const fixes: Fix[] = [context.fix(`Set ${TTL_KEY} to ${contract.requiredTtl}`, [{ start: ttl.valueSpan[0], end: ttl.valueSpan[1], newText: String(contract.requiredTtl) }], true)];
      const verb = coverage.otherFinishTimeout.length > 0 ? 'Update' : 'Add';
      const listFix = context.contractFix(`${verb} the otherFinishTimeout entry of ${jobLabel(job)} (value ${ttl.value})`, 'otherFinishTimeout', ttl.value);
      if (listFix) fixes.push(listFix);
      const allowed = coverage.otherFinishTimeout.map((entry) => entry.value).filter((value) => value !== null);
      const why = allowed.length > 0 ? `its otherFinishTimeout entry allows ${allowed.join(', ')}` : 'no otherFinishTimeout entry allows it';
      const message = `${jobLabel(job)} sets ${TTL_KEY}: ${ttl.value}, but ${requiredTtlPhrase(contract)} and ${why}. Set ${contract.requiredTtl}, or record the value and its reason in otherFinishTimeout.`;
      return [context.finding(ttlUnexpectedValue.meta, ttl.valueSpan, message, fixes)];
    },
  },
};
