// What building a repository index computes of each file beyond its summary (the names it uses, a
// generator input's facts), and what the changed-only audit counts of it (its Jobs), kept two ways:
// for the index of another revision of the same repository, in one run (IndexMemo: `audit
// --changed-since` models the repository now and at the revision, which differ in a few files;
// the summaries themselves are made once and handed to both indexes, audit-changed.ts); and
// between runs, with the summaries (KeptResults: the CLI's --cache), where a file git knows is
// unchanged is then not read at all. Each result is a pure function of the path and the text, so
// a file whose text is the same gives the same result, computed once.
import type { RepoFs } from '../base/repo-fs';
import type { InputFacts } from '../flux/facts/model';
import type { JobRecord } from './analyze';

export interface Results {
  input: InputFacts;
  names: string[];
  /** The Job records of the text's documents (jobRecordsIn). */
  jobs: JobRecord[];
}

type Key = keyof Results;

interface Kept {
  text: string;
  results: Partial<Results>;
}

export class IndexMemo {
  private readonly kept = new Map<string, Kept>();

  /**
   * `compute()` for this path, or what it gave for the same text before. A result is handed out
   * once as it is, then as copies: the index that records it keeps it as its own.
   */
  of<K extends Key>(key: K, path: string, text: string, compute: () => Results[K]): Results[K] {
    let kept = this.kept.get(path);
    if (kept?.text !== text) this.kept.set(path, (kept = { text, results: {} }));
    const known = kept.results[key];
    if (known === undefined) return (kept.results[key] = compute());
    return structuredClone(known);
  }
}

/**
 * Results of the texts the files have now, kept from earlier runs (the CLI's --cache keeps them
 * with each text's summary). Only for the files as they are now: never for another revision's.
 */
export interface KeptResults {
  /** The result kept for the file's text as it is now (a copy of its own); undefined: none is kept. */
  resultOf<K extends Key>(key: K, path: string): Results[K] | undefined;
  /** Keeps a result of the file's text as it is now (dropped where no summary of that text is kept). */
  keepResult<K extends Key>(key: K, path: string, value: Results[K]): void;
}

/** Where building an index finds what files gave before: in this run (memo), in earlier runs (kept: the files as they are now only). */
export interface EarlierResults {
  memo?: IndexMemo;
  kept?: KeptResults;
}

/** `compute()`, or what the memo kept of it for the same path and text (no memo: computed). */
function memoized<K extends Key>(memo: IndexMemo | undefined, key: K, path: string, text: string, compute: () => Results[K]): Results[K] {
  return memo ? memo.of(key, path, text, compute) : compute();
}

/**
 * What a file gives (`key`) as its text is: kept by an earlier run for that text (the file is not
 * read), else computed from its read (memoized, then kept); undefined where it is no text, or no
 * text `when` takes (then nothing is computed or kept).
 */
export async function fileResult<K extends Key>(
  fs: RepoFs,
  path: string,
  key: K,
  earlier: EarlierResults,
  compute: (text: string) => Results[K],
  when: (text: string) => boolean = () => true,
): Promise<Results[K] | undefined> {
  const kept = earlier.kept?.resultOf(key, path);
  if (kept !== undefined) return kept;
  const read = await fs.read(path);
  if (read.kind !== 'text' || !when(read.text)) return undefined;
  const result = memoized(earlier.memo, key, path, read.text, () => compute(read.text));
  earlier.kept?.keepResult(key, path, result);
  return result;
}
