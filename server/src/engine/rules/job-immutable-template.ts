/**
 * job-immutable-template (warning): the Job's `spec.template` (compared as data, not text)
 * differs from the version at git HEAD under the same `metadata.name`, and neither the
 * Kustomization's `spec.force` nor the annotation `kustomize.toolkit.fluxcd.io/force: enabled` is
 * set. Silent where git is not available (or the workspace is not trusted).
 *
 * Why it matters: a Job's pod template is immutable: Flux's apply fails with `field is immutable`
 * and blocks the whole Kustomization until someone deletes the Job by hand.
 *
 * Example:
 *   metadata:
 *     name: migrate-r6          # image changed since HEAD, same name
 *
 * Fix: bump the name's revision suffix (`-r6` → `-r7`, `-v2` → `-v3`, else `-r2`; preferred), or
 * add the force annotation.
 */
import { dataEqual } from '../base/data-equal';
import { isJobDocument, jobFacts } from '../k8s/jobs';
import { asMap, findPair, getNode, getString, nodeSpan, parseYamlFile, ParsedDocument } from '../yaml/documents';
import { insertIntoBlockMap } from '../yaml/edit';
import type { Rule } from './rule';

export const FORCE_ANNOTATION = 'kustomize.toolkit.fluxcd.io/force';

function templateData(parsed: ParsedDocument): unknown {
  try {
    return getNode(parsed.doc, parsed.doc.contents, 'spec', 'template')?.toJSON() ?? null;
  } catch {
    return undefined; // an alias bomb or a cycle: nothing to compare
  }
}

/** `-r6` → `-r7`, `-v2` → `-v3`, else `-r2` appended. */
export function bumpRevision(name: string): string {
  const match = /^(.*-[rv])(\d+)$/.exec(name);
  return match ? `${match[1]}${Number(match[2]) + 1}` : `${name}-r2`;
}

export const jobImmutableTemplate: Rule = {
  meta: { id: 'job-immutable-template', defaultSeverity: 'warning', summary: 'A changed pod template under the same Job name: Flux\'s apply fails with "field is immutable".' },
  check: {
    document(parsed, context) {
      const head = context.repository.headText;
      if (head === undefined || head === null || !isJobDocument(parsed)) return [];
      const job = jobFacts(parsed);
      if (job.name === null || !job.nameSpan) return [];
      if (getString(parsed.doc, parsed.doc.contents, 'metadata', 'annotations', FORCE_ANNOTATION) === 'enabled') return [];
      if (context.builders.some((builder) => builder.kustomization.force)) return [];
      const before = parseYamlFile(head).find((old) => old.errors.length === 0 && isJobDocument(old) && getString(old.doc, old.doc.contents, 'metadata', 'name') === job.name);
      if (!before) return [];
      const [now, then] = [templateData(parsed), templateData(before)];
      if (now === undefined || then === undefined || dataEqual(now, then)) return [];
      const bumped = bumpRevision(job.name);
      const fixes = [context.fix(`Rename the Job to ${bumped} (a new Job; Flux prunes the old one)`, [{ start: job.nameSpan[0], end: job.nameSpan[1], newText: bumped }], true)];
      const metadataPair = findPair(asMap(parsed.doc, parsed.doc.contents), 'metadata');
      const metadata = asMap(parsed.doc, metadataPair?.value);
      const annotations = findPair(metadata, 'annotations');
      const insert =
        annotations && asMap(parsed.doc, annotations.value)
          ? insertIntoBlockMap(context.text, context.lines, nodeSpan(parsed, annotations.key)![0], asMap(parsed.doc, annotations.value)!, parsed.base, [`${FORCE_ANNOTATION}: enabled`])
          : metadata && metadataPair
            ? insertIntoBlockMap(context.text, context.lines, nodeSpan(parsed, metadataPair.key)![0], metadata, parsed.base, ['annotations:', `  ${FORCE_ANNOTATION}: enabled`])
            : null;
      if (insert) fixes.push(context.fix(`Add the annotation ${FORCE_ANNOTATION}: enabled (Flux replaces the Job)`, [insert]));
      const message = `The pod template of Job "${job.name}" differs from git HEAD, but a Job's template is immutable: Flux's apply fails with "field is immutable" and blocks the whole Kustomization. Give the Job a new name (${bumped}) or let Flux force-replace it.`;
      return [context.finding(jobImmutableTemplate.meta, job.nameSpan, message, fixes, job.name)];
    },
  },
};
