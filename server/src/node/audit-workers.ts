// The audit's two passes spread over worker threads (the CLI on Node): each
// worker reads and parses its share of the files; the main thread joins the
// facts into the graph and hands it back for the rules. Results are the same
// as in one thread (tested): only where the work runs changes.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Analyzed, analyzeWaiting, AuditExecutor, indexFrom, IndexData, scanFiles, ScanResult } from '../engine/audit';
import type { FileAnalysis } from '../engine/analyze';
export type { IndexData };
import { OverlayFs, RepoFs } from '../engine/repo-fs';
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

/** Files per message: small enough to balance the load, large enough that messages cost little. */
const BATCH = 100;

/**
 * An executor over `requested` worker threads, by default one per core for
 * large repositories; undefined when threads would not pay for their start.
 */
export function workerExecutor(setup: Omit<WorkerSetup, 'contract'>, fileCount: number, requested?: number): ((contract: Contract) => AuditExecutor) | undefined {
  const size = requested ?? Math.min(availableParallelism(), Math.ceil(fileCount / 2000));
  // Without the worker bundle (a copied CLI), the audit runs in this thread: slower, same result.
  if (size < 2 || !workerScript()) return undefined;
  return (contract) => {
    const pool = new Pool(size, { ...setup, contract });
    /** Which worker read each file (-1: the main thread, after its worker died). */
    const owners = new Map<string, number>();
    // A worker that dies (out of memory on a pathological file, a crash) must not fail the
    // audit: its batches run here instead, with the same functions.
    const here = hereFs(setup);
    return {
      async scan(paths, inputs = false) {
        // Batches go to whichever worker is free, so a few multi-MB files cannot leave one idle.
        const merged: ScanResult = { summaries: [], analyses: [], waiting: [], inputs: [], directives: [] };
        let next = 0;
        const work = async (worker: number) => {
          while (next < paths.length) {
            const batch = paths.slice(next, (next += BATCH));
            let owner = worker;
            let result: ScanResult;
            try {
              result = await pool.call<ScanResult>(worker, { kind: 'scan', paths: batch, inputs });
            } catch {
              owner = -1;
              result = await scanFiles(here, contract, batch, undefined, inputs);
            }
            for (const path of batch) if (!inputs || !owners.has(path)) owners.set(path, owner);
            appendScan(merged, result);
            if (owner === -1) return; // that worker is gone: the others (or this thread) take the rest
          }
        };
        await Promise.all(Array.from({ length: pool.size }, (_, i) => work(i)));
        if (next < paths.length) {
          const rest = paths.slice(next);
          for (const path of rest) owners.set(path, -1);
          appendScan(merged, await scanFiles(here, contract, rest, undefined, inputs));
        }
        return merged;
      },
      async analyze(paths, data) {
        try {
          // Each file goes back to the worker that read it; the worker rebuilds the graph from the facts.
          const parts: string[][] = Array.from({ length: pool.size }, () => []);
          const mine: string[] = [];
          for (const path of paths) {
            const owner = owners.get(path) ?? -1;
            (owner === -1 ? mine : parts[owner]).push(path);
          }
          const analyzeHere = async (list: string[]) => analyzeWaiting(here, contract, indexFrom(data, contract), list, setup.git ? (await gitHeadReader(setup.root)) ?? undefined : undefined);
          const results = await Promise.all([
            ...parts.map((part, i) => (part.length === 0 ? Promise.resolve([]) : pool.call<Analyzed[]>(i, { kind: 'analyze', paths: part, data }).catch(() => analyzeHere(part)))),
            mine.length > 0 ? analyzeHere(mine) : Promise.resolve([]),
          ]);
          return results.flat();
        } finally {
          pool.close();
        }
      },
    };
  };
}

function appendScan(into: ScanResult, more: ScanResult): void {
  for (const key of ['summaries', 'analyses', 'waiting', 'inputs', 'directives'] as const) (into[key] as unknown[]).push(...more[key]);
}

/** The files as the workers see them, for work that falls back to this thread. */
function hereFs(setup: Omit<WorkerSetup, 'contract'>): RepoFs {
  const overlay = new OverlayFs(new NodeRepoFs(setup.root, setup.maxFileSize));
  for (const [path, text] of setup.open ?? []) overlay.open.set(path, text);
  return overlay;
}
