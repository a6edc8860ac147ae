/**
 * job-argo-template (error): Argo Workflows template expressions (`{{workflow.…}}`,
 * `{{inputs.…}}`, `{{steps.…}}`, `{{tasks.…}}`, `{{outputs.…}}`) in a Job or CronJob.
 *
 * Why it matters: nothing expands them outside Argo: the container gets the braces literally
 * (often a manifest copied from a WorkflowTemplate).
 *
 * Example:
 *   args: ["--date", "{{workflow.creationTimestamp}}"]   # ← passed as written
 *
 * Fix: none; the value has to come from somewhere else (an env var, a Flux variable, a ConfigMap).
 */
import { Finding } from '../base/types';
import { forEachStringScalar, offsetMap } from '../flux/substitution/scalars';
import { getString } from '../yaml/documents';
import type { Rule } from './rule';

const ARGO_EXPRESSION = /\{\{\s*(?:workflow|inputs|steps|tasks|outputs)\.[^}]*\}\}/g;

export const jobArgoTemplate: Rule = {
  meta: { id: 'job-argo-template', defaultSeverity: 'error', summary: 'Argo Workflows template syntax in a Job, where it means nothing.' },
  check: {
    document(parsed, context) {
      const { doc } = parsed;
      const kind = getString(doc, doc.contents, 'kind');
      if ((kind !== 'Job' && kind !== 'CronJob') || !(getString(doc, doc.contents, 'apiVersion') ?? '').startsWith('batch/')) return [];
      if (!parsed.source.slice(parsed.base, parsed.end).includes('{{')) return [];
      const name = getString(doc, doc.contents, 'metadata', 'name');
      const findings = [] as Finding[];
      forEachStringScalar(parsed, (value, start, end) => {
        if (!value.includes('{{')) return;
        const map = offsetMap(parsed.source, start, end, value);
        for (const match of value.matchAll(ARGO_EXPRESSION)) {
          const span: [number, number] = [map(match.index), map(match.index + match[0].length - 1) + 1];
          const message = `${match[0]} is Argo Workflows template syntax: a ${kind} does not expand it, so the container receives the braces as they are. Pass the value as an env var, a Flux variable or a ConfigMap key.`;
          findings.push(context.finding(jobArgoTemplate.meta, span, message, undefined, name));
        }
      });
      return findings;
    },
  },
};
