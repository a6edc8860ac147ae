// A YAML file as a list of documents with exact source offsets. Each document
// is parsed on its own (a file's `---` boundaries are cheap to find), so a
// cache can keep the documents an edit did not touch.
import { Document, isAlias, isMap, isPair, isScalar, isSeq, Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { aliasTarget } from './aliases';
import { GO_YAML_STOPS, goYamlStops, isLineBreak, readDocuments, ReadProblem, YamlReading } from './go-yaml';

export interface YamlProblem {
  /** Offsets into the whole file. */
  start: number;
  end: number;
  message: string;
}

export interface ParsedDocument {
  /** Offset of the chunk in the file; every node range is relative to it. */
  base: number;
  /** The chunk's end offset in the file (exclusive). */
  end: number;
  doc: Document.Parsed;
  errors: YamlProblem[];
  /** The whole file's text (shared, not copied), for reading source slices. */
  source: string;
}

/** Where each document starts: every line that opens with `---` (then space, tab or end of line). */
export function documentBoundaries(text: string): number[] {
  const starts = [0];
  // `---` at a line's start, then a blank or the line's end (indexOf: on every keystroke over megabytes).
  for (let at = text.indexOf('---', 1); at !== -1; at = text.indexOf('---', at + 1)) {
    const after = text[at + 3];
    if (isLineBreak(text[at - 1]) && (after === undefined || after === ' ' || after === '\t' || isLineBreak(after))) starts.push(directivesStart(text, at));
  }
  return starts;
}

/** `%YAML`/`%TAG` lines belong to the document after them. */
function directivesStart(text: string, markerOffset: number): number {
  let start = markerOffset;
  while (start > 0) {
    const previousLineStart = text.lastIndexOf('\n', start - 2) + 1;
    // At offset 1 (the text opens with a line break), lastIndexOf reads `start - 2 < 0` as 0 and
    // answers the same line again: without this check the loop never ends.
    if (previousLineStart >= start || text[previousLineStart] !== '%') break;
    start = previousLineStart;
  }
  return start;
}

// uniqueKeys: the parser compares each key with every earlier key of its mapping, so a 5 MB
// ConfigMap (130,000 keys) took minutes; duplicateKeys() finds the same keys in one pass.
const PARSE_OPTIONS = { prettyErrors: false, keepSourceTokens: false, strict: false, uniqueKeys: false } as const;

/**
 * Parses one chunk of a file; a chunk may still hold several documents after `...`. As go-yaml
 * reads it (what Flux does), unless a test asks for YAML 1.2 as the `yaml` package alone reads it.
 */
export function parseChunk(text: string, start: number, end: number, reading: YamlReading = 'go-yaml'): ParsedDocument[] {
  const chunk = text.slice(start, end);
  let read;
  // Each problem the parser meets is an Error; their stack traces, which nobody reads, cost
  // as much as parsing the file again where a file has many (a Helm template).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    read = readDocuments(chunk, PARSE_OPTIONS, reading);
  } catch (error) {
    // The parser recurses once per nesting level and catches its own stack overflow only while
    // some stack is left; deeper down (a server handler's stack), the RangeError escapes.
    if (!(error instanceof RangeError)) throw error;
    return [tooDeep(text, start, end)];
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  const { docs, problems, aliases } = read;
  const template = /\{\{[^\n]*\}\}/.test(chunk);
  return docs.map((doc, i) => {
    // Where the parser ran out of stack depends on how much stack was left: report a fixed place
    // and drop the partial tree, so the analysis does not depend on the caller's stack.
    if (doc.errors.some((error) => error.code === 'RESOURCE_EXHAUSTION')) return tooDeep(text, start, end);
    return {
      base: start,
      end,
      doc,
      source: text,
      errors: [
        ...doc.errors.map((error) => ({
          // A parser error may point just past its chunk; keep it inside, so a document
          // analysed alone (as the editor's cache does) reports the very same range.
          start: Math.min(start + error.pos[0], end),
          end: Math.min(start + Math.max(error.pos[1], error.pos[0]), end),
          message: error.message.split('\n')[0] + (template ? TEMPLATE_HINT : ''),
        })),
        ...duplicateKeys(doc).map(([keyStart, keyEnd]) => ({ start: start + keyStart, end: start + keyEnd, message: DUPLICATE_KEY })),
        ...problemsOf(docs, i, problems).map((problem) => ({ start: start + problem.start, end: Math.min(start + problem.end, end), message: problem.message })),
        // only a document where an alias names an anchor can alias too much: most are not walked for it
        ...excessiveAliasingProblems(doc, aliases, start, end),
      ].sort((a, b) => a.start - b.start),
    };
  });
}

/** The problems that fall in the `i`th of a chunk's documents (each from where it starts to where the next does). */
function problemsOf(docs: Document.Parsed[], i: number, problems: ReadProblem[]): ReadProblem[] {
  if (problems.length === 0) return problems;
  const from = i === 0 ? -Infinity : docs[i].range[0];
  const to = i === docs.length - 1 ? Infinity : docs[i + 1].range[0];
  return problems.filter((problem) => problem.start >= from && problem.start < to);
}

/** The parser's own message for a key written twice (its DUPLICATE_KEY error). */
const DUPLICATE_KEY = 'Map keys must be unique';

/**
 * [start, end) of every key that repeats an earlier key of its mapping, as the parser's uniqueKeys
 * check reports them (scalar keys equal by value; other keys only when they are the same node),
 * in one pass over the document with a Set per mapping. Aliases are not followed.
 */
function duplicateKeys(doc: Document.Parsed): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        const identity = isScalar(key) ? `s:${typeof key.value}:${String(key.value)}` : key;
        if (seen.has(identity) && key?.range) found.push([key.range[0], key.range[1]]);
        seen.add(identity);
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
  return found;
}

// ---- Excessive aliasing, as go-yaml (kustomize, so Flux) refuses it ----

const ANCHORS = /(?:^|[\s[{,:?-])&([^\s,[\]{}]+)/gm;
const ALIASES = /(?:^|[\s[{,:?-])\*([^\s,[\]{}]+)/gm;

/**
 * Whether a text may hold an anchor and an alias of it: a cheap test on the text (most documents
 * have neither). An alias must name an anchor, so the names are compared: prose such as
 * `a && b` and `**bold**` in a CRD's descriptions looks like both but names none in common.
 * Loose where it must be (an anchor-like word in a comment or a block scalar still counts).
 */
export function mayAlias(text: string): boolean {
  if (!text.includes('&') || !text.includes('*')) return false;
  const anchors = new Set<string>();
  for (const [, name] of text.matchAll(ANCHORS)) anchors.add(name);
  if (anchors.size === 0) return false;
  for (const [, name] of text.matchAll(ALIASES)) {
    // `*a: x`, an alias as a key: the colon is not part of the name the anchor gave
    if (anchors.has(name) || anchors.has(name.replace(/:+$/, ''))) return true;
  }
  return false;
}

/** The words of go-yaml's error, which the message quotes. */
export const EXCESSIVE_ALIASING = 'document contains excessive aliasing';

/** Whether a yaml-syntax message says what go-yaml refuses and the `yaml` package reads (excessive aliasing, `\/`...): YAML extensions do not report those. */
export function isGoYamlOnly(message: string): boolean {
  return message.includes(GO_YAML_STOPS);
}

/** go-yaml's allowedAliasRatio (decode.go): the share of decoded nodes that may come from expanding aliases. */
function allowedAliasRatio(decodes: number): number {
  if (decodes <= 400_000) return 0.99;
  if (decodes >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000);
}

function tooMuchAliasing(decodes: number, aliased: number): boolean {
  return aliased > 100 && decodes > 1000 && aliased / decodes > allowedAliasRatio(decodes);
}

/** Sizes stay finite and exact enough: a limit is crossed long before this. */
const SIZE_CAP = 1e15;

/**
 * Where go-yaml stops decoding `doc` with "document contains excessive aliasing", as [start, end)
 * of the alias whose expansion crosses the limit (relative to the document's text), or null.
 * go-yaml counts every node it decodes, with aliases expanded, and fails as soon as more than 1000
 * were decoded, more than 100 of them inside an alias, and the aliased share passes
 * allowedAliasRatio (99% up to 400,000 nodes, down to 10% at 4,000,000). The same counts without
 * expanding anything: one walk in document order, each anchored node's expanded size kept once
 * its walk ends, so a billion laughs costs as much as its text.
 */
export function excessiveAliasing(doc: Document.Parsed): [number, number] | null {
  const sizes = new Map<string, number>(); // an anchor's expanded size; a later anchor of the same name replaces it
  let decodes = 1; // the document node
  let aliased = 0;
  let lastAlias: [number, number] | null = null;
  interface Frame {
    node: Node | null;
    children: unknown[];
    next: number;
    size: number;
  }
  const childrenOf = (node: unknown): unknown[] => (isMap(node) ? node.items.flatMap((pair) => [pair.key, pair.value]) : isSeq(node) ? node.items : []);
  const stack: Frame[] = [{ node: null, children: [doc.contents], next: 0, size: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next === frame.children.length) {
      stack.pop();
      const anchor = (frame.node as { anchor?: string } | null)?.anchor;
      if (anchor) sizes.set(anchor, frame.size);
      if (stack.length > 0) stack[stack.length - 1].size = Math.min(SIZE_CAP, stack[stack.length - 1].size + frame.size);
      continue;
    }
    const child = frame.children[frame.next++];
    decodes++; // the node itself (an empty value is a null scalar to go-yaml)
    if (isAlias(child)) {
      // expanding it decodes its target's nodes, every one of them aliased: the aliased share only
      // grows while it runs, so the limit is crossed inside it exactly when it is crossed at its end
      const size = sizes.get(child.source) ?? 0; // unknown, or an anchor that contains itself: another error
      decodes = Math.min(SIZE_CAP, decodes + size);
      aliased = Math.min(SIZE_CAP, aliased + size);
      lastAlias = child.range ? [child.range[0], child.range[1]] : lastAlias;
      frame.size = Math.min(SIZE_CAP, frame.size + 1 + size);
      if (tooMuchAliasing(decodes, aliased)) return lastAlias ?? [0, 0];
      continue;
    }
    if (tooMuchAliasing(decodes, aliased)) return lastAlias ?? [0, 0];
    const children = childrenOf(child);
    stack.push({ node: (child as Node | null) ?? null, children, next: 0, size: 1 });
  }
  return null;
}

function excessiveAliasingProblems(doc: Document.Parsed, aliases: boolean, start: number, end: number): YamlProblem[] {
  if (!aliases || doc.errors.length > 0) return [];
  const span = excessiveAliasing(doc);
  if (!span) return [];
  return [
    {
      start: Math.min(start + span[0], end),
      end: Math.min(start + span[1], end),
      message: goYamlStops('its aliases expand too far', EXCESSIVE_ALIASING),
    },
  ];
}

/** A document too deeply nested to parse: no tree, one error where the nesting gets deep. */
function tooDeep(text: string, start: number, end: number): ParsedDocument {
  let at = start;
  let depth = 0;
  for (let i = start; i < end; i++) {
    const char = text[i];
    if (char === '[' || char === '{') {
      if (++depth === DEEP) {
        at = i;
        break;
      }
    } else if ((char === ']' || char === '}') && depth > 0) depth--;
  }
  if (depth < DEEP) {
    const indented = new RegExp(`^[ -]{${DEEP}}`, 'm').exec(text.slice(start, end));
    if (indented) at = start + indented.index;
  }
  const doc = new Document(null) as unknown as Document.Parsed;
  return { base: start, end, doc, source: text, errors: [{ start: at, end: at, message: TOO_DEEP }] };
}

const DEEP = 1000;
const TOO_DEEP = `the collections nest too deeply to be parsed (over ${DEEP} levels from here)`;
const TEMPLATE_HINT = ' (the file holds {{ ... }}: a Helm or Go template is YAML only once rendered)';

/** A file's documents as go-yaml reads them (`reading`: see parseChunk). */
export function parseYamlFile(text: string, reading: YamlReading = 'go-yaml'): ParsedDocument[] {
  const starts = documentBoundaries(text);
  return starts.flatMap((start, i) => parseChunk(text, start, starts[i + 1] ?? text.length, reading));
}

// ---- Navigating the AST without expanding aliases (an alias bomb stays small) ----

export function resolve(doc: Document, node: unknown): Node | null {
  let current = node;
  // An alias to an alias is legal; a bounded loop keeps a cycle harmless.
  for (let hops = 0; isAlias(current) && hops < 16; hops++) current = aliasTarget(doc, current) ?? null;
  return (current as Node | null) ?? null;
}

export function asMap(doc: Document, node: unknown): YAMLMap | null {
  const resolved = resolve(doc, node);
  return isMap(resolved) ? resolved : null;
}

export function asSeq(doc: Document, node: unknown): YAMLSeq | null {
  const resolved = resolve(doc, node);
  return isSeq(resolved) ? resolved : null;
}

export function keyText(pair: Pair): string | null {
  return isScalar(pair.key) && (typeof pair.key.value === 'string' || typeof pair.key.value === 'number') ? String(pair.key.value) : null;
}

export function findPair(map: YAMLMap | null, key: string): Pair | undefined {
  return map?.items.find((pair) => keyText(pair) === key);
}

export function getNode(doc: Document, node: unknown, ...path: string[]): Node | null {
  let current = resolve(doc, node);
  for (const key of path) {
    const pair = findPair(isMap(current) ? current : null, key);
    if (!pair) return null;
    current = resolve(doc, pair.value);
  }
  return current;
}

/** A scalar's value as text (numbers and booleans as written in source), else null. */
export function scalarText(doc: Document, node: unknown): string | null {
  const resolved = resolve(doc, node);
  if (!isScalar(resolved)) return null;
  const value = resolved.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return resolved.source ?? String(value);
  return null;
}

export function getString(doc: Document, node: unknown, ...path: string[]): string | null {
  return scalarText(doc, getNode(doc, node, ...path));
}

/** [start, end) of a node in the file, or null when the node has no source range. */
export function nodeSpan(parsed: ParsedDocument, node: unknown): [number, number] | null {
  const range = (node as Node | null)?.range;
  return range ? [parsed.base + range[0], parsed.base + range[1]] : null;
}

/** The source text of a node, exactly as written. */
export function nodeSource(parsed: ParsedDocument, node: unknown): string {
  const span = nodeSpan(parsed, node);
  return span ? parsed.source.slice(span[0], span[1]) : '';
}

export { isMap, isScalar, isSeq, isAlias, isPair };
export type { Node, Pair, YAMLMap, YAMLSeq, Document };
