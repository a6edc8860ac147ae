// Browser entry (vscode.dev, github.dev, the web workbench): the server runs
// as a web worker, and since a worker has no file system, the client answers
// its requests to list and read workspace files (server/src/browser/).
import * as vscode from 'vscode';
import { BrowserMessageReader, BrowserMessageWriter, LanguageClient, MessageTransports } from 'vscode-languageclient/browser';
import { SKIPPED_FOLDERS } from '../../server/src/browser/protocol';
import type { ListFilesParams, ListFilesResult, ReadFileParams, ReadFileResult } from '../../server/src/browser/protocol';
import { Requests } from '../../server/src/shared/settings';
import { activateWith, ExtensionApi } from './common';

export function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const serverMain = vscode.Uri.joinPath(context.extensionUri, 'dist', 'browser', 'server.js');
  let worker: Worker | undefined;
  // A new worker for every (re)start. The transports are built here rather than by handing the
  // client a Worker: the web extension host's Worker is its own class, and vscode-languageclient's
  // `instanceof Worker` test fails for it.
  const startWorker = (): Promise<MessageTransports> => {
    worker?.terminate();
    worker = new Worker(serverMain.toString(true));
    return Promise.resolve({ reader: new BrowserMessageReader(worker), writer: new BrowserMessageWriter(worker) });
  };
  context.subscriptions.push({ dispose: () => worker?.terminate() });
  return activateWith(context, (options) => {
    const client = new LanguageClient('fluxJobGuard', 'Flux Job Guard', startWorker, options);
    client.onRequest(Requests.listFiles, (params: ListFilesParams) => listFiles(vscode.Uri.parse(params.folder)));
    client.onRequest(Requests.readFile, (params: ReadFileParams) => readFile(vscode.Uri.parse(params.uri), params.maxFileSize));
    return client;
  });
}

export function deactivate(): void {
  // The client is stopped through the subscription registered in activateWith.
}

const EXCLUDE = `**/{${SKIPPED_FOLDERS.join(',')}}/**`;

async function listFiles(folder: vscode.Uri): Promise<ListFilesResult> {
  const prefix = folder.path.endsWith('/') ? folder.path : folder.path + '/';
  const relative = (uri: vscode.Uri) => (uri.scheme === folder.scheme && uri.authority === folder.authority && uri.path.startsWith(prefix) ? uri.path.slice(prefix.length) : null);
  let uris: vscode.Uri[];
  try {
    uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), EXCLUDE);
  } catch {
    uris = await walk(folder); // no file search for this file system
  }
  return uris.map(relative).filter((path): path is string => path !== null && path !== '');
}

/** Lists files with readDirectory where findFiles cannot; linked folders are not descended. */
async function walk(folder: vscode.Uri): Promise<vscode.Uri[]> {
  const files: vscode.Uri[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: [string, vscode.FileType][];
    try {
      entries = await vscode.workspace.fs.readDirectory(dir);
    } catch {
      continue;
    }
    for (const [name, type] of entries) {
      const uri = vscode.Uri.joinPath(dir, name);
      if (type & vscode.FileType.Directory) {
        if (!(type & vscode.FileType.SymbolicLink) && !SKIPPED_FOLDERS.includes(name)) pending.push(uri);
      } else if (type & vscode.FileType.File) {
        files.push(uri);
      }
    }
  }
  return files;
}

async function readFile(uri: vscode.Uri, maxFileSize: number): Promise<ReadFileResult> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (!(stat.type & vscode.FileType.File)) return null;
    if (stat.size > maxFileSize) return { size: stat.size };
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (bytes.length > maxFileSize) return { size: bytes.length };
    return { base64: toBase64(bytes) };
  } catch {
    return null;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
