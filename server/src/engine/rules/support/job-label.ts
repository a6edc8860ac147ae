// How messages name a Job.
import type { JobFacts } from '../../k8s/jobs';

/** `Job "name"` (or `this Job` when it has none) for messages. */
export function jobLabel(job: JobFacts): string {
  return job.name === null ? 'this Job' : `Job "${job.name}"`;
}
