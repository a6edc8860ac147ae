/**
 * ttl-shorter-than-interval (warning): a Flux-built Job's TTL is shorter than its Kustomization's
 * `interval` (with `wait: true`, its `timeout`). An `otherFinishTimeout` entry for the Job is the
 * record that this is meant, and silences it.
 *
 * Why it matters: the TTL controller deletes the finished Job before the next reconcile, so Flux
 * re-creates and re-runs it at almost every reconcile. The message gives the re-run period.
 *
 * Example:
 *   ttlSecondsAfterFinished: 60   # ← the Kustomization reconciles every 10m
 *
 * Fix: use at least the interval, or record the value in `otherFinishTimeout` with its reason.
 */
import { coverageOf } from '../contract/coverage';
import { isJobDocument, jobFacts, TTL_KEY } from '../k8s/jobs';
import { humanDuration, parseGoDuration } from '../base/duration';
import { describeRerun, rerunPeriod } from '../k8s/ttl-cycle';
import type { Rule } from './rule';

export const ttlShorterThanInterval: Rule = {
  meta: { id: 'ttl-shorter-than-interval', defaultSeverity: 'warning', summary: 'A TTL shorter than the Kustomization interval re-runs the Job at almost every reconcile.' },
  check: {
    document(parsed, context) {
      if (context.builders.length === 0 || !isJobDocument(parsed)) return [];
      const job = jobFacts(parsed);
      const ttl = job.ttl?.value;
      if (ttl === null || ttl === undefined) return [];
      if (coverageOf(context.contract, context.file, job.name).otherFinishTimeout.length > 0) return [];
      for (const { kustomization } of context.builders) {
        const interval = parseGoDuration(kustomization.interval ?? '');
        const timeout = kustomization.wait ? parseGoDuration(kustomization.timeout ?? '') : null;
        const threshold = timeout ?? interval;
        if (threshold === null || ttl >= threshold) continue;
        const against = timeout !== null ? `timeout ${kustomization.timeout} (wait: true)` : `interval ${kustomization.interval}`;
        const message = `${TTL_KEY}: ${ttl} is shorter than the ${against} of Flux Kustomization "${kustomization.name}": ${describeRerun(rerunPeriod(ttl, interval)).replace('this Job', 'the Job')}, nearly every reconcile. Use at least ${humanDuration(threshold)}, or record the value in otherFinishTimeout with its reason.`;
        return [context.finding(ttlShorterThanInterval.meta, job.ttl!.valueSpan, message, undefined, job.name)];
      }
      return [];
    },
  },
};
