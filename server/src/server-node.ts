// The language server on Node (desktop VS Code, `flux-job-guard lsp --stdio`).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { NodeRepoFs } from './node/node-repo-fs';
import { startServer } from './lsp/server';

startServer(createConnection(ProposedFeatures.all), {
  repoFs: (root, settings) => new NodeRepoFs(root.fsPath, settings.maxFileSize),
});
