// The language server on Node (desktop VS Code, `flux-job-guard lsp --stdio`).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { NodeRepoFs } from './node/node-repo-fs';
import type { RepoFs } from './engine/base/repo-fs';
import { gitHeadReader } from './node/git-head';
import { auditInWorker, workerExecutor } from './node/audit-workers';
import { startServer } from './lsp/server';

const NO_FILES: RepoFs = { listFiles: () => Promise.resolve([]), read: () => Promise.resolve({ kind: 'missing' }) };

const connection = createConnection(ProposedFeatures.all);
// A handler that rejects must not end the server (Node 20 exits on an unhandled rejection).
process.on('unhandledRejection', (reason) => connection.console.error(`Flux Job Guard: unhandled error: ${reason instanceof Error ? reason.stack : String(reason)}`));

startServer(connection, {
  // Only file: folders are on disk. An untitled document's "folder" has the fsPath '' (the
  // process's working folder once resolved), a git: diff view's the repository again: neither
  // may be listed and read.
  repoFs: (root, settings) => (root.scheme === 'file' && root.fsPath !== '' ? new NodeRepoFs(root.fsPath, settings.maxFileSize) : NO_FILES),
  headReader: (root) => (root.scheme === 'file' ? gitHeadReader(root.fsPath) : Promise.resolve(null)),
  // The audit runs in a worker thread (which spreads its passes over more) that reads the disk, with the open documents' unsaved text.
  // If that worker fails (out of memory, say), the server audits in its own thread: slower, same result.
  auditRunner: (root) =>
    root.scheme === 'file' && root.fsPath !== ''
      ? (request) =>
          auditInWorker({ ...request, root: root.fsPath })?.catch((error: unknown) => {
            connection.console.warn(`Flux Job Guard: the audit worker failed, auditing in the server's thread: ${error instanceof Error ? error.message : String(error)}`);
            throw error;
          })
      : undefined,
  // A large folder is read and summarised for the index in worker threads (the CLI's), as the
  // audit's pass 1 is: faster on more cores, and the parse garbage never enters the server's heap.
  summarizer: (root) =>
    root.scheme === 'file' && root.fsPath !== ''
      ? async ({ contract, maxFileSize, open, files }) => {
          const warn = (message: string) => connection.console.warn(`Flux Job Guard: ${message}`);
          const executor = workerExecutor({ root: root.fsPath, maxFileSize, git: false, open }, files.length, undefined, warn)?.(contract);
          if (!executor) return undefined;
          try {
            return await executor.summarize(files);
          } finally {
            executor.close();
          }
        }
      : undefined,
});
