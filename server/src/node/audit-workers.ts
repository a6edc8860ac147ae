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
function workerScript(): string {
  for (const candidate of [join(__dirname, 'audit-worker.js'), join(__dirname, '..', 'audit-worker.js')]) if (existsSync(candidate)) return candidate;
  throw new Error('audit-worker.js not found next to the CLI');
}

class Pool {
  private readonly workers: Worker[];
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(size: number, setup: Omit<WorkerSetup, 'contract'> & { contract: Contract }) {
    this.workers = Array.from({ length: size }, () => {
      // A bounded heap makes each worker collect its parse garbage early: the CLI stays small.
      const worker = new Worker(workerScript(), { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: 256 } });
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

/** Every n-th path to worker n: big and small files spread evenly enough. */
function share<T>(items: T[], parts: number): T[][] {
  const out: T[][] = Array.from({ length: parts }, () => []);
  items.forEach((item, i) => out[i % parts].push(item));
  return out;
}

/**
 * An executor over `requested` worker threads, by default one per core for
 * large repositories; undefined when threads would not pay for their start.
 */
export function workerExecutor(setup: Omit<WorkerSetup, 'contract'>, fileCount: number, requested?: number): ((contract: Contract) => AuditExecutor) | undefined {
  const size = requested ?? Math.min(availableParallelism(), Math.ceil(fileCount / 2000));
  if (size < 2) return undefined;
  return (contract) => {
    const pool = new Pool(size, { ...setup, contract });
    let owners = new Map<string, number>();
    return {
      async scan(paths) {
        const parts = share(paths, pool.size);
        const results = await Promise.all(parts.map((part, i) => pool.call<ScanResult>(i, { kind: 'scan', paths: part })));
        owners = new Map(parts.flatMap((part, i) => part.map((path) => [path, i] as [string, number])));
        return { facts: results.flatMap((r) => r.facts), analyses: results.flatMap((r) => r.analyses), waiting: results.flatMap((r) => r.waiting) };
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
