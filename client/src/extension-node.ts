// Desktop entry: the server runs as a Node process over IPC.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind } from 'vscode-languageclient/node';
import { activateWith, ExtensionApi } from './common';

export function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const serverModule = vscode.Uri.joinPath(context.extensionUri, 'dist', 'server.js').fsPath;
  return activateWith(
    context,
    (options) =>
      new LanguageClient(
        'fluxJobGuard',
        'Flux Job Guard',
        {
          run: { module: serverModule, transport: TransportKind.ipc },
          debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
        },
        options,
      ),
  );
}

export function deactivate(): void {
  // The client is stopped through the subscription registered in activateWith.
}
