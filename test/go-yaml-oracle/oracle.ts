// The go-yaml oracle (../shared/oracles/go-yaml/corpus.tsv: go-yaml v3's verdict on every YAML file
// of the shared corpus) against the project's parser, for the oracle test and `npm run oracle:go-yaml`.
// Disagreements come in two directions, each grouped by cause: files go-yaml decodes that we reject
// (a false yaml-syntax error, and the file is left unchecked), and files go-yaml rejects that we
// read (Flux fails to build such a file where a Kustomization applies it: a missed hazard).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFile } from '../../server/src/engine/base/repo-fs';
import { documentBoundaries, type ParsedDocument } from '../../server/src/engine/yaml/documents';
import { CORPUS, ROOT } from '../ecosystem/corpus';

export const ORACLE_FILE = join(ROOT, '..', 'shared', 'oracles', 'go-yaml', 'corpus.tsv');

export interface OracleRow {
  /** Relative to the corpus folder: `<repository>/<path>`. */
  path: string;
  /** go-yaml's first error (`yaml: ...`), or null when it decodes every document. */
  error: string | null;
}

export function oracleAvailable(): boolean {
  return existsSync(ORACLE_FILE) && existsSync(CORPUS);
}

export function readOracle(): OracleRow[] {
  return readFileSync(ORACLE_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => {
      const [path, verdict] = line.split('\t');
      return { path, error: verdict === 'ok' ? null : verdict.replace(/^error: /, '') };
    });
}

export interface Disagreement {
  path: string;
  /** What we say (our first error), or what go-yaml says. */
  detail: string;
}

export interface Comparison {
  files: number;
  /** go-yaml decodes the file, we report a syntax error: by cause. */
  weReject: Map<string, Disagreement[]>;
  /** go-yaml rejects the file, we report nothing: by cause (go-yaml's message). */
  weAccept: Map<string, Disagreement[]>;
}

/**
 * Where kustomize, which decodes with go-yaml, refuses more than the oracle's decoder (each document
 * into a yaml.Node, the whole stream at once): checked with `kubectl kustomize` (v5.5.0, Flux's).
 */
export const KUSTOMIZE_STRICTER = {
  /** kustomize decodes each resource into maps too: `mapping key "a" already defined at line 6`. */
  duplicateKey: 'a key written twice (kustomize refuses it: "mapping key already defined")',
  /** kustomize decodes each `---` piece of a file alone: `unknown anchor 'd' referenced`. */
  aliasAcrossPieces: 'an alias of an anchor in an earlier --- piece (kustomize decodes each piece alone)',
} as const;

/** The oracle's rows against `parse` (the project's parser, or a variant a negative control makes). */
export function compareWithOracle(rows: OracleRow[], parse: (text: string) => ParsedDocument[]): Comparison {
  const comparison: Comparison = { files: 0, weReject: new Map(), weAccept: new Map() };
  const add = (groups: Map<string, Disagreement[]>, cause: string, disagreement: Disagreement) => groups.set(cause, [...(groups.get(cause) ?? []), disagreement]);
  for (const { path, error } of rows) {
    const read = decodeFile(readFileSync(join(CORPUS, path)), Number.MAX_SAFE_INTEGER);
    comparison.files++;
    if (read.kind !== 'text') {
      if (error === null) add(comparison.weReject, 'not UTF-8 text', { path, detail: read.kind === 'skipped' ? read.reason : read.kind });
      continue;
    }
    const ours = parse(read.text)
      .flatMap((parsed) => parsed.errors)
      .sort((a, b) => a.start - b.start)[0];
    if (error === null && ours) add(comparison.weReject, causeOf(read.text, ours.message), { path, detail: `${lineOf(read.text, ours.start)}: ${ours.message}` });
    if (error !== null && !ours) add(comparison.weAccept, error.replace(/line \d+: /, ''), { path, detail: error });
  }
  return comparison;
}

function causeOf(text: string, message: string): string {
  if (message === 'Map keys must be unique') return KUSTOMIZE_STRICTER.duplicateKey;
  const unknown = /unknown anchor '([^']*)' referenced/.exec(message);
  if (unknown && anchoredBeforeAPiece(text, unknown[1])) return KUSTOMIZE_STRICTER.aliasAcrossPieces;
  // npm yaml's message without what it adds about templates
  return message.replace(/ \(the file holds \{\{.*$/, '');
}

/** Whether `&name` appears in a `---` piece before the last one (loose: a text test is enough to name the cause). */
function anchoredBeforeAPiece(text: string, name: string): boolean {
  const starts = documentBoundaries(text);
  return text.slice(0, starts[starts.length - 1]).includes(`&${name}`);
}

function lineOf(text: string, offset: number): string {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return `line ${line}`;
}

/** The comparison as text: counts, then every disagreement by cause. */
export function describeComparison(comparison: Comparison, limit = 10): string {
  const count = (groups: Map<string, Disagreement[]>) => [...groups.values()].reduce((n, list) => n + list.length, 0);
  const out = [`${comparison.files} files; go-yaml decodes and we reject: ${count(comparison.weReject)}; go-yaml rejects and we read: ${count(comparison.weAccept)}`];
  for (const [title, groups] of [
    ['go-yaml decodes, we reject', comparison.weReject],
    ['go-yaml rejects, we read', comparison.weAccept],
  ] as const) {
    for (const [cause, list] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
      out.push(`  ${title}: ${list.length} × ${cause}`);
      for (const { path, detail } of list.slice(0, limit)) out.push(`      ${path} (${detail})`);
      if (list.length > limit) out.push(`      ... and ${list.length - limit} more`);
    }
  }
  return out.join('\n');
}
