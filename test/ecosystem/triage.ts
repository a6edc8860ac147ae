// The ecosystem check, as Ruff and mypy_primer run one: the audit of every
// repository of ../shared/corpus/ (real repositories nobody here wrote) is
// compared with a triage file in which every substitution, reference and pod
// finding was read in its source and judged a true hazard or a false one,
// with the reason. A finding nobody triaged, a finding triaged false, and a
// true finding that disappears are all failures: false findings are fixed in
// the model, never in this file.
import type { JsonFinding } from '../../server/src/cli/formats';

export interface TriageEntry {
  repo: string;
  file: string;
  rule: string;
  /** 1-based lines of the findings this entry covers (one verdict for the same cause on several lines). */
  lines: number[];
  verdict: 'true' | 'false';
  reason: string;
}

export interface Triage {
  /** The rule ids the check covers (prefixes end in `-`). */
  rules: string[];
  entries: TriageEntry[];
}

export function inScope(triage: Triage, rule: string): boolean {
  return triage.rules.some((prefix) => (prefix.endsWith('-') ? rule.startsWith(prefix) : rule === prefix));
}

/** What is wrong with one repository's findings against the triage: empty when it agrees. */
export function compareWithTriage(triage: Triage, repo: string, findings: JsonFinding[]): string[] {
  const problems: string[] = [];
  const entries = triage.entries.filter((entry) => entry.repo === repo);
  const key = (file: string, rule: string, line: number) => `${file}|${rule}|${line}`;
  const seen = new Set<string>();
  for (const finding of findings) {
    if (!inScope(triage, finding.rule)) continue;
    seen.add(key(finding.file, finding.rule, finding.line));
    const entry = entries.find((e) => e.file === finding.file && e.rule === finding.rule && e.lines.includes(finding.line));
    const where = `${repo}: ${finding.file}:${finding.line}:${finding.column} ${finding.rule}`;
    if (!entry) problems.push(`${where} is not triaged: read its source, then record it in test/ecosystem/triage.json (${finding.message.slice(0, 160)})`);
    else if (entry.verdict === 'false') problems.push(`${where} was triaged false (${entry.reason}): fix the model, not the triage`);
  }
  for (const entry of entries) {
    if (entry.verdict !== 'true') continue;
    for (const line of entry.lines) {
      if (!seen.has(key(entry.file, entry.rule, line))) problems.push(`${repo}: ${entry.file}:${line} ${entry.rule} was a true hazard and is no longer reported (${entry.reason})`);
    }
  }
  return problems;
}

/** Untriaged findings as entries to fill in (verdict and reason left for a person). */
export function draftEntries(triage: Triage, repo: string, findings: JsonFinding[]): TriageEntry[] {
  const drafts = new Map<string, TriageEntry>();
  for (const finding of findings) {
    if (!inScope(triage, finding.rule)) continue;
    const known = triage.entries.some((e) => e.repo === repo && e.file === finding.file && e.rule === finding.rule && e.lines.includes(finding.line));
    if (known) continue;
    const id = `${finding.file}|${finding.rule}`;
    const draft = drafts.get(id) ?? { repo, file: finding.file, rule: finding.rule, lines: [], verdict: 'false' as const, reason: `UNTRIAGED: ${finding.message}` };
    if (!draft.lines.includes(finding.line)) draft.lines.push(finding.line);
    drafts.set(id, draft);
  }
  return [...drafts.values()];
}
