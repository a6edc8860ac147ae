// What the e2e test files share: the fixture's files, the extension's API as
// the suite sees it, and waiting for states (diagnostics, a probe, a widget
// photographed once it shows its text). No fixed pauses: every wait polls.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { Control, screenshot, ScreenshotResult, waitForWidget, Widget } from './control';

export const EXTENSION_ID = 'flux-job-guard.flux-job-guard';
export const SOURCE = 'flux-job-guard';
export const WAIT_MS = 30_000;

export const FILES = {
  contract: '.flux-job-guard.yaml',
  backup: 'apps/backup/backup-job.yaml',
  report: 'apps/report/report-job.yaml',
  cleanup: 'apps/cleanup/cleanup-job.yaml',
  migrate: 'apps/migrate/migrate-job.yaml',
  script: 'apps/scripts/nightly-report.sh',
} as const;

/** The part of the extension's activate() result the suite uses (client/src/common.ts ExtensionApi). */
export interface Api {
  client(): { state: number };
  lastAuditSummary(): string[];
  /** Every state the language status item has shown (client/src/status.ts StatusSnapshot). */
  statusHistory(): Array<{ busy: boolean; text: string; detail: string; severity: 'information' | 'warning' | 'error' }>;
}
export const CLIENT_RUNNING = 2; // vscode-languageclient State.Running

export interface AuditResponse {
  folders: Array<{ folder: string; summaryLine: string; errors: number; warnings: number; jobs: number; files: number }>;
}

// ---- helpers ---------------------------------------------------------------

export function fixture(path: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, ...path.split('/'));
}

/**
 * A suite's teardown: deletes the folders it added to the fixture copy, and waits until the
 * workbench holds no diagnostic under them, so the next suite starts from what it can count.
 */
export async function removeAdded(folders: string[]): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  for (const folder of folders) await vscode.workspace.fs.delete(fixture(folder), { recursive: true });
  const prefixes = folders.map((folder) => fixture(folder).toString() + '/');
  const left = () =>
    vscode.languages
      .getDiagnostics()
      .filter(([uri, diagnostics]) => diagnostics.length > 0 && prefixes.some((prefix) => uri.toString().startsWith(prefix)))
      .map(([uri, diagnostics]) => `${vscode.workspace.asRelativePath(uri)}: ${diagnostics.map((d) => d.message).join(' | ')}`);
  await waitUntil(() => left().length === 0, `no diagnostics left under ${folders.join(', ')}`).catch((error: Error) => {
    throw new Error(`${error.message}; left: ${left().join('; ')}`);
  });
}

export function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return String(typeof code === 'object' && code !== null ? code.value : code);
}

export function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === SOURCE);
}

export function describeDiagnostics(uri: vscode.Uri): string {
  const list = ours(uri).map((d) => `${codeOf(d)}@${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`);
  return `[${list.join(', ')}]`;
}

/** Resolves with the extension's diagnostics of `uri` once `predicate` holds for them. */
export function waitForDiagnostics(uri: vscode.Uri, predicate: (d: vscode.Diagnostic[]) => boolean, what: string, timeoutMs = WAIT_MS): Promise<vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const diagnostics = ours(uri);
      if (!predicate(diagnostics)) return;
      subscription.dispose();
      clearTimeout(timer);
      resolve(diagnostics);
    };
    const subscription = vscode.languages.onDidChangeDiagnostics((event) => {
      if (event.uris.some((changed) => changed.toString() === uri.toString())) check();
    });
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} in ${uri.path}; diagnostics now ${describeDiagnostics(uri)}`));
    }, timeoutMs);
    check();
  });
}

export const has = (code: string) => (d: vscode.Diagnostic[]) => d.some((x) => codeOf(x) === code);
export const lacks = (code: string) => (d: vscode.Diagnostic[]) => !d.some((x) => codeOf(x) === code);
export const only = (diagnostics: vscode.Diagnostic[], code: string) => diagnostics.filter((d) => codeOf(d) === code);

/** Polls `probe` (every 100 ms) until it returns something truthy; fails after `timeoutMs`. */
export async function waitUntil<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `act`, then waits until the server has published diagnostics for `uri` (an empty list counts). */
export async function afterPublish<T>(uri: vscode.Uri, act: () => Promise<T>, what: string): Promise<T> {
  let published = false;
  const subscription = vscode.languages.onDidChangeDiagnostics((event) => {
    if (event.uris.some((changed) => changed.toString() === uri.toString())) published = true;
  });
  try {
    const result = await act();
    await waitUntil(() => published, what);
    return result;
  } finally {
    subscription.dispose();
  }
}

/**
 * Brings a widget up and has the runner photograph it once it is on screen with its text and
 * settled. A widget can fail to open on a busy machine (the editor not yet focused, an answer still
 * on its way): the ways to open it (`shows`, taken in turn) are tried again, each try waiting up to
 * 20 s, until the deadline. A miss is logged with what the page showed.
 */
export async function photograph(control: Control, name: string, shows: Array<() => Thenable<unknown>>, widget: Widget, timeoutMs = 90_000): Promise<ScreenshotResult> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    await shows[attempt % shows.length]();
    const shot = await screenshot(control, name, { ...widget, timeout: 20_000 });
    if (shot.found || Date.now() > deadline) return shot;
    console.log(`${name}: try ${attempt + 1} missed; the page showed ${JSON.stringify(shot.seen)}; trace ${JSON.stringify(shot.trace)}`);
  }
}

export const HOVER = '.monaco-editor .monaco-hover:not(.hidden)';
export const QUICK_FIX_MENU = '.action-widget';

/** Opens the quick-fix menu at the cursor (the active editor focused first) and photographs it once it lists `text`; closes it. */
export async function photographQuickFix(control: Control, name: string, text: string): Promise<ScreenshotResult> {
  const shot = await photograph(
    control,
    name,
    [
      async () => {
        await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
        await vscode.commands.executeCommand('editor.action.quickFix');
      },
    ],
    { selector: QUICK_FIX_MENU, text },
  );
  await vscode.commands.executeCommand('hideCodeActionWidget').then(undefined, () => undefined);
  return shot;
}

export async function open(path: string): Promise<{ document: vscode.TextDocument; editor: vscode.TextEditor }> {
  const document = await vscode.workspace.openTextDocument(fixture(path));
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  return { document, editor };
}

/** Line and column of the first `needle` in the document (asserts it is there). */
export function find(document: vscode.TextDocument, needle: string, after = 0): vscode.Position {
  const offset = document.getText().indexOf(needle, after);
  assert.ok(offset >= 0, `${needle} in ${document.uri.path}`);
  return document.positionAt(offset);
}

export async function replaceAll(document: vscode.TextDocument, text: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
  assert.ok(await vscode.workspace.applyEdit(edit), `edit applied to ${document.uri.path}`);
}

export function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((hover) => hover.contents)
    .map((content) => (typeof content === 'string' ? content : content.value))
    .join('\n');
}

/**
 * Shows the document with the cursor at `at`, focused, and (where the runner can see the page)
 * waits until the workbench's status bar shows that cursor: a command that acts at the cursor
 * (suggest, rename) acts where the workbench has it, which it applies after the extension host.
 */
export async function cursorAt(control: Control, document: vscode.TextDocument, at: vscode.Position): Promise<void> {
  await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(at, at) });
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  if (control.url)
    assert.ok(
      await waitForWidget(control, { selector: '[id="status.editor.selection"]', text: `Ln ${at.line + 1}, Col ${at.character + 1}` }),
      `the workbench shows the cursor at Ln ${at.line + 1}, Col ${at.character + 1}`,
    );
}

export const labelOf = (item: vscode.CompletionItem) => (typeof item.label === 'string' ? item.label : item.label.label);
