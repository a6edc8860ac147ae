// The YAML tree the kustomize model reads: maps, sequences and scalars with
// their source spans, and for a scalar its text and whether it was written
// plain (then its type is a matter of the reader: go-yaml v2 for a
// kustomization file, v3 for a resource). The fast reader builds it
// directly; anything else is parsed by the `yaml` package and converted,
// aliases expanded (within a budget).
import { Document, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Span } from './types';
import { aliasTarget } from '../yaml/aliases';

export interface KScalar {
  kind: 'scalar';
  /** Written without quotes or block indicator: its type depends on the reader. */
  plain: boolean;
  /** The source of a plain scalar, the value of a quoted or block one. */
  text: string;
  span: Span;
}

export interface KMap {
  kind: 'map';
  /** Entries in source order; a key that is no scalar reads as ''. */
  entries: Array<{ key: string; keyNode: KScalar | null; value: KNode }>;
  span: Span;
}

export interface KSeq {
  kind: 'seq';
  items: KNode[];
  span: Span;
}

export type KNode = KMap | KSeq | KScalar;

const CORE_NULL = /^(?:~|null|Null|NULL)?$/;

/** A null: nothing written, or a plain `~`/`null` (the same in YAML 1.1 and 1.2). */
export function isNull(node: KNode | null | undefined): boolean {
  return !node || (node.kind === 'scalar' && node.plain && CORE_NULL.test(node.text));
}

/** kyaml's IsNilOrEmpty: null, or an empty map or sequence. */
export function isNilOrEmpty(node: KNode | null | undefined): boolean {
  if (isNull(node)) return true;
  return (node!.kind === 'map' && node!.entries.length === 0) || (node!.kind === 'seq' && node!.items.length === 0);
}

export function emptyScalar(at: number): KScalar {
  return { kind: 'scalar', plain: true, text: '', span: [at, at] };
}

/** The value of a field, matched exactly; the last one written wins. */
export function field(node: KNode | null | undefined, key: string): KNode | null {
  if (!node || node.kind !== 'map') return null;
  for (let i = node.entries.length - 1; i >= 0; i--) if (node.entries[i].key === key) return node.entries[i].value;
  return null;
}

/** A scalar's text as kyaml reads it ('' for a null or a collection). */
export function textOf(node: KNode | null | undefined): string {
  if (!node || node.kind !== 'scalar' || isNull(node)) return '';
  return node.text;
}

/** A map of scalars as kyaml reads labels and annotations; null when the node is no map. */
export function textMap(node: KNode | null | undefined): Map<string, string> | null {
  if (!node || node.kind !== 'map') return null;
  const out = new Map<string, string>();
  for (const entry of node.entries) out.set(entry.key, textOf(entry.value));
  return out;
}

const ALIAS_BUDGET = 100_000;

/** A `yaml` package node as a KNode; `base` is the document's offset in its file. Aliases are expanded (an alias bomb stops at the budget). */
export function fromYaml(doc: Document, node: unknown, base: number): KNode {
  let budget = ALIAS_BUDGET;
  const convert = (current: unknown, depth: number): KNode => {
    if (--budget < 0 || depth > 200) return emptyScalar(base);
    let resolved = current;
    for (let hops = 0; isAlias(resolved) && hops < 16; hops++) resolved = aliasTarget(doc, resolved);
    const range = (resolved as { range?: [number, number, number] } | null)?.range;
    const span: Span = range ? [base + range[0], base + range[1]] : [base, base];
    if (isMap(resolved)) {
      return {
        kind: 'map',
        span,
        entries: resolved.items.map((pair) => {
          const key = pair.key === null || pair.key === undefined ? null : convert(pair.key, depth + 1);
          const keyNode = key && key.kind === 'scalar' ? key : null;
          return { key: keyNode ? keyNode.text : '', keyNode, value: pair.value === null || pair.value === undefined ? emptyScalar(span[1]) : convert(pair.value, depth + 1) };
        }),
      };
    }
    if (isSeq(resolved)) return { kind: 'seq', span, items: resolved.items.map((item) => (item === null || item === undefined ? emptyScalar(span[0]) : convert(item, depth + 1))) };
    if (isScalar(resolved)) {
      const plain = resolved.type === 'PLAIN' || resolved.type === undefined;
      const value = resolved.value as string | number | boolean | null | undefined;
      const text = plain ? (resolved.source ?? (value === null || value === undefined ? '' : String(value))) : value === null || value === undefined ? '' : String(value);
      return { kind: 'scalar', plain, text, span };
    }
    return emptyScalar(span[0]);
  };
  return convert(node, 0);
}
