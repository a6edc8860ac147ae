// What building a repository index computes of each file, kept for the index of another revision
// of the same repository (`audit --changed-since` models the repository now and at the revision,
// which differ in a few files). Each result is a pure function of the path and the text, so a
// file whose text is the same in both revisions gives the same result, computed once.
import type { InputFacts } from '../flux/facts/model';
import type { FileSummary } from './file-summary';

export interface Results {
  summary: FileSummary;
  input: InputFacts;
  names: string[];
}

type Key = keyof Results;

interface Kept {
  text: string;
  results: Partial<Results>;
  /** The results no index has been given yet (computed elsewhere, see keep()). */
  unused: Set<Key>;
}

export class IndexMemo {
  private readonly kept = new Map<string, Kept>();

  /**
   * `compute()` for this path, or what it gave for the same text before. A result is handed out
   * once as it is, then as copies: the index that records it keeps it as its own.
   */
  of<K extends Key>(key: K, path: string, text: string, compute: () => Results[K]): Results[K] {
    const kept = this.entry(path, text);
    const known = kept.results[key];
    if (known === undefined) return (kept.results[key] = compute());
    if (kept.unused.delete(key)) return known;
    return structuredClone(known);
  }

  /** What `compute` gives for this path and text, computed elsewhere (in an audit worker). */
  keep<K extends Key>(key: K, path: string, text: string, value: Results[K]): void {
    const kept = this.entry(path, text);
    kept.results[key] = value;
    kept.unused.add(key);
  }

  private entry(path: string, text: string): Kept {
    let kept = this.kept.get(path);
    if (kept?.text !== text) this.kept.set(path, (kept = { text, results: {}, unused: new Set() }));
    return kept;
  }
}

/** `compute()`, or what the memo kept of it for the same path and text (no memo: computed). */
export function memoized<K extends Key>(memo: IndexMemo | undefined, key: K, path: string, text: string, compute: () => Results[K]): Results[K] {
  return memo ? memo.of(key, path, text, compute) : compute();
}
