// The CLI's --cache: each file's summary (what the repository index takes of it) kept on disk
// between runs, under a digest of the file's text, as ESLint and Ruff keep their results. A
// summary is a pure function of the path and the text, so a kept one is used wherever the text's
// digest is the one it was made of; the engine that made it must be this one (its code's digest),
// else the whole cache is dropped. Used by the changed-only audit (--changed-since, --staged),
// whose time otherwise goes mostly to reading and summarising every file of the repository.
//
// Each summary is kept as its own serialized bytes: the index keeps and may change the objects it
// is given, and what is written back is what was made, not what the run did to it.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { SummaryStore } from '../engine/pipeline/audit';
import type { FileSummary } from '../engine/pipeline/file-summary';

/** The cache folder's name, in the audited folder by default; the file listing skips it. */
export const CACHE_FOLDER = '.flux-job-guard-cache';

/** The file in the cache folder; its name changes with the format. */
const CACHE_FILE = 'summaries-1.bin';

/** The digest of a text (the key of its summary). */
export function textKey(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/** The digest of the running code: a summary made by other code is not this code's. */
export function engineKey(codeFile: string = __filename): string {
  try {
    return createHash('sha256').update(readFileSync(codeFile)).digest('base64');
  } catch {
    return '';
  }
}

interface CacheFile {
  engine: string;
  entries: Array<[path: string, key: string, summary: Uint8Array]>;
}

export class SummaryCache implements SummaryStore {
  readonly keyOf = textKey;
  private readonly entries = new Map<string, { key: string; bytes: Uint8Array }>();
  /** The paths this run asked for or kept: only those are written back (the files of now). */
  private readonly used = new Set<string>();
  private changed = false;

  private constructor(
    readonly file: string,
    private readonly engine: string,
  ) {}

  /** The cache in `folder` (made at save), empty where there is none, it cannot be read, or another engine wrote it. */
  static open(folder: string, engine: string = engineKey()): SummaryCache {
    const cache = new SummaryCache(join(folder, CACHE_FILE), engine);
    let stored: CacheFile | undefined;
    try {
      stored = deserialize(readFileSync(cache.file)) as CacheFile;
    } catch {
      return cache; // none yet, or unreadable: every summary is made again, and the file rewritten
    }
    if (stored?.engine !== engine || engine === '' || !Array.isArray(stored.entries)) return cache;
    for (const [path, key, bytes] of stored.entries) cache.entries.set(path, { key, bytes });
    return cache;
  }

  keyFor(path: string): string | undefined {
    this.used.add(path);
    return this.entries.get(path)?.key;
  }

  summaryOf(path: string): FileSummary {
    const entry = this.entries.get(path);
    if (!entry) throw new Error(`no summary is kept for ${path}`);
    return deserialize(entry.bytes) as FileSummary;
  }

  set(path: string, key: string, summary: FileSummary): void {
    this.used.add(path);
    this.entries.set(path, { key, bytes: serialize(summary) });
    this.changed = true;
  }

  /**
   * Writes the summaries of the files this run met (the rest are gone or were not asked for),
   * where anything changed. The folder gets a .gitignore that ignores all of it, as Ruff's does,
   * so the cache is never committed; the file is replaced whole, never left half written.
   */
  save(): void {
    const dropped = [...this.entries.keys()].some((path) => !this.used.has(path));
    if (!this.changed && !dropped) return;
    const entries: CacheFile['entries'] = [...this.used].flatMap((path) => {
      const entry = this.entries.get(path);
      return entry ? [[path, entry.key, entry.bytes]] : [];
    });
    const folder = dirname(this.file);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '.gitignore'), '# written by flux-job-guard --cache\n*\n');
    const partial = `${this.file}.${process.pid}.tmp`;
    writeFileSync(partial, serialize({ engine: this.engine, entries } satisfies CacheFile));
    renameSync(partial, this.file);
  }
}
