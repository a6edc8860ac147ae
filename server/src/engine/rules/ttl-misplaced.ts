/**
 * ttl-misplaced (error): `ttlSecondsAfterFinished` written anywhere but directly under the Job's
 * `spec` (under `spec.template.spec`, `metadata`, ...).
 *
 * Why it matters: Kubernetes ignores it there (or rejects the Job): the Job has no TTL while the
 * manifest seems to set one.
 *
 * Example:
 *   spec:
 *     template:
 *       spec:
 *         ttlSecondsAfterFinished: 86400   # ← belongs under the Job's spec
 *
 * Fix: move it, with its comment, to the Job's `spec`.
 */
import { TTL_KEY } from '../k8s/jobs';
import { insertIntoBlockMap } from '../yaml/edit';
import { movedKeyLines, removeKeyEdit } from './support/ttl-edits';
import { jobLabel } from './support/job-label';
import type { Rule } from './rule';

export const ttlMisplaced: Rule = {
  meta: { id: 'ttl-misplaced', defaultSeverity: 'error', summary: 'ttlSecondsAfterFinished sits somewhere Kubernetes ignores it.' },
  check: {
    job(job, context) {
      const marker = context.contract.convergenceNote;
      return job.misplaced.map((ttl) => {
        const removal = removeKeyEdit(context.lines, ttl, marker);
        const insertion = job.spec && !job.ttl ? insertIntoBlockMap(context.text, context.lines, job.specKeySpan![0], job.spec, job.parsed.base, movedKeyLines(context.lines, ttl, marker)) : null;
        const fixes = [];
        if (removal && insertion) fixes.push(context.fix(`Move ${TTL_KEY} to spec`, [insertion, removal], true));
        else if (removal && job.ttl) fixes.push(context.fix(`Remove the misplaced ${TTL_KEY} (spec already sets one)`, [removal], true));
        const parent = ttl.path === TTL_KEY ? null : ttl.path.slice(0, -(TTL_KEY.length + 1));
        const where = parent === null ? 'at the top level' : `under \`${parent}\``;
        const message = `${TTL_KEY} ${where} of ${jobLabel(job)} has no effect there: Kubernetes reads it only directly under the Job's spec. Move it to spec.`;
        return context.finding(ttlMisplaced.meta, ttl.keySpan, message, fixes);
      });
    },
  },
};
