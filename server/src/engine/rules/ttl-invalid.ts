/**
 * ttl-invalid (error): the TTL is not a non-negative integer: `"86400"`, `8.64e4`, `-1`, `null`,
 * nothing.
 *
 * Why it matters: Kubernetes rejects the Job, and Flux's apply of the whole Kustomization fails.
 *
 * Example:
 *   ttlSecondsAfterFinished: "86400"   # ← a string
 *
 * Fix: write the integer it means (preferred, where it spells one), or the required value.
 */
import { TTL_KEY, TtlFacts } from '../k8s/jobs';
import type { OffsetEdit } from '../yaml/edit';
import type { Fix } from '../base/types';
import { jobLabel } from './support/job-label';
import type { Rule } from './rule';

/** The non-negative integer a wrong TTL spells (`"86400"`, `8.64e4`), or null. */
export function intendedInteger(source: string): number | null {
  const unquoted = source.replace(/^(["'])(.*)\1$/s, '$2').trim();
  if (unquoted === '' || !/^[0-9.eE+]+$/.test(unquoted)) return null;
  const number = Number(unquoted);
  return Number.isSafeInteger(number) && number >= 0 ? number : null;
}

/**
 * The edit that writes `value` as the TTL. A tag (`!!str 86400`) is no part of the value's range,
 * so it is replaced too (else the fix changes nothing); an anchor stays. An empty value is written
 * right after the key's `:`, since the parser puts the empty node where a comment after it starts
 * and `86400# converges: ...` would read as one string.
 */
function valueEdit(text: string, ttl: TtlFacts, value: string): OffsetEdit {
  const [start, end] = ttl.valueSpan;
  const from = ttl.keySpan[1];
  // The key's `:`, then the anchor and tag written on its line (in either order).
  const head = /^[ \t]*:((?:[ \t]+(?:&\S+|!\S*))*)/.exec(text.slice(from, Math.max(from, start)));
  if (!head) return { start, end, newText: value };
  const tokens = head[1]
    .trim()
    .split(/[ \t]+/)
    .filter(Boolean);
  const anchor = tokens.find((token) => token.startsWith('&'));
  if (!tokens.some((token) => token.startsWith('!')) && ttl.source !== '') return { start, end, newText: value };
  const colonEnd = from + head[0].length - head[1].length;
  return { start: colonEnd, end: ttl.source === '' ? from + head[0].length : end, newText: ` ${anchor ? anchor + ' ' : ''}${value}` };
}

export const ttlInvalid: Rule = {
  meta: { id: 'ttl-invalid', defaultSeverity: 'error', summary: 'ttlSecondsAfterFinished is not a non-negative integer.' },
  check: {
    job(job, context) {
      const { ttl } = job;
      if (!ttl || ttl.value !== null) return [];
      const required = context.contract.requiredTtl;
      const fixes: Fix[] = [];
      const intended = intendedInteger(ttl.source);
      const replaceWith = (text: string) => [valueEdit(context.text, ttl, text)];
      if (intended !== null) fixes.push(context.fix(`Write ${TTL_KEY} as the integer ${intended}`, replaceWith(String(intended)), true));
      if (intended !== required) fixes.push(context.fix(`Set ${TTL_KEY} to ${required}`, replaceWith(String(required)), intended === null));
      const shown = ttl.source === '' ? 'no value' : ttl.source;
      const message = `${TTL_KEY} of ${jobLabel(job)} is ${shown}, not a non-negative integer: Kubernetes rejects the Job. Write it as an integer such as ${intended ?? required}.`;
      const span: [number, number] = ttl.source === '' ? ttl.keySpan : ttl.valueSpan;
      return [context.finding(ttlInvalid.meta, span, message, fixes)];
    },
  },
};
