// The language server as a web worker (vscode.dev, github.dev, the web
// workbench of VS Code): the same startServer as on Node, reading workspace
// folders through the client (browser/client-repo-fs.ts).
import { BrowserMessageReader, BrowserMessageWriter, createConnection } from 'vscode-languageserver/browser';
import { ClientRepoFs } from './browser/client-repo-fs';
import { startServer } from './lsp/server';

declare const self: DedicatedWorkerGlobalScope;

const connection = createConnection(new BrowserMessageReader(self), new BrowserMessageWriter(self));
startServer(connection, {
  repoFs: (root, settings) => new ClientRepoFs(connection, root, settings.maxFileSize),
});
