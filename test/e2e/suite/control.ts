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
  /** Whether the awaited element, with the awaited text, was on screen and settled when the picture was taken. */
  found: boolean;
  path: string;
  /** When not found: what the page showed for the selector (text, opacity, running animations). */
  seen?: unknown;
  /** When not found: when hover and action widgets came and went (ms since the page loaded). */
  trace?: string[];
  focused?: string | null;
}

/** What to wait for on the page: the first visible `selector` showing `text`, or (hidden) none visible. */
export interface Widget {
  selector: string;
  text?: string;
  hidden?: boolean;
  /** How long the runner waits, in ms (its default is generous). */
  timeout?: number;
}

function widgetQuery(widget: Widget): string {
  const query = new URLSearchParams({ selector: widget.selector, text: widget.text ?? '', state: widget.hidden ? 'hidden' : 'visible' });
  if (widget.timeout) query.set('timeout', String(widget.timeout));
  return query.toString();
}

async function post<T>(control: Control, path: string): Promise<T> {
  if (!control.url) throw new Error('no control server: this host cannot look at its page');
  const response = await fetch(`${control.url}${path}`, { method: 'POST' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Asks the runner to photograph the page once the widget is visible, shows its text and has settled. */
export function screenshot(control: Control, name: string, widget: Widget): Promise<ScreenshotResult> {
  return post(control, `/screenshot?name=${encodeURIComponent(name)}&${widgetQuery(widget)}`);
}

/** Moves the mouse (in the runner) onto the top-most element matching `selector`; without one, into the window's corner. */
export async function pointAt(control: Control, selector?: string): Promise<boolean> {
  return (await post<{ moved: boolean }>(control, `/mouse${selector ? `?selector=${encodeURIComponent(selector)}` : ''}`)).moved;
}

/** Waits (in the runner, which sees the page) until the widget is visible and settled, or hidden. */
export async function waitForWidget(control: Control, widget: Widget): Promise<boolean> {
  return (await post<{ found: boolean }>(control, `/wait?${widgetQuery(widget)}`)).found;
}

/**
 * Waits (in the runner) until a webview's page shows the element matching `selector` with its top
 * between `from` and `to`, fractions of the view's height (0 its top edge, 1 its bottom, negative
 * above it). Resolves false after `timeout` ms (the runner's default).
 */
export async function frameElementAt(control: Control, selector: string, [from, to]: [number, number], timeout?: number, loaded = false): Promise<boolean> {
  const query = new URLSearchParams({ selector, from: String(from), to: String(to), ...(timeout ? { timeout: String(timeout) } : {}), ...(loaded ? { loaded: '1' } : {}) });
  return (await post<{ found: boolean }>(control, `/frame-element?${query.toString()}`)).found;
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
