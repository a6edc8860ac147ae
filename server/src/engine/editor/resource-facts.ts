// What the outline, the Job lenses and workspace symbols need of each YAML
// document: its kind, name and where they are written, and for a Job its TTL.
// Computed per document and cached by the document's content (ChunkCache), so
// a keystroke in a file of 2000 Jobs parses one document, not 2000.
import { chunksOf, shiftFacts } from '../pipeline/incremental';
import { detached } from '../pipeline/file-summary';
import { isJobDocument, jobFacts } from '../k8s/jobs';
import { getNode, getString, nodeSpan, parseYamlFile } from '../yaml/documents';

export interface ResourceFacts {
  kind: string;
  apiVersion: string | null;
  name: string | null;
  /** [start, end) of the document's content (leading `---` and trailing blank lines left out). */
  span: [number, number];
  /** [start, end) of `metadata.name`'s value, else of `kind`'s. */
  selectionSpan: [number, number];
  /** For a Job: its `spec.ttlSecondsAfterFinished`, absent (null) or with its value (null when invalid). */
  job: { ttl: { value: number | null; keySpan: [number, number] } | null } | null;
}

/** A document that may be a Job (a cheap test before parsing). */
export const MAY_BE_JOB = /kind:\s*["']?Job\b/;

/** The resources (documents with a `kind`) of one YAML text, offsets relative to it. */
export function resourcesIn(text: string): ResourceFacts[] {
  const found: ResourceFacts[] = [];
  for (const parsed of parseYamlFile(text)) {
    const { doc } = parsed;
    const kind = getString(doc, doc.contents, 'kind');
    const kindSpan = nodeSpan(parsed, getNode(doc, doc.contents, 'kind'));
    const contents = nodeSpan(parsed, doc.contents);
    if (kind === null || !kindSpan || !contents) continue;
    const nameSpan = nodeSpan(parsed, getNode(doc, doc.contents, 'metadata', 'name'));
    const job = parsed.errors.length === 0 && isJobDocument(parsed) ? jobFacts(parsed) : null;
    found.push({
      kind,
      apiVersion: getString(doc, doc.contents, 'apiVersion'),
      name: getString(doc, doc.contents, 'metadata', 'name'),
      span: [contents[0], trimEnd(text, contents[1])],
      selectionSpan: nameSpan ?? kindSpan,
      job: job ? { ttl: job.ttl ? { value: job.ttl.value, keySpan: job.ttl.keySpan } : null } : null,
    });
  }
  return found;
}

function trimEnd(text: string, end: number): number {
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  return end;
}

/**
 * Per-document results of one file, cached by each document's content: only documents an edit
 * changed are computed again. Results are relative to their document and shifted into place.
 */
export class ChunkCache<T extends { span: [number, number] }> {
  private entries = new Map<string, T[]>();

  /** `wanted`: a cheap test of a document's text; documents that fail it give nothing. */
  constructor(
    private readonly compute: (text: string) => T[],
    private readonly wanted: (text: string) => boolean = () => true,
  ) {}

  of(text: string): T[] {
    const next = new Map<string, T[]>();
    const out: T[] = [];
    for (const chunk of chunksOf(text)) {
      let results = next.get(chunk.key) ?? this.entries.get(chunk.key);
      if (!results) {
        const chunkText = text.slice(chunk.start, chunk.end);
        // A copy: cached results must not keep slices of an old version of a large file alive.
        results = this.wanted(chunkText) ? detached(this.compute(chunkText)) : [];
      }
      next.set(chunk.key, results);
      for (const result of results) out.push(shiftFacts(result, chunk.start, 0));
    }
    this.entries = next;
    return out;
  }
}
