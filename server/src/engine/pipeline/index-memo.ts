// What building a repository index computes of each file, kept for the index of another revision
// of the same repository (`audit --changed-since` models the repository now and at the revision,
// which differ in a few files). Each result is a pure function of the path and the text, so a
// file whose text is the same in both revisions gives the same result, computed once.
import type { InputFacts } from '../flux/facts/model';
import type { FileSummary } from './repo-index';

interface Kept {
  text: string;
  summary?: FileSummary;
  input?: InputFacts;
  names?: string[];
}

type Key = 'summary' | 'input' | 'names';

export class IndexMemo {
  private readonly kept = new Map<string, Kept>();

  /**
   * `compute(text)` for this path, or what it gave for the same text before. A result handed out
   * again is a copy: the index that records it keeps it as its own.
   */
  of<K extends Key>(key: K, path: string, text: string, compute: () => NonNullable<Kept[K]>): NonNullable<Kept[K]> {
    let kept = this.kept.get(path);
    if (kept?.text !== text) this.kept.set(path, (kept = { text }));
    const known = kept[key];
    if (known !== undefined) return structuredClone(known);
    const computed = compute();
    kept[key] = computed;
    return computed;
  }
}
