// The language server on Node (desktop VS Code, `flux-job-guard lsp --stdio`).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { NodeRepoFs } from './node/node-repo-fs';
import type { RepoFs } from './engine/repo-fs';
import { gitHeadReader } from './node/git-head';
import { workerExecutor } from './node/audit-workers';
import { startServer } from './lsp/server';

const NO_FILES: RepoFs = { listFiles: async () => [], read: async () => ({ kind: 'missing' }) };

const connection = createConnection(ProposedFeatures.all);
// A handler that rejects must not end the server (Node 20 exits on an unhandled rejection).
process.on('unhandledRejection', (reason) => connection.console.error(`Flux Job Guard: unhandled error: ${reason instanceof Error ? reason.stack : String(reason)}`));

startServer(connection, {
  // Only file: folders are on disk. An untitled document's "folder" has the fsPath '' (the
  // process's working folder once resolved), a git: diff view's the repository again: neither
  // may be listed and read.
  repoFs: (root, settings) => (root.scheme === 'file' && root.fsPath !== '' ? new NodeRepoFs(root.fsPath, settings.maxFileSize) : NO_FILES),
  headReader: (root) => (root.scheme === 'file' ? gitHeadReader(root.fsPath) : Promise.resolve(null)),
  // Large repositories are audited in worker threads that read the disk, with the open documents' unsaved text.
  auditExecutor: (root) =>
    root.scheme === 'file' && root.fsPath !== ''
      ? (settings, git, open) => workerExecutor({ root: root.fsPath, maxFileSize: settings.maxFileSize, git, open }, Infinity)
      : undefined,
});
