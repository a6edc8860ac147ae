/**
 * ttl-missing (error): a Job sets no `spec.ttlSecondsAfterFinished` and the contract does not list
 * it in `noFinishTimeout`.
 *
 * Why it matters: its finished pods stay until someone deletes them; the contract is where a Job
 * that must keep them says so, with a reason.
 *
 * Example:
 *   spec:                      # ← ttl-missing
 *     backoffLimit: 2
 *
 * Not for a hook Job that Argo CD or Helm deletes by its `hook-delete-policy`
 * (`argocd.argoproj.io/hook` + `argocd.argoproj.io/hook-delete-policy`, or the `helm.sh/` pair): the
 * tool that runs the hook creates it for each sync and deletes it, so its pods do not stay and nothing
 * re-applies it as a plain resource.
 *
 * Fix: insert the required TTL under `spec` with a convergence comment placeholder above it
 * (preferred), or list the Job in `noFinishTimeout` (creates the contract file if needed).
 */
import { placeholderComment } from './support/convergence-note';
import { TTL_KEY } from '../k8s/jobs';
import type { Fix } from '../base/types';
import { insertIntoBlockMap } from '../yaml/edit';
import { jobLabel } from './support/job-label';
import type { Rule } from './rule';
import { getString } from '../yaml/documents';
import type { JobFacts } from '../k8s/jobs';

/** The hook annotations of the tools that create a hook Job per sync and delete it by policy. */
const HOOK_OWNERS = ['argocd.argoproj.io', 'helm.sh'];

/** Whether Argo CD or Helm owns the Job's lifecycle: a hook with a delete policy. */
function deletedByHookPolicy(job: JobFacts): boolean {
  const { doc } = job.parsed;
  const annotation = (key: string) => getString(doc, doc.contents, 'metadata', 'annotations', key);
  return HOOK_OWNERS.some((owner) => annotation(`${owner}/hook`) !== null && annotation(`${owner}/hook-delete-policy`) !== null);
}

export const ttlMissing: Rule = {
  meta: { id: 'ttl-missing', defaultSeverity: 'error', summary: 'A Job sets no finish timeout and is not listed as keeping none.' },
  check: {
    job(job, context) {
      if (job.ttl || context.coverage.noFinishTimeout.length > 0 || deletedByHookPolicy(job)) return [];
      const { contract } = context;
      if (!job.spec) {
        const message = `${jobLabel(job)} has no \`spec\` mapping: Kubernetes rejects it, and its finish timeout cannot be checked.`;
        return [context.finding(ttlMissing.meta, job.specKeySpan ?? job.kindSpan, message)];
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
      return [context.finding(ttlMissing.meta, job.specKeySpan!, message, fixes)];
    },
  },
};
