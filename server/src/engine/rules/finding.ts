// A finding as every rule makes it: the rule's id and default severity (a rule
// that is off by default reports as info where a setting turns it on), the
// file, the range of a span of its text, the message, the Job it is about.
import type { Finding, Fix, RuleMeta } from '../base/types';
import type { LineIndex } from '../yaml/line-index';

export function makeFinding(meta: RuleMeta, file: string, lines: LineIndex, span: [number, number], message: string, job: string | null, fixes?: Fix[]): Finding {
  const finding: Finding = { rule: meta.id, severity: meta.defaultSeverity === 'off' ? 'info' : meta.defaultSeverity, file, range: lines.range(span[0], span[1]), message, job };
  if (fixes && fixes.length > 0) finding.fixes = fixes;
  return finding;
}
