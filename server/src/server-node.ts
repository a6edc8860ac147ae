// The language server on Node (desktop VS Code, `flux-job-guard lsp --stdio`).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { NodeRepoFs } from './node/node-repo-fs';
import { gitHeadReader } from './node/git-head';
import { startServer } from './lsp/server';

startServer(createConnection(ProposedFeatures.all), {
  repoFs: (root, settings) => new NodeRepoFs(root.fsPath, settings.maxFileSize),
  headReader: (root) => (root.scheme === 'file' ? gitHeadReader(root.fsPath) : Promise.resolve(null)),
});
