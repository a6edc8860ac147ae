// One audit worker thread (see node/audit-workers.ts): it reads and parses
// its share of the repository for pass 1, keeps the texts that need rules
// (and the parses it made, within a budget), and analyses files in pass 2
// with what the main thread's model says of each.
import { parentPort, workerData } from 'node:worker_threads';
import { audit, analyzeWaiting, KeptFiles, PARSE_BUDGET_CHARS, scanFiles, summarizeFiles, summarizeKeyed } from './engine/pipeline/audit';
import { textKey } from './node/git-blob-keys';
import { gitHeadReader } from './node/git-head';
import { fullContext, SharedData, TravellingContext, WholeAuditSetup, WorkerSetup, workerExecutor } from './node/audit-workers';
import { NodeRepoFs } from './node/node-repo-fs';
import { OverlayFs } from './engine/base/repo-fs';

const setup = workerData as WorkerSetup & Partial<WholeAuditSetup> & { role?: 'audit' };
const overlay = new OverlayFs(new NodeRepoFs(setup.root, setup.maxFileSize, true));
for (const [path, text] of setup.open ?? []) overlay.open.set(path, text);
const fs = overlay;
const kept = new KeptFiles(PARSE_BUDGET_CHARS.worker);
const head = setup.git ? gitHeadReader(setup.root) : Promise.resolve(null);
/** What every file of pass 2 reads, sent once before it. */
let shared: SharedData = { accounts: [], definers: new Map(), creators: [] };

type Message =
  | { id: number; kind: 'scan'; paths: string[]; inputs?: boolean }
  | { id: number; kind: 'summarize'; paths: string[]; known?: Array<[path: string, key: string]> }
  | ({ id: number; kind: 'shared' } & SharedData)
  | { id: number; kind: 'analyze'; contexts: TravellingContext[] };

async function handle(message: Message): Promise<unknown> {
  switch (message.kind) {
    case 'scan':
      return scanFiles(fs, setup.contract, message.paths, kept, message.inputs);
    case 'summarize':
      // posted: the message's copy is detached
      return message.known ? summarizeKeyed(fs, message.paths, textKey, new Map(message.known), true) : summarizeFiles(fs, message.paths, true);
    case 'shared':
      shared = { accounts: message.accounts, definers: message.definers, creators: message.creators };
      return null;
    case 'analyze': {
      const contexts = message.contexts.map((context) => fullContext(context, shared));
      return analyzeWaiting(fs, setup.contract, contexts, shared.accounts, (await head) ?? undefined, kept);
    }
  }
}

/** The language server's audit: all of it here, the passes in workers of its own; only the findings go back. */
async function wholeAudit(): Promise<void> {
  try {
    const head = setup.git ? ((await gitHeadReader(setup.root)) ?? undefined) : undefined;
    const executor = workerExecutor({ root: setup.root, maxFileSize: setup.maxFileSize, git: setup.git, open: setup.open }, Infinity, undefined, (message) => console.error(message));
    const result = await audit(fs, { contractPath: setup.contractPath, settings: setup.settings, head, executor });
    parentPort!.postMessage({ result: { findings: result.findings, summary: result.summary, jobs: result.jobs } });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}

if (setup.role === 'audit') void wholeAudit();
else parentPort!.on('message', (message: Message) => void answer(message));

async function answer(message: Message): Promise<void> {
  try {
    parentPort!.postMessage({ id: message.id, result: await handle(message) });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}
