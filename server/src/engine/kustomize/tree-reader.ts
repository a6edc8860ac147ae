// The documents of a small YAML text (a patch file, a replacements file) as
// KNode trees: the fast reader where it can, the `yaml` package otherwise.
import { parseAllDocuments } from 'yaml';
import { documentBoundaries } from '../yaml/documents';
import { fromYaml, isNilOrEmpty, KNode } from './knode';
import { readSimpleYaml } from './simple-yaml';

/** The non-empty documents of a text; null when it is no valid YAML. */
export function readTrees(text: string): KNode[] | null {
  const starts = documentBoundaries(text);
  const trees: KNode[] = [];
  for (let i = 0; i < starts.length; i++) {
    const end = starts[i + 1] ?? text.length;
    const tree = readTree(text, starts[i], end);
    if (tree === undefined) return null;
    trees.push(...tree);
  }
  return trees;
}

/** The non-empty documents of one chunk of a text (a chunk may hold several after `...`); undefined when it is no valid YAML. */
export function readTree(text: string, start: number, end: number): KNode[] | undefined {
  const marker = /^---[ \t]*(#.*)?(\r?\n|$)/.exec(text.slice(start, start + 200));
  const fast = readSimpleYaml(text, start + (marker?.[0].length ?? 0), end);
  if (fast !== undefined) return fast === null || isNilOrEmpty(fast) ? [] : [fast];
  const docs = parseAllDocuments(text.slice(start, end), { prettyErrors: false, strict: false, uniqueKeys: false });
  if (!Array.isArray(docs)) return undefined;
  const trees: KNode[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) return undefined;
    const tree = doc.contents === null ? null : fromYaml(doc, doc.contents, start);
    if (tree !== null && !isNilOrEmpty(tree)) trees.push(tree);
  }
  return trees;
}
