// Severity overrides: the contract's `rules:` map (merged over editor
// settings) replaces a rule's default; `off` drops its findings.
import { ruleMeta } from '../rules/registry';
import type { Finding, SeveritySetting } from '../base/types';

export function applySeverities(findings: Finding[], overrides: Record<string, SeveritySetting>): Finding[] {
  const out: Finding[] = [];
  for (const finding of findings) {
    const setting = overrides[finding.rule] ?? (ruleMeta(finding.rule)?.defaultSeverity === 'off' ? 'off' : undefined);
    if (setting === 'off') continue;
    out.push(setting ? { ...finding, severity: setting } : finding);
  }
  return out;
}
