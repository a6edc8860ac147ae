// One audit worker thread (see node/audit-workers.ts): it reads and parses
// its share of the repository for pass 1, keeps the texts that need rules,
// and analyses them in pass 2 with the graph the main thread completed.
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { analyzeWaiting, indexFrom, IndexData, scanFiles } from './engine/audit';
import { gitHeadReader } from './node/git-head';
import type { WorkerSetup } from './node/audit-workers';
import { NodeRepoFs } from './node/node-repo-fs';
import { OverlayFs } from './engine/repo-fs';

const setup = workerData as WorkerSetup;
const overlay = new OverlayFs(new NodeRepoFs(setup.root, setup.maxFileSize));
for (const [path, text] of setup.open ?? []) overlay.open.set(path, text);
const fs = overlay;
const kept = new Map<string, string>();
const head = setup.git ? gitHeadReader(setup.root) : Promise.resolve(null);

// Tests prove a dying worker does not fail the audit: this one dies on its first message.
const crashOnPurpose = process.env.FLUX_JOB_GUARD_TEST_CRASH_WORKER === '1' && threadId === 1;

parentPort!.on('message', async (message: { id: number; kind: 'scan' | 'analyze'; paths: string[]; inputs?: boolean; data?: IndexData }) => {
  if (crashOnPurpose) process.exit(3);
  try {
    const result =
      message.kind === 'scan'
        ? await scanFiles(fs, setup.contract, message.paths, kept, message.inputs)
        : await analyzeWaiting(fs, setup.contract, indexFrom(message.data!, setup.contract), message.paths, (await head) ?? undefined, kept);
    parentPort!.postMessage({ id: message.id, result });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
});
