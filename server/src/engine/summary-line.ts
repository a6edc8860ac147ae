// The closing line of an audit (cli.md), shared by the CLI and the editor.
import type { Summary } from './audit';

export function summaryLine(summary: Summary): string {
  if (summary.errors === 0) {
    return `ok: ${summary.jobs} Job(s) in ${summary.files} file(s) — ${summary.withTtl} with a finish timeout, ${summary.keepNone} that keep none with a written reason`;
  }
  return `FAIL: ${summary.errors} error(s), ${summary.warnings} warning(s) in ${summary.jobs} Job(s) in ${summary.files} file(s)`;
}
