// Preview Flux Substitution: one read-only editor per source file (a fixed
// URI), reused when the command runs again, and rendered again when the command
// runs again, as the source changes, and when the server says another file
// changed it (the Kustomization, a variable's source, the contract). The server renders the text (secrets masked, failures located).
import * as vscode from 'vscode';
import type { BaseLanguageClient } from 'vscode-languageclient';
import { Requests } from '../../server/src/shared/settings';

export const PREVIEW_SCHEME = 'flux-job-guard-preview';

export class SubstitutionPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Previews being computed, and those whose source changed meanwhile (computed once more after). */
  private readonly inFlight = new Set<string>();
  private readonly again = new Set<string>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly client: () => BaseLanguageClient) {
    this.subscriptions = [
      this.changed,
      // Live: each change of a source whose preview is open refreshes it. Changes that come while a
      // rendering is on its way collapse into one more (the change events pace it, not a timer).
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0 && event.document.uri.scheme !== PREVIEW_SCHEME) this.refresh(previewUri(event.document.uri));
      }),
    ];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** Every open preview renders again: another file changed what they show (the server says so). */
  refreshAll(): void {
    for (const document of vscode.workspace.textDocuments) if (document.uri.scheme === PREVIEW_SCHEME) this.refresh(document.uri);
  }

  refresh(preview: vscode.Uri): void {
    const key = preview.toString();
    if (!vscode.workspace.textDocuments.some((document) => document.uri.toString() === key)) return;
    if (this.inFlight.has(key)) this.again.add(key);
    else this.changed.fire(preview);
  }

  async provideTextDocumentContent(preview: vscode.Uri): Promise<string> {
    const key = preview.toString();
    this.inFlight.add(key);
    try {
      const source = vscode.workspace.textDocuments.find((document) => document.uri.toString() === preview.query);
      const response = await this.client().sendRequest<{ text: string }>(Requests.previewSubstitution, { uri: preview.query, text: source?.getText() });
      return response.text;
    } finally {
      this.inFlight.delete(key);
      // once this rendering has been returned (and applied), the one that waited
      if (this.again.delete(key)) queueMicrotask(() => this.changed.fire(preview));
    }
  }

  /**
   * Shows the preview of `source`: in the editor group that already has it, else beside the source.
   * Pinned (not a preview-mode tab): the preview of another file opens beside it instead of replacing it.
   */
  async show(source: vscode.Uri): Promise<vscode.TextEditor> {
    const preview = previewUri(source);
    const open = vscode.window.tabGroups.all.find((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === preview.toString()));
    // Asked for again: render again (an open document is not asked for its content a second time).
    this.refresh(preview);
    const document = await vscode.workspace.openTextDocument(preview);
    if (document.languageId !== 'yaml') await vscode.languages.setTextDocumentLanguage(document, 'yaml');
    return vscode.window.showTextDocument(document, { viewColumn: open?.viewColumn ?? vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  }
}

/** The one preview URI of a source: the same every time, so the editor is reused. */
export function previewUri(source: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${source.path.split('/').pop()} (as Flux renders it)`, query: source.toString() });
}
