// The CLI's --cache: each file's summary (what the repository index takes of it) kept on disk
// between runs, under a digest of the file's text, as ESLint and Ruff keep their results. A
// summary is a pure function of the path and the text, so a kept one is used wherever the text's
// digest is the one it was made of; the engine that made it must be this one (its code's digest),
// else the whole cache is dropped. Used by the changed-only audit (--changed-since, --staged),
// whose time otherwise goes mostly to reading and summarising every file of the repository. The
// digest is git's blob id (git-blob-keys.ts): where git says a file is unchanged, its kept summary
// is used without the file being read at all.
//
// Each summary is kept as its own serialized bytes: the index keeps and may change the objects it
// is given, and what is written back is what was made, not what the run did to it.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { KeptSummary, SummaryStore } from '../engine/pipeline/audit';
import type { FileSummary } from '../engine/pipeline/file-summary';
import type { JobRecord } from '../engine/pipeline/analyze';
import type { Results } from '../engine/pipeline/index-memo';
import type { InputFacts } from '../engine/flux/facts/model';
import { textKey } from './git-blob-keys';
import { git } from './git-head';
import { MODEL_FILE, readModelFile, writeFramed, writeModelFile } from './model-file';
import type { KeptModelData, KeptModelSource, ModelStore } from '../engine/pipeline/kept-model';

/** The cache folder's name, in the audited folder by default; the file listing skips it. */
export const CACHE_FOLDER = '.flux-job-guard-cache';

/** The file in the cache folder (a cache of another format is another engine's: dropped, see Header.engine). */
const CACHE_FILE = 'summaries-1.bin';

/**
 * Why the cache folder must not be used (null: it may be). A symbolic link would send the writes
 * where it points. Files git tracks there came with the repository, not from an earlier run: a
 * cache committed in a pull request could carry summaries made up to hide findings.
 */
export async function refusedCacheFolder(folder: string): Promise<string | null> {
  let link: boolean;
  try {
    link = lstatSync(folder).isSymbolicLink();
  } catch {
    return null; // not there yet: the first save makes it
  }
  if (link) return `the cache folder ${folder} is a symbolic link`;
  const tracked = await git(folder, ['ls-files', '-z', '--', '.']);
  return tracked.ok && tracked.stdout !== '' ? `git tracks files in the cache folder ${folder} (they came with the repository, not from an earlier run)` : null;
}

/** The digest of the running code: a summary made by other code is not this code's. */
export function engineKey(codeFile: string = __filename): string {
  try {
    return createHash('sha256').update(readFileSync(codeFile)).digest('base64');
  } catch {
    return '';
  }
}

/** The file: the length of its header (4 bytes), the header, then every summary's bytes in a row. */
interface Header {
  engine: string;
  /**
   * Each file's path, the key of its text, where its summary's bytes end, counted from the first
   * summary's start (each starts where the one before ends), whether its text says Job, and what
   * runs kept of its text beyond the summary (Results: its Jobs, the names it uses, ...).
   */
  entries: Array<[path: string, key: string, end: number, mentionsJob: boolean, results: Partial<Results> | null]>;
}

export class SummaryCache implements SummaryStore, ModelStore {
  readonly keyOf = textKey;
  /** Each summary's bytes: a view of the file read (no copy), or those made in this run. */
  private read: Map<string, Entry> | undefined;
  /** The keys of texts known without reading them (presume): git's blob ids of unchanged files. */
  private presumed: ReadonlyMap<string, string> = new Map<string, string>();
  /** The paths this run asked for or kept: only those are written back (the files of now). */
  private readonly used = new Set<string>();
  /** The paths whose kept summary is known to be of the text the file has now: only their results are used and kept. */
  private readonly current = new Set<string>();
  private changed = false;
  /** The model this run built, to keep (kept-model.ts). */
  private model: KeptModelData | undefined;

  private constructor(
    readonly file: string,
    private readonly engine: string,
  ) {}

  /** The cache in `folder` (made at save), empty where there is none, it cannot be read, or another engine wrote it. Read when first asked. */
  static open(folder: string, engine: string = engineKey()): SummaryCache {
    return new SummaryCache(join(folder, CACHE_FILE), engine);
  }

  /** The kept summaries, read at the first question: a run that uses the kept model asks none. */
  private get entries(): Map<string, Entry> {
    return (this.read ??= readEntries(this.file, this.engine));
  }

  keyFor(path: string): string | undefined {
    this.used.add(path);
    return this.entries.get(path)?.key;
  }

  /** Takes the keys of the files whose texts are known without reading them (git-blob-keys.ts). */
  presume(keys: ReadonlyMap<string, string>): void {
    // The usual single call takes the map as it is: no copy of 20,000 keys.
    this.presumed = this.presumed.size === 0 ? keys : new Map([...this.presumed, ...keys]);
  }

  unread(path: string): KeptSummary | undefined {
    const key = this.presumed.get(path);
    const entry = this.entries.get(path);
    if (key === undefined || entry?.key !== key) return undefined;
    const summary = this.summaryOf(path);
    if (!summary) return undefined;
    this.used.add(path);
    this.current.add(path);
    return { summary, mentionsJob: entry.mentionsJob };
  }

  /** Asked for where the caller found the file's text to be the kept one (its key): from then on its kept results are used too. */
  summaryOf(path: string): FileSummary | undefined {
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    try {
      const value: unknown = deserialize(entry.bytes);
      if (!isSummary(value)) return undefined;
      this.current.add(path);
      return value;
    } catch {
      // damaged bytes: the caller makes the summary again
    }
    return undefined;
  }

  set(path: string, key: string, summary: FileSummary, mentionsJob: boolean): void {
    this.used.add(path);
    this.entries.set(path, { key, bytes: serialize(summary), mentionsJob });
    this.current.add(path);
    this.changed = true;
  }

  resultOf<K extends keyof Results>(key: K, path: string): Results[K] | undefined {
    const kept = this.current.has(path) ? this.entries.get(path)?.results?.[key] : undefined;
    return kept === undefined ? undefined : structuredClone(kept);
  }

  keepResult<K extends keyof Results>(key: K, path: string, value: Results[K]): void {
    const entry = this.entries.get(path);
    if (!entry || !this.current.has(path)) return;
    this.used.add(path);
    entry.results = { ...entry.results, [key]: structuredClone(value) };
    this.changed = true;
  }

  presumedKey(path: string): string | undefined {
    return this.presumed.get(path);
  }

  keptModel(setting: string): KeptModelSource | undefined {
    return this.engine === '' ? undefined : readModelFile(join(dirname(this.file), MODEL_FILE), this.engine, setting);
  }

  keepModel(model: KeptModelData): void {
    this.model = model;
  }

  /**
   * Writes the summaries of the files this run met (the rest are gone or were not asked for),
   * where anything changed, and the model the run built. A run that asked for no summary (it used
   * the kept model) leaves them as they are. The folder gets a .gitignore that ignores all of it,
   * as Ruff's does, so the cache is never committed; each file is replaced whole, never left half written.
   */
  save(): void {
    const dropped = this.used.size > 0 && [...this.entries.keys()].some((path) => !this.used.has(path));
    if (this.model) this.replace(join(dirname(this.file), MODEL_FILE), (file) => writeModelFile(file, this.engine, this.model!));
    if (!this.changed && !dropped) return;
    const kept = [...this.used].flatMap((path) => {
      const entry = this.entries.get(path);
      return entry ? [{ path, ...entry }] : [];
    });
    let end = 0;
    const header = serialize({
      engine: this.engine,
      entries: kept.map(({ path, key, bytes, mentionsJob, results }) => [path, key, (end += bytes.length), mentionsJob, results ?? null]),
    } satisfies Header);
    this.replace(this.file, (file) =>
      writeFramed(
        file,
        header,
        kept.map((entry) => entry.bytes),
      ),
    );
  }

  /** Writes one of the cache's files through a file of its own, then puts it in place. */
  private replace(file: string, write: (partial: string) => void): void {
    const folder = dirname(file);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '.gitignore'), '# written by flux-job-guard --cache\n*\n');
    const partial = `${file}.${process.pid}.tmp`;
    write(partial);
    renameSync(partial, file);
  }
}

/** The entries of the cache file (none where there is none, it cannot be read, or another engine wrote it). */
function readEntries(file: string, engine: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  if (engine === '') return entries;
  try {
    const bytes = readFileSync(file);
    const headerEnd = 4 + bytes.readUInt32LE(0);
    const header = deserialize(bytes.subarray(4, headerEnd)) as Header;
    if (header.engine !== engine) return entries;
    const summaries = bytes.subarray(headerEnd);
    let start = 0;
    for (const [path, key, end, mentionsJob, results] of header.entries) {
      if (end < start || end > summaries.length) throw new Error('the cache is cut short');
      entries.set(path, { key, bytes: summaries.subarray(start, end), mentionsJob: mentionsJob === true, results: validResults(results) });
      start = end;
    }
  } catch {
    entries.clear(); // none yet, or unreadable: every summary is made again, and the file rewritten
  }
  return entries;
}

/** A kept summary: its text's key, its bytes (a view of the file read, or made in this run), whether its text says Job, what else was kept of its text. */
interface Entry {
  key: string;
  bytes: Uint8Array;
  mentionsJob: boolean;
  results?: Partial<Results>;
}

/** Enough of a FileSummary's shape to tell it from bytes that happen to deserialise to something else. */
function isSummary(value: unknown): value is FileSummary {
  return typeof value === 'object' && value !== null && 'facts' in value && Array.isArray((value as { uses?: unknown }).uses);
}

/** The results kept with a summary, each where it has the shape its maker gives it (anything else is not used). */
function validResults(value: unknown): Partial<Results> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { jobs, names, input } = value as Record<string, unknown>;
  const results: Partial<Results> = {};
  if (isJobRecords(jobs)) results.jobs = jobs;
  if (isStrings(names)) results.names = names;
  if (
    typeof input === 'object' &&
    input !== null &&
    (input as Partial<InputFacts>).env instanceof Map &&
    isStrings((input as Partial<InputFacts>).uses) &&
    isStrings((input as Partial<InputFacts>).envUses)
  )
    results.input = input as InputFacts;
  return results;
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Job records as jobRecordsIn makes them. */
function isJobRecords(value: unknown): value is JobRecord[] {
  const isRecord = (item: unknown) => {
    if (typeof item !== 'object' || item === null) return false;
    const { name, ttl } = item as Partial<JobRecord>;
    return (name === null || typeof name === 'string') && (ttl === null || (typeof ttl === 'object' && ttl !== undefined && (ttl.value === null || typeof ttl.value === 'number')));
  };
  return Array.isArray(value) && value.every(isRecord);
}
