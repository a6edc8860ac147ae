// As-you-type analysis of large files: a file is a list of documents (its
// `---` boundaries are cheap to find), and every analysis here is local to
// one document, so a keystroke re-analyses only the document it touched.
// Results are cached per document content, relative to the document's first
// line, and shifted into place; the cache is dropped whenever the context
// (contract, repository index, role, git HEAD) changes. `analyzeFile` over
// the whole text is the reference this must always agree with (tested).
import { analyzeDocuments, analyzeGeneratorInput, FileAnalysis, FileInput } from './analyze';
import { emptyFacts, FileFacts, isKustomizationFile } from '../flux/facts/model';
import type { ResourceDoc } from '../kustomize/resource-docs';
import { detached, FileSummary, summarizeFile } from './file-summary';
import { goYamlMayRefuse } from '../yaml/go-yaml';
import { documentBoundaries, mayAlias, parseYamlFile, ParsedDocument } from '../yaml/documents';
import type { Finding } from '../base/types';
import { chunkKey } from '../yaml/line-index';
import { MAY_HOLD_POD } from '../k8s/pods';

export interface Chunk {
  key: string;
  start: number;
  end: number;
  line: number;
}

/** The file's documents with their keys and first lines. */
export function chunksOf(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  let line = 0;
  let counted = 0;
  const starts = documentBoundaries(text);
  starts.forEach((start, i) => {
    line += countBreaks(text, counted, start);
    counted = start;
    const end = starts[i + 1] ?? text.length;
    chunks.push({ key: chunkKey(text, start, end), start, end, line });
  });
  return chunks;
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
    ...(finding.fixes ? { fixes: finding.fixes.map((fix) => ({ ...fix, edits: fix.edits.map((edit) => (edit.file === file && !edit.create ? { ...edit, range: move(edit.range) } : edit)) })) } : {}),
  };
}

/** Shifts every `span` (and `…Span`) by `offset` and every `line` by `lines` (facts found in one document). */
export function shiftFacts<T>(value: T, offset: number, lines: number): T {
  if (offset === 0 && lines === 0) return value;
  const shift = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) {
      if ((key === 'span' || key?.endsWith('Span')) && node.length === 2 && typeof node[0] === 'number') return [node[0] + offset, node[1] + offset];
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

/**
 * The analysis rules can fire in a document only if its text has one of
 * these: a Job or CronJob, a Flux expression or escape, a /tmp hand-off, a
 * ServiceAccount, a template, or anchors and aliases (which can alias more
 * than Flux accepts: no YAML extension reports that). (A lone `$` matters only when
 * flux-substitution-bare-dollar is on.) Without one, only its YAML syntax can
 * be reported, which the editor leaves to YAML extensions by default.
 */
export function documentMayMatter(text: string, bareDollar: boolean): boolean {
  return jobOrDollars(text, bareDollar) || podRuleText(text) || text.includes('{{') || mayAlias(text);
}

/** A Job, or text Flux or the kubelet rewrites (a bare `$NAME` only when flux-substitution-bare-dollar is on). */
function jobOrDollars(text: string, bareDollar: boolean): boolean {
  // Searches for one literal each: an alternation makes the regex engine try every position.
  return text.includes('${') || text.includes('$$') || /Job\b/.test(text) || (bareDollar && text.includes('$'));
}

/** What the pod rules look for in a pod: a /tmp hand-off (pod-tmp-handoff), an account (pod-service-account-undeclared). */
function podRuleText(text: string): boolean {
  return text.includes('/tmp/') || text.includes('serviceAccount');
}

/**
 * The audit's test on a whole file (pass 1): whether it needs more than its syntax check, which the
 * audit makes on a whole parse anyway. That parse reports what aliases do, and `{{` matters only in a
 * Job (whose text says `Job`) and in a chart's template (whose findings the model drops, by a role
 * known only in pass 2): so those two count only where the file may be a chart's template. The pod
 * rules' text matters only where the text names a pod's kind.
 */
export function fileMayMatter(path: string, text: string, bareDollar: boolean): boolean {
  if (mayBeChartTemplate(path)) return documentMayMatter(text, bareDollar);
  return jobOrDollars(text, bareDollar) || (podRuleText(text) && MAY_HOLD_POD.test(text));
}

/** A file in a `templates` folder (the model knows which are a chart's: RepoIndex.roleOf). */
function mayBeChartTemplate(path: string): boolean {
  return path.split('/').slice(0, -1).includes('templates');
}

/** Line breaks as LSP and LineIndex count them, in `text[from, to)`. */
function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) count++;
  }
  return count;
}

/** Block size for comparing texts: whole blocks compare natively (a keystroke in a 1 MB file costs microseconds, not a loop over every character). */
const BLOCK = 4096;

/** Length of the common prefix of `a` and `b`, at most `max`. */
export function commonPrefix(a: string, b: string, max: number): number {
  let n = 0;
  while (n + BLOCK <= max && a.slice(n, n + BLOCK) === b.slice(n, n + BLOCK)) n += BLOCK;
  while (n < max && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** Length of the common suffix of `a` and `b`, at most `max`. */
export function commonSuffix(a: string, b: string, max: number): number {
  let n = 0;
  while (n + BLOCK <= max && a.slice(a.length - n - BLOCK, a.length - n) === b.slice(b.length - n - BLOCK, b.length - n)) n += BLOCK;
  while (n < max && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/**
 * The chunks of `text`, reusing the keys and lines of `previous` chunks that
 * an edit did not touch: only documents overlapping the changed region are
 * hashed again, and boundaries are looked for only in a window around it (a
 * keystroke in a file of 2,000 documents touches one or two). The changed
 * region is found by comparing with the old text.
 */
export function rechunk(oldText: string, oldChunks: Chunk[], text: string): Chunk[] {
  if (oldChunks.length === 0) return chunksOf(text);
  const max = Math.min(oldText.length, text.length);
  let prefix = commonPrefix(oldText, text, max);
  let suffix = commonSuffix(oldText, text, max - prefix);
  // A `\r\n` split by the edge of the changed region counts differently on each side: widen the region.
  if (prefix > 0 && text.charCodeAt(prefix - 1) === 13) prefix--;
  if (suffix > 0 && text.charCodeAt(text.length - suffix) === 10) suffix--;
  const delta = text.length - oldText.length;
  const lineDelta = countBreaks(text, prefix, text.length - suffix) - countBreaks(oldText, prefix, oldText.length - suffix);
  // A chunk is untouched when it (and the character after it, which decides a boundary) lies in the prefix or the suffix.
  const untouchedBefore = (chunk: Chunk) => chunk.end < prefix;
  const untouchedAfter = (chunk: Chunk) => chunk.start > oldText.length - suffix;
  let head = 0;
  while (head < oldChunks.length && untouchedBefore(oldChunks[head])) head++;
  let tail = oldChunks.length;
  while (tail > head && untouchedAfter(oldChunks[tail - 1])) tail--;
  // Boundaries are found again from the chunk before the first touched one to the start of the second
  // untouched one after (a `%YAML` line can move the boundary just after the change).
  let from = Math.max(0, head - 1);
  // An empty chunk shares its start with the next (`%YAML` then `---` at the top): never split them.
  while (from > 0 && oldChunks[from - 1].start === oldChunks[from].start) from--;
  const to = Math.min(oldChunks.length, tail + 2);
  const windowStart = oldChunks[from].start;
  const windowEnd = to < oldChunks.length ? oldChunks[to].start + delta : text.length;
  const old = new Map(oldChunks.slice(from, to).map((chunk) => [`${chunk.start}:${chunk.end}`, chunk]));
  const shifted = (chunk: Chunk): Chunk => (delta === 0 && lineDelta === 0 ? chunk : { ...chunk, start: chunk.start + delta, end: chunk.end + delta, line: chunk.line + lineDelta });
  const chunks: Chunk[] = oldChunks.slice(0, from);
  // Inside the file, the window's first boundary is real once; only the file's own start can also be an
  // empty chunk's (`%YAML` then `---` at the very top), which documentBoundaries reports twice.
  const found = documentBoundaries(text.slice(windowStart, windowEnd));
  const starts = (windowStart > 0 ? found.filter((start, i) => i === 0 || start > 0) : found).map((start) => start + windowStart);
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? windowEnd;
    const before = end < prefix ? old.get(`${start}:${end}`) : undefined;
    const after = start > text.length - suffix ? old.get(`${start - delta}:${end - delta}`) : undefined;
    if (before) chunks.push(before);
    else if (after) chunks.push(shifted(after));
    else {
      const previous = chunks[chunks.length - 1];
      const line = previous ? previous.line + countBreaks(text, previous.start, start) : countBreaks(text, 0, start);
      chunks.push({ key: chunkKey(text, start, end), start, end, line });
    }
  });
  for (let i = to; i < oldChunks.length; i++) chunks.push(shifted(oldChunks[i]));
  return chunks;
}

/**
 * One open file as the editor changes it: its chunks (recomputed
 * incrementally per version), each changed document parsed once for both
 * the facts it gives the index and its analysis, and the results cached per
 * document content.
 */
export class DocumentSession {
  private text = '';
  private chunks: Chunk[] = [];
  private readonly parses = new Map<string, ParsedDocument[]>();
  private readonly summaries = new Map<string, FileSummary>();
  private readonly analyses = new Map<string, FileAnalysis>();
  private context = '';

  constructor(private readonly path: string) {}

  /** The new text of the file; returns nothing, the next calls use it. */
  update(text: string): void {
    if (text === this.text && this.chunks.length > 0) return;
    this.chunks = rechunk(this.text, this.chunks, text);
    this.text = text;
    this.parses.clear(); // parses live for one version: analysis results are what is cached
  }

  private documents(chunk: Chunk): ParsedDocument[] {
    let documents = this.parses.get(chunk.key);
    if (!documents) {
      documents = parseYamlFile(this.text.slice(chunk.start, chunk.end));
      this.parses.set(chunk.key, documents);
    }
    return documents;
  }

  /** What the file contributes to the repository index, from the documents an edit touched (the rest cached). */
  summary(): FileSummary {
    const merged: FileFacts = emptyFacts();
    const uses = new Set<string>();
    const docs: ResourceDoc[] = [];
    let any = false;
    for (const chunk of this.chunks) {
      let summary = this.summaries.get(chunk.key);
      if (summary === undefined) {
        const chunkText = this.text.slice(chunk.start, chunk.end);
        summary = detached(summarizeFile(this.path, chunkText, () => this.documents(chunk)));
        this.summaries.set(chunk.key, summary);
      }
      for (const name of summary.uses) uses.add(name);
      // each document's header, at its place in the whole file
      for (const doc of summary.docs ?? []) docs.push(shiftDoc(doc, chunk.start));
      if (!summary.facts) continue;
      any = true;
      const shifted = shiftFacts(summary.facts, chunk.start, chunk.line);
      // Every list of facts, in document order (a list left out here would vanish from the editor's model while typing).
      for (const key of Object.keys(merged) as Array<keyof FileFacts>) {
        const list = shifted[key];
        if (Array.isArray(list)) (merged[key] as unknown[]).push(...(list as unknown[]));
      }
      merged.kustomize ??= shifted.kustomize;
    }
    this.prune(this.summaries);
    const summary: FileSummary = { facts: any ? merged : null, uses: [...uses].sort() };
    if (isKustomizationFile(this.path)) summary.kustomizeText = this.text;
    else if (docs.length > 0) summary.docs = docs;
    return summary;
  }

  /**
   * Drops cached results of documents the file no longer holds, once they outnumber the live ones
   * (rebuilding the caches at every keystroke cost more than the lookups).
   */
  private prune<T>(cache: Map<string, T>): void {
    if (cache.size <= 2 * this.chunks.length + 64) return;
    const live = new Set(this.chunks.map((chunk) => chunk.key));
    for (const key of cache.keys()) if (!live.has(key)) cache.delete(key);
  }

  /**
   * The file's analysis; `context` must change whenever anything but the
   * text can change it. With `onlyWhatMatters`, documents the prefilter
   * proves irrelevant are not parsed (their syntax errors are not wanted).
   */
  analyze(input: FileInput, context: string, onlyWhatMatters: { bareDollar: boolean } | null): FileAnalysis {
    if (input.yaml === false) return analyzeGeneratorInput(input); // not YAML: one text, no documents
    if (context !== this.context) {
      this.analyses.clear();
      this.context = context;
    }
    const findings: Finding[] = [];
    const jobs: FileAnalysis['jobs'] = [];
    for (const chunk of this.chunks) {
      let result = this.analyses.get(chunk.key);
      if (!result) {
        const chunkText = this.text.slice(chunk.start, chunk.end);
        // what only go-yaml refuses is shown whatever the settings (no YAML extension reports it), so such a document is parsed
        const irrelevant = onlyWhatMatters && !documentMayMatter(chunkText, onlyWhatMatters.bareDollar) && !goYamlMayRefuse(chunkText);
        result = irrelevant ? NOTHING : detached(analyzeDocuments({ ...input, text: chunkText }, this.documents(chunk)));
        this.analyses.set(chunk.key, result);
      }
      for (const finding of result.findings) findings.push(shiftFinding(finding, chunk.line, input.file));
      for (const job of result.jobs) jobs.push(job);
    }
    this.prune(this.analyses);
    // What a generator reads is substituted as one text: never per document.
    for (const finding of analyzeGeneratorInput(input).findings) findings.push(finding);
    return { findings, jobs };
  }
}

const NOTHING: FileAnalysis = { findings: [], jobs: [] };

/** A document header of a chunk, at its place in the whole file. */
function shiftDoc(doc: ResourceDoc, by: number): ResourceDoc {
  if (by === 0) return doc;
  return { ...doc, span: [doc.span[0] + by, doc.span[1] + by], error: doc.error ? { ...doc.error, span: [doc.error.span[0] + by, doc.error.span[1] + by] } : null };
}
