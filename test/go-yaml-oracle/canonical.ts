// Documents as a tree of strings, the form test/go-yaml-oracle/dump.go prints go-yaml's in, so the
// two readings compare as JSON: a mapping is {m: [[key, value], ...]} (order and repeats kept), a
// sequence {s: [...]}, a scalar its string before any tag resolution (go-yaml's Node.Value), an
// empty node '', an alias what it names (expanded, within a budget).
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document } from 'yaml';
import { holdsNode } from '../../server/src/engine/yaml/go-yaml';
import type { ParsedDocument } from '../../server/src/engine/yaml/documents';

const BUDGET = 200_000;

/** The documents as go-yaml lists them: `---` starts one, even empty; `...` alone (which npm yaml makes an empty document of) does not. */
export function canonicalDocuments(docs: ParsedDocument[]): unknown[] {
  return docs.filter((parsed) => parsed.doc.directives?.docStart || holdsNode(parsed.doc)).map((parsed) => canonical(parsed.doc, parsed.doc.contents, { nodes: 0 }));
}

function canonical(doc: Document, node: unknown, budget: { nodes: number }): unknown {
  if (++budget.nodes > BUDGET) return 'BUDGET';
  if (node === null || node === undefined) return '';
  if (isAlias(node)) return canonical(doc, node.resolve(doc), budget);
  if (isMap(node)) return { m: node.items.map((pair) => [canonical(doc, pair.key, budget), canonical(doc, pair.value, budget)]) };
  if (isSeq(node)) return { s: node.items.map((item) => canonical(doc, item, budget)) };
  if (isScalar(node)) return scalarText(node.source ?? node.value);
  return '?';
}

/** A scalar's text: its source, else its value (a string, number, boolean or null once composed). */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : JSON.stringify(value);
}
