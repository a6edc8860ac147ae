// A small LSP client for the benchmark: starts a language server over stdio
// (ours or yaml-language-server), answers what it asks, and times the way
// from a notification it sends to the publishDiagnostics that answers it.
// (test/helpers/lsp-client.ts is the tests' client; this one timestamps
// publishes as they arrive and waits for one matching publish, not a state.)
import { ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createProtocolConnection, Diagnostic, ProtocolConnection, PublishDiagnosticsParams, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';

export function fileUri(path: string): string {
  return pathToFileURL(path).toString();
}

export interface Position {
  line: number;
  character: number;
}

interface Waiter {
  uri: string;
  accept: (diagnostics: Diagnostic[]) => boolean;
  resolve: (at: { time: number; diagnostics: Diagnostic[] }) => void;
}

export interface ServerOptions {
  /** Node arguments before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
  script: string;
  args: string[];
  /** Answers `workspace/configuration`, per requested section. */
  configuration: (section: string | undefined) => unknown;
  cwd?: string;
}

export class BenchLspClient {
  readonly connection: ProtocolConnection;
  readonly process: ChildProcess;
  private readonly waiters: Waiter[] = [];
  private readonly versions = new Map<string, number>();
  stderr = '';
  publishes = 0;
  private exited: Promise<number | null>;

  constructor(readonly options: ServerOptions) {
    this.process = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...options.args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    this.exited = new Promise((resolve) => this.process.on('exit', (code) => resolve(code)));
    this.process.stderr!.on('data', (chunk) => {
      if (this.stderr.length < 100_000) this.stderr += chunk;
    });
    this.connection = createProtocolConnection(new StreamMessageReader(this.process.stdout!), new StreamMessageWriter(this.process.stdin!));
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const time = performance.now();
      this.publishes++;
      for (let i = 0; i < this.waiters.length; i++) {
        const waiter = this.waiters[i];
        if (waiter.uri === params.uri && waiter.accept(params.diagnostics)) {
          this.waiters.splice(i--, 1);
          waiter.resolve({ time, diagnostics: params.diagnostics });
        }
      }
    });
    this.connection.onRequest('workspace/configuration', (params: { items: Array<{ section?: string }> }) => params.items.map((item) => options.configuration(item.section)));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('client/unregisterCapability', () => null);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('window/showMessageRequest', () => null);
    this.connection.onNotification('window/logMessage', () => undefined);
    this.connection.onNotification('fluxJobGuard/status', (params: { state: string }) => {
      const time = performance.now();
      for (const listener of [...this.statusListeners]) listener(params.state, time);
    });
    this.connection.onNotification('window/showMessage', () => undefined);
    this.connection.onNotification('$/progress', () => undefined);
    this.connection.onNotification('telemetry/event', () => undefined);
    this.connection.listen();
  }

  get pid(): number {
    return this.process.pid!;
  }

  async initialize(rootPath: string): Promise<void> {
    await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: fileUri(rootPath),
      rootPath,
      workspaceFolders: [{ uri: fileUri(rootPath), name: 'root' }],
      capabilities: {
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true, workspaceEdit: { documentChanges: true } },
        textDocument: { publishDiagnostics: { relatedInformation: true }, synchronization: { dynamicRegistration: true, didSave: true } },
      },
    });
    await this.connection.sendNotification('initialized', {});
  }

  /**
   * Registers interest in the next publish for `uri` that `accept` takes;
   * call before sending the notification that causes it.
   */
  nextPublish(uri: string, accept: (diagnostics: Diagnostic[]) => boolean = () => true, timeoutMs = 60_000): Promise<{ time: number; diagnostics: Diagnostic[] }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(new Error(`no matching publishDiagnostics for ${uri} within ${timeoutMs} ms\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const waiter: Waiter = {
        uri,
        accept,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private readonly statusListeners = new Set<(state: string, time: number) => void>();

  /** The time of the next `idle` status that follows an `auditing` one (an audit's end); call before causing the audit. */
  nextAuditEnd(timeoutMs = 600_000): Promise<number> {
    return new Promise((resolve, reject) => {
      let auditing = false;
      const listener = (state: string, time: number) => {
        if (state === 'auditing') auditing = true;
        else if (state === 'idle' && auditing) {
          this.statusListeners.delete(listener);
          clearTimeout(timer);
          resolve(time);
        }
      };
      const timer = setTimeout(() => {
        this.statusListeners.delete(listener);
        reject(new Error(`no audit ended within ${timeoutMs} ms\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.statusListeners.add(listener);
    });
  }

  /** didSave (the text is already on disk); returns the time it was sent. */
  save(uri: string): number {
    const sent = performance.now();
    void this.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
    return sent;
  }

  /** didOpen; returns the time it was sent. */
  open(uri: string, text: string): number {
    this.versions.set(uri, 1);
    const sent = performance.now();
    void this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return sent;
  }

  /** An incremental didChange replacing `range` with `text`; returns the time it was sent. */
  change(uri: string, range: { start: Position; end: Position }, text: string): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const sent = performance.now();
    void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ range, text }] });
    return sent;
  }

  close(uri: string): void {
    this.versions.delete(uri);
    void this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  request<R>(method: string, params?: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  /**
   * Waits until the server has used no CPU for `quietMs` (from /proc/PID/stat),
   * so that a measurement or a baseline sample never overlaps work left over
   * from the previous step. Gives up quietly after `timeoutMs`.
   */
  async waitIdle(quietMs = 60, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let last = cpuTicks(this.pid);
    let quietSince = performance.now();
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      const now = cpuTicks(this.pid);
      if (now !== last) {
        last = now;
        quietSince = performance.now();
      } else if (performance.now() - quietSince >= quietMs) return;
    }
  }

  /** VmRSS and VmHWM of the server process, in bytes. */
  memory(): { rss: number; hwm: number } {
    return readProcMemory(this.pid);
  }

  /** shutdown + exit, and wait for the process to end (so --cpu-prof writes its profile). */
  async shutdown(timeoutMs = 30_000): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.process.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
    this.connection.dispose();
  }
}

/** utime + stime of a process, in clock ticks (-1 when it is gone). */
function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return -1;
  }
}

export function readProcMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * Copies a bundle (and its source map) into `dir` and returns the copy's path:
 * other people may rebuild dist/ while a bench or a profile runs, and the
 * figures (and the profile's source mapping) must all come from one build.
 */
export function snapshotBundle(bundle: string, dir: string): string {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first`);
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, basename(bundle));
  copyFileSync(bundle, copy);
  if (existsSync(bundle + '.map')) copyFileSync(bundle + '.map', copy + '.map');
  // The audit's worker threads run a bundle of their own, looked up next to the CLI.
  const worker = join(dirname(bundle), 'audit-worker.js');
  if (existsSync(worker)) copyFileSync(worker, join(dir, 'audit-worker.js'));
  return copy;
}
