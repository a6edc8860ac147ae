// The audit's two passes spread over worker threads (the CLI on Node): each
// worker reads and parses its share of the files; the main thread joins the
// facts into the graph and hands it back for the rules. Results are the same
// as in one thread (tested): only where the work runs changes.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AuditExecutor, ScanResult } from '../engine/audit';
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
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(size: number, setup: Omit<WorkerSetup, 'contract'> & { contract: Contract }) {
    this.workers = Array.from({ length: size }, () => {
      // A bounded heap makes each worker collect its parse garbage early: the CLI stays small.
      const worker = new Worker(workerScript()!, { workerData: setup });
      worker.on('message', (reply: Reply) => {
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
        else waiter?.resolve(reply.result);
      });
      worker.on('error', (error) => {
        for (const waiter of this.pending.values()) waiter.reject(error);
        this.pending.clear();
      });
      return worker;
    });
  }

  get size(): number {
    return this.workers.length;
  }

  call<T>(worker: number, message: object): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.workers[worker].postMessage({ id, ...message });
    });
  }

  close(): void {
    for (const worker of this.workers) void worker.terminate();
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
    const owners = new Map<string, number>();
    return {
      async scan(paths) {
        // Batches go to whichever worker is free, so a few multi-MB files cannot leave one idle.
        const merged: ScanResult = { facts: [], analyses: [], waiting: [] };
        let next = 0;
        const work = async (worker: number) => {
          while (next < paths.length) {
            const batch = paths.slice(next, (next += BATCH));
            const result = await pool.call<ScanResult>(worker, { kind: 'scan', paths: batch });
            for (const path of batch) owners.set(path, worker);
            merged.facts.push(...result.facts);
            merged.analyses.push(...result.analyses);
            merged.waiting.push(...result.waiting);
          }
        };
        await Promise.all(Array.from({ length: pool.size }, (_, i) => work(i)));
        return merged;
      },
      async analyze(paths, files, facts) {
        try {
          // Each file goes back to the worker that read it; the worker rebuilds the graph from the facts.
          const parts: string[][] = Array.from({ length: pool.size }, () => []);
          for (const path of paths) parts[owners.get(path) ?? 0].push(path);
          const results = await Promise.all(parts.map((part, i) => pool.call<Array<[string, unknown]>>(i, { kind: 'analyze', paths: part, files, facts })));
          return results.flat() as Awaited<ReturnType<AuditExecutor['analyze']>>;
        } finally {
          pool.close();
        }
      },
    };
  };
}
