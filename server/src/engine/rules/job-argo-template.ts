/**
 * job-argo-template: Argo Workflows template expressions
 * (`{{workflow.…}}`, `{{inputs.…}}`, `{{steps.…}}`, `{{tasks.…}}`,
 * `{{outputs.…}}`) in a Job or CronJob. Nothing expands them outside Argo: the
 * container gets the braces literally. No fix: the value has to come from
 * somewhere else (an env var, a Flux variable, a ConfigMap).
 */
import { forEachStringScalar, offsetMap } from '../flux/substitution/scalars';
import { getString } from '../yaml/documents';
import { JOB_ARGO_TEMPLATE } from './catalogue';
import type { DocumentRule } from './document-rule';

const ARGO_EXPRESSION = /\{\{\s*(?:workflow|inputs|steps|tasks|outputs)\.[^}]*\}\}/g;

export const jobArgoTemplate: DocumentRule = {
  meta: JOB_ARGO_TEMPLATE,
  check(parsed, context) {
    const { doc } = parsed;
    const kind = getString(doc, doc.contents, 'kind');
    if ((kind !== 'Job' && kind !== 'CronJob') || !(getString(doc, doc.contents, 'apiVersion') ?? '').startsWith('batch/')) return [];
    if (!parsed.source.slice(parsed.base, parsed.end).includes('{{')) return [];
    const name = getString(doc, doc.contents, 'metadata', 'name');
    const findings = [] as ReturnType<DocumentRule['check']>;
    forEachStringScalar(parsed, (value, start, end) => {
      if (!value.includes('{{')) return;
      const map = offsetMap(parsed.source, start, end, value);
      for (const match of value.matchAll(ARGO_EXPRESSION)) {
        const span: [number, number] = [map(match.index), map(match.index + match[0].length - 1) + 1];
        const message = `${match[0]} is Argo Workflows template syntax: a ${kind} does not expand it, so the container receives the braces as they are. Pass the value as an env var, a Flux variable or a ConfigMap key.`;
        findings.push(context.finding(this.meta, span, message, undefined, name));
      }
    });
    return findings;
  },
};
