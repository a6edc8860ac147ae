// The language status item: busy while the server starts, reads a folder or
// audits; then the errors and warnings the Problems panel shows from this
// extension, counted exactly as it counts them (an error icon when there is
// one), the last audit's summary lines in the detail's tooltip, and the "Audit
// Workspace" link, which stays reachable because the text stays short.
import * as vscode from 'vscode';
import type { AuditFolderSummary, ProblemCounts, ServerState, StatusParams } from '../../server/src/shared/settings';

export interface StatusSnapshot {
  busy: boolean;
  text: string;
  detail: string;
  severity: 'information' | 'warning' | 'error';
}

const SEVERITY = {
  information: vscode.LanguageStatusSeverity.Information,
  warning: vscode.LanguageStatusSeverity.Warning,
  error: vscode.LanguageStatusSeverity.Error,
} as const;

const NONE: ProblemCounts = { errors: 0, warnings: 0, files: 0 };

/** The counts in a few words: `18 error(s), 3 warning(s) in 5 file(s)`. */
export function problemsText({ errors, warnings, files }: ProblemCounts): string {
  const parts = [...(errors > 0 ? [`${errors} error(s)`] : []), ...(warnings > 0 ? [`${warnings} warning(s)`] : [])];
  return parts.length === 0 ? 'ok' : `${parts.join(', ')} in ${files} file(s)`;
}

/** What the item says for a state, the Problems counts and the folders' last audits (pure: tested through the e2e suite's snapshots). */
export function describeStatus(state: ServerState | 'starting', folders: AuditFolderSummary[], problems: ProblemCounts = NONE): StatusSnapshot {
  const jobs = folders.reduce((sum, folder) => sum + folder.jobs, 0);
  const busy = state !== 'idle';
  const doing = { starting: 'starting…', indexing: 'reading the workspace…', auditing: 'auditing…', idle: '' }[state];
  const severity = problems.errors > 0 ? 'error' : problems.warnings > 0 ? 'warning' : 'information';
  // Before the first audit only open files have diagnostics: their counts, or the name.
  if (folders.length === 0 && problems.errors + problems.warnings === 0) return { busy, text: 'Flux Job Guard', detail: doing || 'no audit yet', severity: 'information' };
  return { busy, text: `Jobs: ${problemsText(problems)}`, detail: doing || (folders.length > 0 ? `${jobs} Job(s) audited` : 'open files only: no audit yet'), severity };
}

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('fluxJobGuard.status', { language: 'yaml' });
  private state: ServerState | 'starting' = 'starting';
  private folders: AuditFolderSummary[] = [];
  private problems: ProblemCounts = NONE;
  /** Every state shown, in order (the e2e suite reads it: busy, then the summary). */
  readonly history: StatusSnapshot[] = [];

  constructor(private readonly auditCommand: string) {
    this.item.name = 'Flux Job Guard';
    this.render();
  }

  /** The client (re)starts its server: busy until the server says otherwise. */
  starting(): void {
    this.state = 'starting';
    this.render();
  }

  update(params: StatusParams): void {
    this.state = params.state;
    this.folders = params.folders;
    this.problems = params.problems ?? NONE;
    this.render();
  }

  /** The summary lines of the last audit, one per folder. */
  summaryLines(): string[] {
    return this.folders.map((folder) => `${vscode.Uri.parse(folder.folder).path.split('/').pop()}: ${folder.summaryLine}`);
  }

  private render(): void {
    const snapshot = describeStatus(this.state, this.folders, this.problems);
    this.item.busy = snapshot.busy;
    this.item.text = snapshot.text;
    this.item.detail = snapshot.detail;
    this.item.severity = SEVERITY[snapshot.severity];
    // The long lines go where there is room: the link's tooltip.
    const lines = this.summaryLines();
    this.item.command = { title: 'Audit Workspace', command: this.auditCommand, tooltip: lines.length > 0 ? lines.join('\n') : 'Audit every file of the workspace' };
    this.history.push(snapshot);
  }

  dispose(): void {
    this.item.dispose();
  }
}
