// What building a repository index computes of each file beyond its summary (the names it uses, a
// generator input's facts), kept for the index of another revision of the same repository
// (`audit --changed-since` models the repository now and at the revision, which differ in a few
// files; the summaries themselves are made once and handed to both indexes, audit-changed.ts).
// Each result is a pure function of the path and the text, so a file whose text is the same in
// both revisions gives the same result, computed once.
import type { InputFacts } from '../flux/facts/model';

export interface Results {
  input: InputFacts;
  names: string[];
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

/** `compute()`, or what the memo kept of it for the same path and text (no memo: computed). */
export function memoized<K extends Key>(memo: IndexMemo | undefined, key: K, path: string, text: string, compute: () => Results[K]): Results[K] {
  return memo ? memo.of(key, path, text, compute) : compute();
}
