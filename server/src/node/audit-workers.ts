// The audit's two passes spread over worker threads (the CLI on Node): each
// worker reads and parses its share of the files; the main thread joins the
// facts into the graph and hands it back for the rules. Results are the same
// as in one thread (tested): only where the work runs changes.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  Analyzed,
  analyzeWaiting,
  AuditExecutor,
  AuditResult,
  FILES_PER_THREAD,
  scanFiles,
  ScanResult,
  summarizeFiles,
  summarizeKeyed,
  type KeyedSummary,
  type Summarized,
} from '../engine/pipeline/audit';
import { textKey } from './git-blob-keys';
import type { Settings } from '../engine/contract/model';
import type { FileContext, HeadReader } from '../engine/pipeline/repo-analysis';
import type { AccountList, ServiceAccountCreator } from '../engine/pipeline/repo-index';
import type { Builder } from '../engine/flux/model/world';
import { OverlayFs, RepoFs } from '../engine/base/repo-fs';
import { NodeRepoFs } from './node-repo-fs';
import { gitHeadReader } from './git-head';
import type { Contract } from '../engine/contract/model';

export interface WorkerSetup {
  root: string;
  maxFileSize: number;
  git: boolean;
  contract: Contract;
  /** Texts that shadow the disk (documents open in the editor). */
  open?: Array<[string, string]>;
}

type Reply = { id: number; result?: unknown; error?: string };

/** The worker script: dist/audit-worker.js next to the bundle, or out/server/src/audit-worker.js in tests. */
function workerScript(): string | undefined {
  return [join(__dirname, 'audit-worker.js'), join(__dirname, '..', 'audit-worker.js')].find((candidate) => existsSync(candidate));
}

class Pool {
  private readonly workers: Worker[];
  private readonly dead = new Set<number>();
  private next = 0;
  private readonly pending = new Map<number, { worker: number; resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(size: number, setup: WorkerSetup) {
    this.workers = Array.from({ length: size }, (_, index) => {
      // A bounded heap makes each worker collect its parse garbage early: the CLI stays small.
      const worker = new Worker(workerScript()!, { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
      worker.on('message', (reply: Reply) => {
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
        else waiter?.resolve(reply.result);
      });
      const die = (error: Error) => {
        this.dead.add(index);
        for (const [id, waiter] of this.pending) {
          if (waiter.worker !== index) continue;
          this.pending.delete(id);
          waiter.reject(error);
        }
      };
      worker.on('error', die);
      worker.on('exit', (code) => die(new Error(`audit worker ${index} exited (${code})`)));
      return worker;
    });
  }

  get size(): number {
    return this.workers.length;
  }

  call<T>(worker: number, message: object): Promise<T> {
    if (this.dead.has(worker)) return Promise.reject(new Error(`audit worker ${worker} is gone`));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { worker, resolve: resolve as (value: unknown) => void, reject });
      this.workers[worker].postMessage({ id, ...message });
    });
  }

  close(): void {
    for (const worker of this.workers) {
      worker.removeAllListeners('exit');
      void worker.terminate();
    }
  }
}

/** A whole audit in a worker thread: where, with which settings, and the unsaved texts. */
export interface WholeAuditSetup extends Omit<WorkerSetup, 'contract'> {
  contractPath: string;
  settings: Settings;
}

/**
 * Runs the whole audit in a worker thread of its own (it spreads its passes
 * over more): its model, texts and parse garbage leave with it. Undefined
 * without the worker bundle.
 */
export function auditInWorker(setup: WholeAuditSetup): Promise<Pick<AuditResult, 'findings' | 'summary' | 'jobs'>> | undefined {
  const script = workerScript();
  if (!script) return undefined;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { ...setup, role: 'audit' } });
    worker.once('message', (reply: { result?: Pick<AuditResult, 'findings' | 'summary' | 'jobs'>; error?: string }) => {
      void worker.terminate();
      if (reply.result) resolve(reply.result);
      else reject(new Error(reply.error ?? 'the audit worker answered nothing'));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the audit worker exited (${code})`)));
  });
}

/** Files per message: small enough to balance the load, large enough that messages cost little. */
const BATCH = 100;

/**
 * An executor over `requested` worker threads, by default one per core for
 * large repositories; undefined when threads would not pay for their start.
 */
export function workerExecutor(
  setup: Omit<WorkerSetup, 'contract'>,
  fileCount: number,
  requested?: number,
  warn: (message: string) => void = () => undefined,
): ((contract: Contract) => AuditExecutor) | undefined {
  const size = requested ?? Math.min(availableParallelism(), Math.ceil(fileCount / FILES_PER_THREAD));
  // Without the worker bundle (a copied CLI), the audit runs in this thread: slower, same result.
  if (size < 2 || !workerScript()) return undefined;
  return (contract) => {
    const pool = new Pool(size, { ...setup, contract });
    /** Which worker read each file (-1: the main thread, after its worker died). */
    const owners = new Map<string, number>();
    // A worker that dies (out of memory on a pathological file, a crash) must not fail the
    // audit: its batches run here instead, with the same functions.
    const here = hereFs(setup);
    // Said, not hidden: a failure that is no crash (a context that cannot cross threads) would
    // otherwise quietly put every file's work on this one thread.
    const failed = (worker: number, error: unknown) => warn(`audit worker ${worker} failed (${error instanceof Error ? error.message : String(error)}); its files are audited in the main thread`);
    /**
     * `paths` in batches, each to whichever worker is free (a few multi-MB files cannot leave one
     * idle), `here` in this thread for a batch whose worker failed and for what no worker took.
     */
    const spread = async <T>(paths: string[], message: (batch: string[]) => object, here: (batch: string[]) => Promise<T>, done: (batch: string[], result: T, owner: number) => void) => {
      let next = 0;
      const work = async (worker: number) => {
        while (next < paths.length) {
          const batch = paths.slice(next, (next += BATCH));
          try {
            done(batch, await pool.call<T>(worker, { ...message(batch), paths: batch }), worker);
          } catch (error) {
            failed(worker, error);
            done(batch, await here(batch), -1);
            return; // that worker is gone: the others (or this thread) take the rest
          }
        }
      };
      await Promise.all(Array.from({ length: pool.size }, (_, i) => work(i)));
      if (next < paths.length) {
        const rest = paths.slice(next);
        done(rest, await here(rest), -1);
      }
    };
    return {
      async scan(paths, inputs = false) {
        const merged: ScanResult = { summaries: [], analyses: [], waiting: [], inputs: [], directives: [] };
        await spread(
          paths,
          () => ({ kind: 'scan', inputs }),
          (batch) => scanFiles(here, contract, batch, undefined, inputs),
          (batch, result, owner) => {
            for (const path of batch) if (!inputs || !owners.has(path)) owners.set(path, owner);
            appendScan(merged, result);
          },
        );
        return merged;
      },
      async summarize(paths) {
        const out: Summarized[] = [];
        await spread(
          paths,
          () => ({ kind: 'summarize' }),
          (batch) => summarizeFiles(here, batch),
          (_, result) => void out.push(...result),
        );
        return out;
      },
      async summarizeKeyed(paths, known) {
        const out: KeyedSummary[] = [];
        await spread(
          paths,
          // Each batch with the keys of its own files, not the whole map.
          (batch) => ({ kind: 'summarize', known: batch.flatMap((path) => (known.has(path) ? [[path, known.get(path)!]] : [])) }),
          (batch) => summarizeKeyed(here, batch, textKey, known),
          (_, result) => void out.push(...result),
        );
        return out;
      },
      close: () => pool.close(),
      async analyze(contexts, accounts) {
        try {
          // Each file goes first to the worker that read it (its text is there, maybe its parse);
          // a worker with nothing left of its own takes from the longest queue, so none idles.
          const queues: FileContext[][] = Array.from({ length: pool.size }, () => []);
          const mine: FileContext[] = [];
          for (const context of contexts) {
            const owner = owners.get(context.file) ?? -1;
            (owner === -1 ? mine : queues[owner]).push(context);
          }
          let headHere: Promise<HeadReader | null> | undefined; // git only if a file falls back to this thread
          const analyzeHere = async (list: FileContext[]) =>
            list.length === 0 ? [] : analyzeWaiting(here, contract, list, accounts, (await (headHere ??= setup.git ? gitHeadReader(setup.root) : Promise.resolve(null))) ?? undefined);
          const results: Analyzed[][] = [];
          const shared = sharedData(contexts, accounts);
          const lean = travelling(shared);
          const work = async (worker: number) => {
            try {
              await pool.call(worker, { kind: 'shared', ...shared });
            } catch (error) {
              failed(worker, error);
              return;
            }
            for (let batch = nextBatch(queues, worker); batch.length > 0; batch = nextBatch(queues, worker)) {
              try {
                results.push(await pool.call<Analyzed[]>(worker, { kind: 'analyze', contexts: batch.map(lean) }));
              } catch (error) {
                failed(worker, error);
                results.push(await analyzeHere(batch)); // that worker is gone: the others take the rest
                return;
              }
            }
          };
          await Promise.all([...queues.map((_, worker) => work(worker)), analyzeHere(mine).then((here) => void results.push(here))]);
          // Whatever no live worker took (all of them died) runs here.
          for (const queue of queues) if (queue.length > 0) results.push(await analyzeHere(queue.splice(0)));
          return results.flat();
        } finally {
          pool.close();
        }
      },
    };
  };
}

/**
 * What every pass-2 batch of a worker reads, sent to it once: the ServiceAccounts the repository
 * declares; per world the Kustomizations whose postBuild defines each name (the definers of
 * FluxFileContext); and what may create the accounts pods run as (accountCreators). A world's
 * definers are the same for each of its files and can be megabytes (thousands of Kustomizations
 * defining the same names): cloned into every file's context, they made the main thread spend
 * longer posting messages than the workers spent auditing. The creators likewise: every chart of a
 * repository is a candidate for each pod file nothing applies (37 MB of the corpus's contexts).
 */
export interface SharedData {
  accounts: AccountList;
  definers: Map<number, ReadonlyMap<string, readonly Builder[]>>;
  creators: ServiceAccountCreator[];
}

/** A file's context as it crosses to a worker: the worlds whose definers it reads and the numbers of its creators, not those. */
export type TravellingContext = FileContext & { definerWorlds?: number[]; creatorIds?: number[] };

/** What the contexts read of definers and creators, once each (creators by identity: the index gives each placement as one object). */
export function sharedData(contexts: readonly FileContext[], accounts: AccountList): SharedData {
  const definers: SharedData['definers'] = new Map();
  const creators = new Set<ServiceAccountCreator>();
  for (const context of contexts) {
    for (const [world, byName] of context.flux?.definers ?? []) definers.set(world, byName);
    for (const creator of context.accountCreators ?? []) creators.add(creator);
  }
  return { accounts, definers, creators: [...creators] };
}

/** Makes contexts lean for the trip: what `shared` holds leaves them, a reference stays (fullContext puts it back). */
export function travelling(shared: SharedData): (context: FileContext) => TravellingContext {
  const ids = new Map(shared.creators.map((creator, id) => [creator, id]));
  return (context) => {
    let lean: TravellingContext = context;
    const definers = context.flux?.definers;
    if (definers) lean = { ...lean, flux: { ...context.flux!, definers: undefined }, definerWorlds: [...definers.keys()] };
    if (context.accountCreators && context.accountCreators.length > 0) lean = { ...lean, accountCreators: [], creatorIds: context.accountCreators.map((creator) => ids.get(creator)!) };
    return lean;
  };
}

/** The context a worker analyses: what travelling() took out put back from what was shared (the same data). */
export function fullContext(context: TravellingContext, shared: SharedData): FileContext {
  const { definerWorlds, creatorIds, ...rest } = context;
  let full: FileContext = rest;
  if (definerWorlds && rest.flux) full = { ...full, flux: { ...rest.flux, definers: new Map(definerWorlds.map((world) => [world, shared.definers.get(world)!])) } };
  if (creatorIds) full = { ...full, accountCreators: creatorIds.map((id) => shared.creators[id]) };
  return full;
}

/** Files per pass-2 message: small, so the last batches balance the threads. */
const ANALYZE_BATCH = 50;

/** The next files for `worker`: its own first, then the end of the longest queue. */
function nextBatch(queues: FileContext[][], worker: number): FileContext[] {
  if (queues[worker].length > 0) return queues[worker].splice(0, ANALYZE_BATCH);
  const longest = queues.reduce((a, b) => (b.length > a.length ? b : a));
  return longest.splice(Math.max(0, longest.length - ANALYZE_BATCH));
}

function appendScan(into: ScanResult, more: ScanResult): void {
  for (const key of ['summaries', 'analyses', 'waiting', 'inputs', 'directives'] as const) (into[key] as unknown[]).push(...more[key]);
}

/** The files as the workers see them, for work that falls back to this thread. */
function hereFs(setup: Omit<WorkerSetup, 'contract'>): RepoFs {
  const overlay = new OverlayFs(new NodeRepoFs(setup.root, setup.maxFileSize, true));
  for (const [path, text] of setup.open ?? []) overlay.open.set(path, text);
  return overlay;
}
