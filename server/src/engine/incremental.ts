// As-you-type analysis of large files: a file is a list of documents (its
// `---` boundaries are cheap to find), and every analysis here is local to
// one document, so a keystroke re-analyses only the document it touched.
// Results are cached per document content, relative to the document's first
// line, and shifted into place; the cache is dropped whenever the context
// (contract, repository index, role, git HEAD) changes. `analyzeFile` over
// the whole text is the reference this must always agree with (tested).
import { analyzeFile, FileAnalysis, FileInput } from './analyze';
import { extractFacts, FileFacts, mayHoldFacts } from './flux/facts';
import { documentBoundaries } from './yaml-docs';
import type { Finding } from './types';

/** A 53-bit content hash plus the length: the cache key of one document's text. */
export function chunkKey(text: string, start: number, end: number): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}:${end - start}`;
}

interface Chunk {
  key: string;
  start: number;
  end: number;
  line: number;
}

/** The file's documents with their keys and first lines. */
export function chunksOf(text: string): Chunk[] {
  const starts = documentBoundaries(text);
  const chunks: Chunk[] = [];
  let line = 0;
  // Line breaks as LSP counts them (and LineIndex): `\r\n`, `\n` and a lone `\r`.
  const breaks = /\r\n?|\n/g;
  starts.forEach((start, i) => {
    for (let match = breaks.exec(text); match && match.index < start; match = breaks.exec(text)) {
      line++;
      if (breaks.lastIndex >= start) break;
    }
    breaks.lastIndex = start;
    const end = starts[i + 1] ?? text.length;
    chunks.push({ key: chunkKey(text, start, end), start, end, line });
  });
  return chunks;
}

/**
 * A copy of a chunk that does not share memory with the file's text, so a
 * cached parse never keeps an old version of a large file alive.
 */
function detached(text: string, start: number, end: number): string {
  return JSON.parse(JSON.stringify(text.slice(start, end)));
}

function shiftFinding(finding: Finding, lines: number, file: string): Finding {
  if (lines === 0) return finding;
  const move = <T extends { start: { line: number }; end: { line: number } }>(range: T): T => ({
    ...range,
    start: { ...range.start, line: range.start.line + lines },
    end: { ...range.end, line: range.end.line + lines },
  });
  return {
    ...finding,
    range: move(finding.range),
    ...(finding.fixes
      ? { fixes: finding.fixes.map((fix) => ({ ...fix, edits: fix.edits.map((edit) => (edit.file === file && !edit.create ? { ...edit, range: move(edit.range) } : edit)) })) }
      : {}),
  };
}

export class IncrementalAnalyzer {
  private cache = new Map<string, FileAnalysis>();
  private context = '';

  /** `context` must change whenever anything but the text can change the result. */
  analyze(input: FileInput, context: string): FileAnalysis {
    if (context !== this.context) {
      this.cache.clear();
      this.context = context;
    }
    const next = new Map<string, FileAnalysis>();
    const findings: Finding[] = [];
    const jobs: FileAnalysis['jobs'] = [];
    for (const chunk of chunksOf(input.text)) {
      let result = next.get(chunk.key) ?? this.cache.get(chunk.key);
      if (!result) result = analyzeFile({ ...input, text: detached(input.text, chunk.start, chunk.end) });
      next.set(chunk.key, result);
      for (const finding of result.findings) findings.push(shiftFinding(finding, chunk.line, input.file));
      jobs.push(...result.jobs);
    }
    this.cache = next; // documents that are gone leave the cache
    return { findings, jobs };
  }
}

/** Shifts every `span` / `pathSpan` by `offset` and every `line` by `lines` (facts found in one document). */
function shiftFacts<T>(value: T, offset: number, lines: number): T {
  if (offset === 0 && lines === 0) return value;
  const shift = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) {
      if ((key === 'span' || key === 'pathSpan') && node.length === 2 && typeof node[0] === 'number') return [node[0] + offset, node[1] + offset];
      return node.map((item) => shift(item));
    }
    if (node instanceof Map) return new Map([...node].map(([k, v]) => [k, shift(v)]));
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'line' && typeof v === 'number' ? v + lines : shift(v, k)]));
    }
    return node;
  };
  return shift(value) as T;
}

/** Per-document facts extraction with the same cache discipline, for files that change as the user types. */
export class IncrementalFacts {
  private cache = new Map<string, FileFacts | null>();

  extract(path: string, text: string): FileFacts | null {
    const next = new Map<string, FileFacts | null>();
    const merged: FileFacts = { kustomizations: [], kustomize: null, variableSources: [], serviceAccounts: [], serviceAccountUses: [] };
    let any = false;
    for (const chunk of chunksOf(text)) {
      let facts = next.has(chunk.key) ? next.get(chunk.key)! : this.cache.get(chunk.key);
      if (facts === undefined) {
        const chunkText = detached(text, chunk.start, chunk.end);
        facts = mayHoldFacts(path, chunkText) ? extractFacts(path, chunkText) : null;
      }
      next.set(chunk.key, facts);
      if (!facts) continue;
      any = true;
      const shifted = shiftFacts(facts, chunk.start, chunk.line);
      merged.kustomizations.push(...shifted.kustomizations);
      merged.variableSources.push(...shifted.variableSources);
      merged.serviceAccounts.push(...shifted.serviceAccounts);
      merged.serviceAccountUses.push(...shifted.serviceAccountUses);
      merged.kustomize ??= shifted.kustomize;
    }
    this.cache = next;
    return any ? merged : null;
  }
}
