// The link between the suite (inside the extension host) and the runner that
// started the workbench (scripts/e2e-*.mjs). The runner writes
// .vscode/e2e-control.json into its copy of the fixture workspace; the suite
// reads it through workspace.fs (so it works on every host) and talks back over
// HTTP on 127.0.0.1: "take a screenshot now" and "here are the results".
import * as vscode from 'vscode';

export interface Control {
  /** Which workbench runs the suite. */
  host: 'code-server' | 'web' | 'electron';
  /** dev: the extension from the project folder; installed: from the packaged .vsix. */
  mode: 'dev' | 'installed';
  /** The runner's control server, e.g. http://127.0.0.1:40123 (absent: no screenshots, no result upload). */
  url?: string;
  /** Whether the runner can take screenshots of the page. */
  screenshots: boolean;
}

export const CONTROL_FILE = '.vscode/e2e-control.json';

let cached: Control | undefined;

export async function readControl(): Promise<Control> {
  if (cached) return cached;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const fallback: Control = { host: 'electron', mode: 'dev', screenshots: false };
  if (!folder) return (cached = fallback);
  try {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, ...CONTROL_FILE.split('/')));
    cached = { ...fallback, ...(JSON.parse(new TextDecoder().decode(bytes)) as Partial<Control>) };
  } catch {
    cached = fallback;
  }
  return cached;
}

export interface ScreenshotResult {
  /** Whether the awaited element was on screen when the picture was taken. */
  found: boolean;
  path: string;
}

/** Asks the runner to photograph the page once `selector` is visible (it waits a few seconds for it). */
export async function screenshot(control: Control, name: string, selector: string): Promise<ScreenshotResult> {
  if (!control.url) throw new Error('no control server: this host takes no screenshots');
  const response = await fetch(`${control.url}/screenshot?name=${encodeURIComponent(name)}&selector=${encodeURIComponent(selector)}`, { method: 'POST' });
  if (!response.ok) throw new Error(`screenshot ${name}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as ScreenshotResult;
}

export interface TestOutcome {
  title: string;
  state: 'passed' | 'failed' | 'skipped';
  durationMs?: number;
  error?: string;
}

export interface RunResult {
  passed: number;
  failed: number;
  skipped: number;
  tests: TestOutcome[];
}

/** Hands the results to the runner, which prints the final summary line from them. */
export async function postResult(control: Control, result: RunResult): Promise<void> {
  if (!control.url) return;
  try {
    // text/plain keeps the browser's fetch a "simple" request (no CORS preflight)
    await fetch(`${control.url}/result`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(result) });
  } catch (error) {
    console.error(`could not report the results to ${control.url}: ${String(error)}`);
  }
}
