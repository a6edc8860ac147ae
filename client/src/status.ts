// The language status item: busy while the server starts, reads a folder or
// audits; then the last audit's outcome in a few words (an error icon when it
// failed), the full summary lines in the detail's tooltip, and the "Audit
// Workspace" link, which stays reachable because the text stays short.
import * as vscode from 'vscode';
import type { AuditFolderSummary, ServerState, StatusParams } from '../../server/src/shared/settings';

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

/** What the item says for a state and the folders' last audits (pure: tested through the e2e suite's snapshots). */
export function describeStatus(state: ServerState | 'starting', folders: AuditFolderSummary[]): StatusSnapshot {
  const errors = folders.reduce((sum, folder) => sum + folder.errors, 0);
  const warnings = folders.reduce((sum, folder) => sum + folder.warnings, 0);
  const jobs = folders.reduce((sum, folder) => sum + folder.jobs, 0);
  const busy = state !== 'idle';
  const doing = { starting: 'starting…', indexing: 'reading the workspace…', auditing: 'auditing…', idle: '' }[state];
  if (folders.length === 0) return { busy, text: 'Flux Job Guard', detail: doing || 'no audit yet', severity: 'information' };
  const outcome = errors > 0 ? `${errors} error(s)` : warnings > 0 ? `${warnings} warning(s)` : 'ok';
  return {
    busy,
    text: `Jobs: ${outcome}`,
    detail: doing || `${jobs} Job(s) audited`,
    severity: errors > 0 ? 'error' : warnings > 0 ? 'warning' : 'information',
  };
}

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('fluxJobGuard.status', { language: 'yaml' });
  private state: ServerState | 'starting' = 'starting';
  private folders: AuditFolderSummary[] = [];
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
    this.render();
  }

  /** The summary lines of the last audit, one per folder. */
  summaryLines(): string[] {
    return this.folders.map((folder) => `${vscode.Uri.parse(folder.folder).path.split('/').pop()}: ${folder.summaryLine}`);
  }

  private render(): void {
    const snapshot = describeStatus(this.state, this.folders);
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
