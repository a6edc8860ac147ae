// What the suite needs from the machine its extension host runs on, Node
// flavour (code-server, desktop VS Code). scripts/e2e-build.mjs swaps in
// host-browser.ts for the web build.
import * as fs from 'node:fs';
import * as vscode from 'vscode';

export const runtime = 'node' as const;

/** The file's bytes on the disk itself, not through VS Code (proves a save reached the disk). */
export async function readDiskText(uri: vscode.Uri): Promise<string> {
  assertFileScheme(uri);
  return await fs.promises.readFile(uri.fsPath, 'utf8');
}

/**
 * The pid of the extension's language server. vscode-languageclient/node forks
 * dist/server.js from the extension host, so it is the child of this process
 * whose command line names <extensionPath>/dist/server.js; /proc tells both.
 * Returns null where there is no /proc (or no such child).
 */
export function serverPid(extensionPath: string): number | null {
  const serverJs = `${extensionPath.replace(/\/$/, '')}/dist/server.js`;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  const children: Array<{ pid: number; exact: boolean }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // fields after "(comm)": state ppid ...; comm itself may hold spaces or parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes(serverJs)) children.push({ pid: Number(entry), exact: true });
      else if (argv.some((arg) => arg.endsWith('/dist/server.js'))) children.push({ pid: Number(entry), exact: false });
    } catch {
      // the process ended while we looked
    }
  }
  const exact = children.filter((child) => child.exact);
  if (exact.length === 1) return exact[0].pid;
  return exact.length === 0 && children.length === 1 ? children[0].pid : null;
}

export function canKillServer(): boolean {
  return fs.existsSync('/proc/self/stat');
}

export function killServer(pid: number): void {
  process.kill(pid, 'SIGKILL');
}

function assertFileScheme(uri: vscode.Uri): void {
  if (uri.scheme !== 'file') throw new Error(`expected a file: URI on a Node host, got ${uri.toString()}`);
}
