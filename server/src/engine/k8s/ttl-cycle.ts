// The cycle a Job with a TTL is in under Flux: the TTL controller deletes the
// finished Job, and the Kustomization that applies it re-creates it at its
// next reconcile, so it runs again about every TTL, rounded up to the
// interval. The TTL hover and ttl-shorter-than-interval say it the same way.
import { humanDuration } from '../base/duration';

/** The Job reappears at the first reconcile after the TTL deletes it. */
export function rerunPeriod(ttl: number, interval: number | null): number {
  if (!interval || interval <= 0) return ttl;
  return Math.max(interval, Math.ceil(ttl / interval) * interval);
}

export function describeRerun(seconds: number): string {
  const perDay = 86400 / seconds;
  const rough = seconds === 86400 ? 'about once a day' : perDay > 1 ? `about ${Math.round(perDay)} times a day` : `about every ${humanDuration(seconds)}`;
  return `Flux re-creates this Job about ${humanDuration(seconds)} after it finishes: it runs again ${rough}`;
}
