// The closing line of an audit (cli.md), shared by the CLI and the editor, and
// the one line the editor logs for each audit.
import type { Summary } from './audit';

export function summaryLine(summary: Summary): string {
  if (summary.errors === 0) {
    return `ok: ${summary.jobs} Job(s) in ${summary.files} file(s) — ${summary.withTtl} with a finish timeout, ${summary.keepNone} that keep none with a written reason`;
  }
  return `FAIL: ${summary.errors} error(s), ${summary.warnings} warning(s) in ${summary.jobs} Job(s) in ${summary.files} file(s)`;
}

export interface AuditLogFacts {
  folder: string;
  version: string;
  contractPath: string;
  contractExists: boolean;
  durationMs: number;
  /** The files audited again after a save, where that was all (the rest of the last audit stands). */
  redone?: number;
  /** Why an audit after a save audited everything. */
  whole?: string;
}

/**
 * The output channel's record of one audit, everything on one line so that a log of many audits
 * reads as a table: which folder, the counts, how long, which contract, which version.
 */
export function auditLogLine(summary: Summary, facts: AuditLogFacts): string {
  const contract = facts.contractExists ? facts.contractPath : `${facts.contractPath} (none: defaults)`;
  return (
    `audit ${facts.folder}: ${summary.files} file(s), ${summary.jobs} Job(s), ${summary.errors} error(s), ${summary.warnings} warning(s)` +
    ` in ${Math.round(facts.durationMs)} ms${facts.redone === undefined ? '' : ` (${facts.redone} file(s) audited again, the rest as before)`}${facts.whole === undefined ? '' : ` (all of it: ${facts.whole})`} · contract ${contract} · Flux Job Guard ${facts.version}`
  );
}
