/**
 * ttl-shorter-than-interval: a Flux-built Job whose TTL is shorter than the
 * Kustomization's `interval` (or, with `wait: true`, its `timeout`): the TTL
 * controller deletes the finished Job before the next reconcile, so Flux
 * re-creates and re-runs it at almost every reconcile. An
 * `otherFinishTimeout` entry for the Job is the record that this is meant.
 */
import { coverageOf } from '../contract/coverage';
import { isJobDocument, jobFacts, TTL_KEY } from '../k8s/jobs';
import { humanDuration, parseGoDuration } from '../base/duration';
import { describeRerun, rerunPeriod } from '../k8s/ttl-cycle';
import { TTL_SHORTER_THAN_INTERVAL } from './catalogue';
import type { DocumentRule } from './document-rule';

export const ttlShorterThanInterval: DocumentRule = {
  meta: TTL_SHORTER_THAN_INTERVAL,
  check(parsed, context) {
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
      return [context.finding(this.meta, job.ttl!.valueSpan, message, undefined, job.name)];
    }
    return [];
  },
};
