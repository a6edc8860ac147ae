// The documents of a resource file as kustomize reads them (kio.FromBytes,
// then the resource factory): empty documents skipped, a `…List` expanded
// into its items, a document without kind or metadata.name refused. Only the
// header is read — apiVersion, kind and metadata — which is all that decides
// a resource's id and its substitution opt-out.
//
// The cheap path: most documents are a block mapping whose top-level keys
// start at column 0, so a line scan finds the `apiVersion`, `kind` and
// `metadata` entries and only those lines are parsed. Anything the scan is
// not sure of (flow style, a top-level key written twice, directives, a List,
// a line at column 0 that is not a `key:`) is parsed whole, so the header is
// exact either way.
import { parseDocument } from 'yaml';
import { documentBoundaries, parseChunk, type ParsedDocument } from '../yaml/documents';
import { field, fromYaml, isNilOrEmpty, KNode, textMap, textOf } from './knode';
import { readSimpleYaml } from './simple-yaml';
import type { Span } from './types';

export interface ResourceDoc {
  /** [start, end) of the document (or of the List item) in its file. */
  span: Span;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  /** null when the document has no labels map. */
  labels: Map<string, string> | null;
  annotations: Map<string, string> | null;
  /** kustomize's reason for refusing the document (YAML error, no kind, no name), with where. */
  error: { message: string; span: Span } | null;
}

/** A plain key at column 0 followed by `:` and a space or the line's end (or a quoted key). */
const TOP_LEVEL_KEY = /^(?:([^\s#'"{}[\],&*!|>%@`?:-][^\s:#]*(?::[^\s#][^\s:#]*)*)|"([^"\\]*)"|'([^']*)')[ \t]*:(?=[ \t\r]|$)/;
const HEADER_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Every resource document of a file, in order (List items in place of their
 * List). `wholly` parses every document whole (the slow path the scan must
 * agree with). `parsed`: the file's documents as parseYamlFile gives them,
 * where the caller has them or will parse them anyway (the audit): the slow
 * path takes its chunk from there instead of parsing it a second time.
 */
export function scanResourceDocs(text: string, wholly = false, parsed?: () => ParsedDocument[]): ResourceDoc[] {
  const starts = documentBoundaries(text);
  const docs: ResourceDoc[] = [];
  let byStart: Map<number, ParsedDocument[]> | undefined;
  // The given documents by the offset of their chunk, made once where the slow path first needs them.
  const chunkAt = (start: number, end: number) => {
    byStart ??= chunksByStart(parsed?.() ?? [], text);
    const chunk = byStart.get(start)?.filter((doc) => doc.end === end);
    return chunk && chunk.length > 0 ? chunk : undefined;
  };
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? text.length;
    const fast = wholly ? null : scanHeader(text, start, end);
    if (fast === 'empty') return;
    if (fast !== null) docs.push(fast);
    else docs.push(...((wholly ? undefined : simpleDocs(text, start, end)) ?? parsedDocs(chunkAt(start, end) ?? parseChunk(text, start, end), start, end)));
  });
  return docs;
}

/** The documents parseYamlFile read from this text, by the offset of their chunk. */
function chunksByStart(parsed: ParsedDocument[], text: string): Map<number, ParsedDocument[]> {
  const out = new Map<number, ParsedDocument[]>();
  for (const doc of parsed) if (doc.source === text) out.set(doc.base, [...(out.get(doc.base) ?? []), doc]);
  return out;
}

/** The header of one document from its top-level lines; 'empty' for a document with no content; null when the whole document must be parsed. */
function scanHeader(text: string, start: number, end: number): ResourceDoc | 'empty' | null {
  const entries = new Map<string, [number, number]>();
  let current: string | null = null;
  let lineStart = start;
  let first = true;
  while (lineStart < end) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    const char = text[lineStart];
    const isBlank = blankLine(text, lineStart, lineEnd);
    if (first && text.startsWith('---', lineStart)) {
      // the marker line: only a comment may follow it
      if (!/^---[ \t\r]*(#.*)?$/.test(text.slice(lineStart, lineEnd))) return null;
    } else if (char === ' ' || char === '\t' || isBlank) {
      if (current === null && !isBlank) return null;
    } else {
      const match = TOP_LEVEL_KEY.exec(text.slice(lineStart, Math.min(lineEnd, lineStart + 300)));
      if (!match) return null;
      const key = match[1] ?? match[2] ?? match[3];
      if (entries.has(key)) return null; // written twice: the parser decides
      if (current !== null) entries.get(current)![1] = lineStart;
      current = key;
      entries.set(key, [lineStart, end]);
    }
    first = false;
    // Once a key is open, only a line at column 0 can change anything: jump to the next one.
    lineStart = current === null ? lineEnd + 1 : nextColumnZeroLine(text, lineEnd, end);
  }
  if (entries.size === 0) return 'empty';
  const excerpt = [...HEADER_KEYS].map((key) => entries.get(key)).filter((range): range is [number, number] => range !== undefined);
  const source = excerpt.map(([from, to]) => text.slice(from, to).replace(/\n?$/, '\n')).join('');
  let root = readSimpleYaml(source);
  if (root === undefined) {
    const doc = parseDocument(source, { prettyErrors: false, strict: false, uniqueKeys: false });
    if (doc.errors.length > 0) return null;
    root = doc.contents === null ? null : fromYaml(doc, doc.contents, 0);
  }
  const header = headerOf(root, [start, end]);
  if (header === null || header.kind.endsWith('List')) return null; // a List's items need the whole document
  return header;
}

/** A line break followed by a line that starts with something but indentation or a comment. */
const COLUMN_ZERO_LINE = /\n[^ \t#\n]/g;

/** The start of the first line after `from` (a line break) that begins at column 0 with content; `end` where none does before it. */
function nextColumnZeroLine(text: string, from: number, end: number): number {
  COLUMN_ZERO_LINE.lastIndex = from;
  const found = COLUMN_ZERO_LINE.exec(text);
  return found === null || found.index + 1 >= end ? end : found.index + 1;
}

/** A line holding nothing but spaces and perhaps a comment. */
function blankLine(text: string, from: number, to: number): boolean {
  let at = from;
  while (at < to && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
  return at === to || text[at] === '#';
}

/** The headers of a chunk's documents parsed whole. */
function parsedDocs(chunk: ParsedDocument[], start: number, end: number): ResourceDoc[] {
  const span: Span = [start, end];
  return chunk.flatMap((parsed) => {
    if (parsed.errors.length === 0) return docsOf(parsed.doc.contents === null ? null : fromYaml(parsed.doc, parsed.doc.contents, parsed.base), span);
    const error = parsed.errors[0];
    return [{ ...blank(span), error: { message: `MalformedYAMLError: ${error.message}`, span: [error.start, error.end] } }];
  });
}

/**
 * The headers of a document the line scan could not read (no header keys at its top: a CI workflow,
 * an app's config; a sequence at its top), from the fast reader where it reads the whole document;
 * undefined where it gives up (then the document is parsed).
 */
function simpleDocs(text: string, start: number, end: number): ResourceDoc[] | undefined {
  const marker = /^---[ \t]*(#[^\n]*)?(\n|$)/.exec(text.slice(start, Math.min(end, start + 300)));
  const root = readSimpleYaml(text, marker ? start + marker[0].length : start, end);
  return root === undefined ? undefined : docsOf(root, [start, end]);
}

/** What the resource factory makes of one document's root: nothing, an error, its header, or a List's items. */
function docsOf(root: KNode | null, span: Span): ResourceDoc[] {
  if (isNilOrEmpty(root)) return [];
  if (root!.kind !== 'map') return [{ ...blank(span), error: { message: 'wrong node kind: expected MappingNode', span } }];
  const header = headerOf(root, span)!;
  if (!header.kind.endsWith('List') || header.error) return [header];
  // resource factory: a FooList becomes its items (none when `items` is missing or null)
  const items = field(root, 'items');
  return (items?.kind === 'seq' ? items.items : []).flatMap((item) => headerOf(item, item.span) ?? []);
}

function blank(span: Span): ResourceDoc {
  return { span, apiVersion: '', kind: '', name: '', namespace: '', labels: null, annotations: null, error: null };
}

/** The header of a mapping, with GetValidatedMetadata's refusals; null when it is no mapping. */
function headerOf(root: KNode | null, span: Span): ResourceDoc | null {
  if (!root || root.kind !== 'map') return null;
  const metadata = field(root, 'metadata');
  const header: ResourceDoc = {
    span,
    apiVersion: textOf(field(root, 'apiVersion')),
    kind: textOf(field(root, 'kind')),
    name: textOf(field(metadata, 'name')),
    namespace: textOf(field(metadata, 'namespace')),
    labels: textMap(field(metadata, 'labels')),
    annotations: textMap(field(metadata, 'annotations')),
    error: null,
  };
  if (isNilOrEmpty(field(root, 'apiVersion')) && isNilOrEmpty(field(root, 'kind')) && isNilOrEmpty(metadata)) header.error = { message: 'missing Resource metadata', span };
  else if (header.kind === '') header.error = { message: 'missing kind in object', span };
  else if (header.name === '' && !header.kind.endsWith('List')) header.error = { message: 'missing metadata.name in object', span };
  return header;
}
