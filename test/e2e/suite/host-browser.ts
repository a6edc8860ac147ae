// The web build's host (the extension host is a web worker in the page): no
// disk and no processes. The workspace is vscode-test-web's mount, whose
// writes stay in memory, so "the disk" is what workspace.fs reads back.
import * as vscode from 'vscode';

export const runtime = 'browser' as const;

export async function readDiskText(uri: vscode.Uri): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

export function serverPid(_extensionPath: string): number | null {
  return null;
}

/** The server is a web worker only the client can end: nothing to kill from the outside. */
export function canKillServer(): boolean {
  return false;
}

export function killServer(_pid: number): void {
  throw new Error('no processes in the browser');
}
