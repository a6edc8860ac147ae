// A minimal LSP client for tests: starts the real server (`dist/cli.js lsp
// --stdio`) as a child process and drives it the way an editor does.
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  Diagnostic,
  InitializeResult,
  ProtocolConnection,
  PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
  TextEdit,
  WorkspaceEdit,
  TextDocumentEdit,
} from 'vscode-languageserver-protocol/node';

export const CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');

export function fileUri(path: string): string {
  return pathToFileURL(path).toString();
}

/**
 * A diagnostic's message as the servers under test send it: a plain string (LSP 3.18 would also
 * allow MarkupContent, which a test reading the text must not take for one).
 */
export function messageText(diagnostic: Diagnostic): string {
  const { message } = diagnostic;
  if (typeof message !== 'string') throw new Error(`a plain-text diagnostic message, not ${JSON.stringify(message)}`);
  return message;
}

export class TestLspClient {
  readonly connection: ProtocolConnection;
  readonly process: ChildProcess;
  private readonly diagnostics = new Map<string, Diagnostic[]>();
  private readonly waiters: Array<() => void> = [];
  private readonly versions = new Map<string, number>();
  /** What `workspace/configuration` answers (the `fluxJobGuard` section). */
  settings: Record<string, unknown> = {};
  stderr = '';
  /** What the server wrote to its log (window/logMessage), in order. */
  readonly logs: string[] = [];

  constructor() {
    this.process = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.process.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.connection = createProtocolConnection(new StreamMessageReader(this.process.stdout!), new StreamMessageWriter(this.process.stdin!));
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.diagnostics.set(params.uri, params.diagnostics);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.connection.onRequest('workspace/configuration', (params: { items: unknown[] }) => params.items.map(() => this.settings));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.logs.push(params.message);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.connection.listen();
  }

  /**
   * `workspace` capabilities are added to the usual ones (refresh support, say), `initializationOptions`
   * sent as VS Code's client sends them (ruleDocs, say); returns the server's answer.
   */
  async initialize(rootPath: string, workspace: Record<string, unknown> = {}, initializationOptions?: Record<string, unknown>): Promise<InitializeResult> {
    const result = await this.connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: fileUri(rootPath),
      workspaceFolders: [{ uri: fileUri(rootPath), name: 'root' }],
      capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceEdit: { documentChanges: true }, ...workspace } },
      initializationOptions,
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  open(uri: string, text: string, languageId = 'yaml'): void {
    this.versions.set(uri, 1);
    void this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  /** Replaces the whole text (or applies `edits`) as a new version. */
  change(uri: string, change: string | Array<{ range: TextEdit['range']; text: string }>): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const contentChanges = typeof change === 'string' ? [{ text: change }] : change;
    void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
    return version;
  }

  close(uri: string): void {
    void this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  latest(uri: string): Diagnostic[] | undefined {
    return this.diagnostics.get(uri);
  }

  /** Waits until the diagnostics of `uri` satisfy `accept` (checked on every publish). */
  async waitForDiagnostics(uri: string, accept: (diagnostics: Diagnostic[]) => boolean, timeoutMs = 10000): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = this.diagnostics.get(uri);
      if (current && accept(current)) return current;
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(`timed out waiting for diagnostics of ${uri}; last: ${JSON.stringify(current?.map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`))}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until a log line after the first `from` matches `pattern`; returns it. */
  async waitForLog(pattern: RegExp, from = 0, timeoutMs = 10000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.slice(from).find((line) => pattern.test(line));
      if (found !== undefined) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for a log line ${pattern}; last: ${JSON.stringify(this.logs.slice(-3))}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  clearDiagnostics(uri: string): void {
    this.diagnostics.delete(uri);
  }

  async shutdown(): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      // the process may already be gone
    }
    this.connection.dispose();
    await stopped(this.process);
  }
}

/**
 * Ends a server process and waits until it is gone, its pipes closed with it: a test file's process
 * ends only when no child holds it. SIGTERM first; SIGKILL if it is still there after 5 s.
 */
async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill();
    const stubborn = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(stubborn);
  }
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
}

/** Applies LSP text edits to a text, as an editor does (edits do not overlap). */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const offsetOf = (position: TextEdit['range']['start']) => {
    let offset = 0;
    for (let line = 0; line < position.line; line++) {
      const next = text.indexOf('\n', offset);
      if (next === -1) return text.length;
      offset = next + 1;
    }
    return offset + position.character;
  };
  const resolved = edits.map((edit) => ({ start: offsetOf(edit.range.start), end: offsetOf(edit.range.end), text: edit.newText }));
  resolved.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const edit of resolved) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** The text edits a WorkspaceEdit makes to one URI. */
export function editsFor(edit: WorkspaceEdit, uri: string): TextEdit[] {
  const fromChanges = edit.changes?.[uri] ?? [];
  const fromDocumentChanges = (edit.documentChanges ?? [])
    .filter((change): change is TextDocumentEdit => 'textDocument' in change && change.textDocument.uri === uri)
    .flatMap((change) => change.edits as TextEdit[]);
  return [...fromChanges, ...fromDocumentChanges];
}
