// Generators of realistic Flux repositories (Jobs with and without a TTL,
// comments, CRLF, multi-document files, block scalars full of shell `$`),
// random edits of them, and the checker of the engine's invariants: it never
// throws, every range lies inside its file, every quick fix applied (the way
// an editor applies it, with LSP's line rules) parses at least as well as
// before, removes its finding, touches only its own document, writes the
// file's own line ending, and is not offered again; and the analysis is
// deterministic. Shared by test/fuzz.test.ts (a bounded run) and
// scripts/fuzz.mjs (the long run).
import * as fc from 'fast-check';
import { analyzeFile } from '../../server/src/engine/pipeline/analyze';
import { FileRole } from '../../server/src/engine/pipeline/repo-index';
import { audit } from '../../server/src/engine/pipeline/audit';
import { loadContract } from '../../server/src/engine/contract/load';
import { decodeFile, DEFAULT_MAX_FILE_SIZE, ReadResult, RepoFs } from '../../server/src/engine/base/repo-fs';
import { RULE_IDS } from '../../server/src/engine/rules/registry';
import type { FileEdit, Finding, Fix, Position, Range } from '../../server/src/engine/base/types';
import { documentBoundaries, parseYamlFile } from '../../server/src/engine/yaml/documents';

export const CONTRACT = '.flux-job-guard.yaml';

// ---- an in-memory repository --------------------------------------------------------------------

export type FileContent = string | Uint8Array;
export type World = Map<string, FileContent>;

/** RepoFs over a map of paths: strings are text as an editor holds it, bytes go through decodeFile. */
export class MemoryRepoFs implements RepoFs {
  constructor(
    private readonly files: World,
    private readonly maxFileSize = DEFAULT_MAX_FILE_SIZE,
    private readonly order: 'sorted' | 'reversed' = 'sorted',
  ) {}

  listFiles(): Promise<string[]> {
    const paths = [...this.files.keys()].sort();
    return Promise.resolve(this.order === 'reversed' ? paths.reverse() : paths);
  }

  read(path: string): Promise<ReadResult> {
    return Promise.resolve(this.readNow(path));
  }

  private readNow(path: string): ReadResult {
    const content = this.files.get(path);
    if (content === undefined) return { kind: 'missing' };
    if (typeof content !== 'string') return decodeFile(content, this.maxFileSize);
    // Text reads as from disk (size limit, NUL check, BOM dropped); text no UTF-8 can hold (a lone
    // surrogate) only an editor's buffer has, so it reads as the editor's overlay reads it.
    if (!hasLoneSurrogate(content)) return decodeFile(new TextEncoder().encode(content), this.maxFileSize);
    return { kind: 'text', text: content.replace(/^\ufeff/, '') };
  }
}

// ---- LSP positions (`\n`, `\r\n` and a lone `\r` end a line, columns in UTF-16 units) -----------

export class LspText {
  readonly starts: number[] = [0];
  constructor(readonly text: string) {
    const breaks = /\r\n?|\n/g;
    for (let m = breaks.exec(text); m; m = breaks.exec(text)) this.starts.push(m.index + m[0].length);
  }
  lineLength(line: number): number {
    const start = this.starts[line];
    if (line + 1 >= this.starts.length) return this.text.length - start;
    const next = this.starts[line + 1];
    return next - start - (this.text[next - 1] === '\n' && this.text[next - 2] === '\r' ? 2 : 1);
  }
  /** The offset of a position, or a reason why the position is not one of this text's. */
  offsetAt(position: Position): number | string {
    const { line, character } = position;
    if (!Number.isInteger(line) || !Number.isInteger(character) || line < 0 || character < 0) return `position ${JSON.stringify(position)} is not two non-negative integers`;
    if (line >= this.starts.length) return `line ${line} is past the last line (${this.starts.length - 1})`;
    if (character > this.lineLength(line)) return `column ${character} is past the end of line ${line} (length ${this.lineLength(line)})`;
    const offset = this.starts[line] + character;
    if (isLowSurrogate(this.text.charCodeAt(offset)) && isHighSurrogate(this.text.charCodeAt(offset - 1))) return `position ${line}:${character} splits a surrogate pair`;
    return offset;
  }
  positionAt(offset: number): Position {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: offset - this.starts[low] };
  }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
export const hasLoneSurrogate = (text: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** A range's offsets, or why it is not a range of `text`. */
export function rangeOffsets(text: LspText, range: Range): [number, number] | string {
  const start = text.offsetAt(range.start);
  const end = text.offsetAt(range.end);
  if (typeof start === 'string') return start;
  if (typeof end === 'string') return end;
  if (end < start) return `range ends before it starts`;
  return [start, end];
}

/** Applies LSP text edits as an editor does: all positions refer to the text before any edit; no overlaps. */
export function applyLspEdits(text: string, edits: Array<{ range: Range; newText: string }>): string {
  const lsp = new LspText(text);
  const resolved = edits.map((edit) => {
    const offsets = rangeOffsets(lsp, edit.range);
    if (typeof offsets === 'string') throw new Error(`invalid edit range: ${offsets}`);
    return { start: offsets[0], end: offsets[1], newText: edit.newText };
  });
  resolved.sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < resolved.length; i++) {
    if (resolved[i].start < resolved[i - 1].end) throw new Error('overlapping edits');
  }
  let out = '';
  let at = 0;
  for (const edit of resolved) {
    out += text.slice(at, edit.start) + edit.newText;
    at = edit.end;
  }
  return out + text.slice(at);
}

// ---- what gets generated -------------------------------------------------------------------------

/** Lines of shell a Job runs: every `$` form Flux and the shell care about, good and bad. */
export const SCRIPT_LINES = [
  'set -eu',
  'echo "starting ${APP_NAME}"',
  'echo "pid $$"',
  'echo "pid $$$$"',
  'kill -0 $$ || true',
  'echo "${DB_HOST:-localhost}:${DB_PORT:=5432}"',
  'echo "${UNDEFINED_THING}"',
  'echo $HOME $1 $@ $# $? $!',
  'now=$(date +%s)',
  'echo $((1 + 2))',
  'echo "$${ESCAPED}"',
  'echo "$$HOME"',
  '# a comment in the script: ${IN_COMMENT}',
  'test -n "${FLAG:+yes}"',
  'echo "${MSG:?required}"',
  'echo ${arr[@]}',
  'echo ${#APP_NAME}',
  'echo ${APP_NAME:0:3}',
  'echo "${APP_NAME//-/_}"',
  'echo ${a.b}',
  'echo ${VAR-def}',
  'echo ${}',
  'echo ${ X}',
  'echo "${unterminated',
  'price=$5',
  "echo '${single_quoted}'",
  'echo ${{ github.sha }}',
  'echo {{workflow.name}}',
  'cp /tmp/handoff /data/',
  '$',
  '$$',
  '$$$',
  '${',
  'echo "ünïcödé ${NÄME} 🚀"',
  'echo "${DB_HOST:-${FALLBACK:-x}}"',
  'exit 0',
];

const TTL_VALUES = [
  '86400',
  '86400',
  '86400',
  '3600',
  '0',
  '"86400"',
  "'3600'",
  '8.64e4',
  '-1',
  '',
  '~',
  'null',
  '1.5',
  '0x10',
  '99999999999999999999',
  '{}',
  '[]',
  '!!int 86400',
  '!!str 86400',
  '&t !!str 3600',
  '!!null  # none',
  '!custom 5',
  '86400 # converges: trailing reason',
];
const NAMES = [
  'migrate',
  'migrate',
  'db-migrate-v2',
  'backup',
  '${APP_NAME}-init',
  '"quoted-name"',
  "'single'",
  'ünï-🚀',
  '""',
  '123',
  'true',
  'x'.repeat(70),
  '[a, b]',
  '{a: b}',
  '&n migrate',
  '!!str tagged',
];
const NOTES = ['none', 'above', 'above', 'trailing', 'placeholder', 'other-comment', 'blank-then-above'] as const;

export interface JobShape {
  header: 'job' | 'job-beta' | 'cronjob' | 'not-batch' | 'no-kind';
  name: string | null;
  namespace: boolean;
  spec: 'block' | 'flow-empty' | 'missing' | 'null' | 'scalar' | 'alias';
  ttl: { value: string; note: (typeof NOTES)[number]; first: boolean } | null;
  misplaced: Array<'template.spec' | 'metadata' | 'template' | 'container'>;
  script: string[];
  scriptStyle: '|' | '|-' | '>' | 'list' | 'double-quoted' | 'plain';
  comments: boolean;
  anchors: boolean;
  flowLabels: boolean;
}

export const jobShapeArb: fc.Arbitrary<JobShape> = fc.record({
  header: fc.constantFrom('job', 'job', 'job', 'job', 'job-beta', 'cronjob', 'not-batch', 'no-kind'),
  name: fc.option(fc.constantFrom(...NAMES), { freq: 8 }),
  namespace: fc.boolean(),
  spec: fc.constantFrom('block', 'block', 'block', 'block', 'block', 'block', 'flow-empty', 'missing', 'null', 'scalar', 'alias'),
  ttl: fc.option(fc.record({ value: fc.constantFrom(...TTL_VALUES), note: fc.constantFrom(...NOTES), first: fc.boolean() }), { freq: 2 }),
  misplaced: fc.subarray(['template.spec', 'metadata', 'template', 'container'] as const, { maxLength: 2 }),
  script: fc.array(fc.constantFrom(...SCRIPT_LINES), { maxLength: 6 }),
  scriptStyle: fc.constantFrom('|', '|-', '>', 'list', 'double-quoted', 'plain'),
  comments: fc.boolean(),
  anchors: fc.boolean(),
  flowLabels: fc.boolean(),
});

/** One Job (or near-Job) document as lines at two-space indentation (re-indented later). */
export function renderJob(shape: JobShape): string[] {
  const out: string[] = [];
  const c = (line: string) => shape.comments && out.push(line);
  c('# A Job the platform team owns');
  if (shape.header !== 'no-kind') out.push(shape.header === 'job-beta' ? 'apiVersion: batch/v1beta1' : shape.header === 'not-batch' ? 'apiVersion: apps/v1' : 'apiVersion: batch/v1');
  if (shape.header !== 'no-kind') out.push(shape.header === 'cronjob' ? 'kind: CronJob' : 'kind: Job');
  out.push('metadata:');
  if (shape.name !== null) out.push(`  name: ${shape.name}`);
  if (shape.namespace) out.push('  namespace: apps');
  if (shape.flowLabels) out.push('  labels: {app: demo, tier: "batch"}');
  else out.push(shape.anchors ? '  labels: &labels' : '  labels:', '    app.kubernetes.io/name: demo');
  if (shape.misplaced.includes('metadata')) out.push('  ttlSecondsAfterFinished: 600');
  const ttlLines = (indent: string): string[] => {
    if (!shape.ttl) return [];
    const lines: string[] = [];
    const { note, value } = shape.ttl;
    if (note === 'blank-then-above') lines.push('', `${indent}# converges: the script only creates what is missing`);
    if (note === 'above') lines.push(`${indent}# converges: the script only creates what is missing`);
    if (note === 'placeholder') lines.push(`${indent}# converges: TODO say why a second run reaches the same state and does not fail`);
    if (note === 'other-comment') lines.push(`${indent}# cleaned up after a day`);
    lines.push(`${indent}ttlSecondsAfterFinished: ${value}${note === 'trailing' ? ' # converges: idempotent upsert' : ''}`.replace(/ $/, ''));
    return lines;
  };
  if (shape.spec === 'missing') return out;
  if (shape.spec === 'flow-empty') return [...out, 'spec: {}'];
  if (shape.spec === 'null') return [...out, 'spec:'];
  if (shape.spec === 'scalar') return [...out, 'spec: none'];
  if (shape.spec === 'alias') return [...out, 'spec: *labels'];
  c('# the Job itself');
  out.push('spec:');
  if (shape.ttl?.first) out.push(...ttlLines('  '));
  out.push('  backoffLimit: 2');
  if (shape.header === 'cronjob') out.push('  schedule: "0 3 * * *"', '  jobTemplate:', '    spec:', ...ttlLines('      '));
  const t = shape.header === 'cronjob' ? '      ' : '  ';
  out.push(`${t}template:`);
  if (shape.misplaced.includes('template')) out.push(`${t}  ttlSecondsAfterFinished: 300`);
  if (shape.anchors && !shape.flowLabels) out.push(`${t}  metadata:`, `${t}    labels: *labels`);
  out.push(`${t}  spec:`);
  if (shape.misplaced.includes('template.spec')) out.push(`${t}    # converges: moved by hand`, `${t}    ttlSecondsAfterFinished: 120`);
  out.push(`${t}    restartPolicy: Never`, `${t}    containers:`, `${t}      - name: main`, `${t}        image: busybox:1.36`);
  if (shape.misplaced.includes('container')) out.push(`${t}        ttlSecondsAfterFinished: 60`);
  if (shape.script.length > 0) {
    const s = `${t}        `;
    if (shape.scriptStyle === 'list') out.push(`${s}args:`, ...shape.script.map((line) => `${s}  - ${JSON.stringify(line)}`));
    else if (shape.scriptStyle === 'double-quoted') out.push(`${s}command: ["/bin/sh", "-c", ${JSON.stringify(shape.script.join('\n'))}]`);
    else if (shape.scriptStyle === 'plain') out.push(`${s}command:`, `${s}  - /bin/sh`, `${s}  - -c`, `${s}  - ${shape.script[0]}`);
    else out.push(`${s}command:`, `${s}  - /bin/sh`, `${s}  - -c`, `${s}  - ${shape.scriptStyle}`, ...shape.script.map((line) => `${s}    ${line}`));
  }
  if (shape.ttl && !shape.ttl.first && shape.header !== 'cronjob') out.push(...ttlLines('  '));
  if (shape.comments) out.push('# end of the Job');
  return out;
}

/** Documents that are not Jobs but sit next to them in real repositories. */
export const OTHER_DOCS: string[][] = [
  ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: scripts', 'data:', '  run.sh: |', '    #!/bin/sh', '    echo "${APP_NAME}" $$ $HOME', '    echo "$${LITERAL}"'],
  ['apiVersion: v1', 'kind: ServiceAccount', 'metadata:', '  name: migrator', '  namespace: apps'],
  ['# only a comment'],
  [],
  ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: creds', 'stringData:', '  password: "${DB_PASSWORD}"'],
  ['apiVersion: helm.toolkit.fluxcd.io/v2', 'kind: HelmRelease', 'metadata:', '  name: app', 'spec:', '  values:', '    command: echo ${APP_NAME} $$'],
  [
    'apiVersion: batch/v1',
    'kind: CronJob',
    'metadata:',
    '  name: nightly',
    'spec:',
    '  schedule: "@daily"',
    '  jobTemplate:',
    '    spec:',
    '      ttlSecondsAfterFinished: 100',
    '      template:',
    '        spec:',
    '          containers: []',
  ],
  ['key: &anchor value', 'other: *anchor', 'list: [1, 2, {a: b}]'],
  ['%YAML 1.2', '---', 'a: 1'],
  ['a: 1', '...'],
  // `$` written through YAML escapes, quotes, folds, flow collections and keys
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: escapes',
    'data:',
    '  a: "\\x24{APP_NAME} \\u0024{DB_HOST} \\"${APP_NAME}\\""',
    "  b: 'it''s ${APP_NAME} $$ ''${Q}'''",
    '  c: >-',
    '    folded ${APP_NAME}',
    '    next ${DB_HOST:-',
    '    x}',
    '  ${KEY_VAR}: value',
    '  d: ["${A}", "$$", "$${B}", {k: "${C}"}]',
    '  e: "line one ${A}\\',
    '    ${B} continued"',
  ],
  [
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    '  name: opted-out',
    '  labels:',
    '    kustomize.toolkit.fluxcd.io/substitute: disabled',
    'spec:',
    '  ttlSecondsAfterFinished: 86400 # converges: no state',
    '  template:',
    '    spec:',
    '      containers:',
    '        - name: x',
    '          command: ["sh", "-c", "echo ${NOPE} $$"]',
  ],
];

export interface ManifestShape {
  docs: Array<{ job: JobShape } | { other: number }>;
  leadingMarker: boolean;
  indent: 2 | 4;
  crlf: boolean;
  finalNewline: boolean;
  bom: boolean;
}

export const manifestShapeArb: fc.Arbitrary<ManifestShape> = fc.record({
  docs: fc.array(fc.oneof({ weight: 3, arbitrary: jobShapeArb.map((job) => ({ job })) }, { weight: 1, arbitrary: fc.nat(OTHER_DOCS.length - 1).map((other) => ({ other })) }), {
    minLength: 1,
    maxLength: 4,
  }),
  leadingMarker: fc.boolean(),
  indent: fc.constantFrom(2 as const, 4 as const),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  bom: fc.constantFrom(false, false, false, false, true),
});

export function renderManifest(shape: ManifestShape): string {
  const docs = shape.docs.map((doc) => ('job' in doc ? renderJob(doc.job) : OTHER_DOCS[doc.other]));
  const lines: string[] = [];
  if (shape.leadingMarker) lines.push('---');
  docs.forEach((doc, i) => {
    if (i > 0) lines.push('---');
    lines.push(...doc.map((line) => (shape.indent === 4 ? line.replace(/^( *)/, (m) => m + m) : line)));
  });
  let text = lines.join('\n') + (shape.finalNewline ? '\n' : '');
  if (shape.crlf) text = text.replace(/\n/g, '\r\n');
  return (shape.bom ? '\ufeff' : '') + text;
}

export const manifestArb = manifestShapeArb.map(renderManifest);

// ---- random edits -------------------------------------------------------------------------------

const TOKENS = [
  '---\n',
  '...\n',
  ': ',
  '- ',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '&a ',
  '*a',
  '!Ref ',
  '!env_var ',
  '#',
  ' # c',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '${',
  '$$',
  '$',
  '|\n',
  '>-\n',
  '? ',
  ',',
  '%YAML 1.2\n',
  '\ufeff',
  '\u2028',
  '\ud83d',
  '\ude80',
  '🚀',
  '\0',
  'ttlSecondsAfterFinished: 86400\n',
  '  ttlSecondsAfterFinished: "1"\n',
  'kind: Job\n',
  'apiVersion: batch/v1\n',
  'spec:\n',
  '<<: *a\n',
  '{{ .Values.x }}',
  '{{- if .Values.enabled }}\n',
];
const YAMLISH = '{}[]:-#&*!|>\'" \t\r\n$%@`,?abc'.split('');

export const insertTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TOKENS) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...YAMLISH), maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(...SCRIPT_LINES) },
);

export type Mutation =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'paste'; at: number; fragment: string; from: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'dup-line'; at: number }
  | { kind: 'indent'; at: number; delta: number };

const fraction = fc.integer({ min: 0, max: 10000 });

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fraction, text: insertTextArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fraction, length: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('paste' as const), at: fraction, fragment: manifestArb, from: fraction, length: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fraction }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dup-line' as const), at: fraction }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('indent' as const), at: fraction, delta: fc.integer({ min: -4, max: 4 }) }) },
);

export function applyMutation(text: string, m: Mutation): string {
  const at = Math.floor((m.at / 10000) * text.length);
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  switch (m.kind) {
    case 'insert':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.length);
    case 'paste': {
      const from = Math.floor((m.from / 10000) * m.fragment.length);
      return text.slice(0, lineStart) + m.fragment.slice(from, from + m.length) + text.slice(lineStart);
    }
    case 'truncate':
      return text.slice(0, at);
    case 'dup-line': {
      const end = text.indexOf('\n', at);
      const line = text.slice(lineStart, end === -1 ? text.length : end + 1);
      return text.slice(0, lineStart) + line + text.slice(lineStart);
    }
    case 'indent':
      return m.delta >= 0 ? text.slice(0, lineStart) + ' '.repeat(m.delta) + text.slice(lineStart) : text.slice(0, lineStart) + text.slice(lineStart).replace(new RegExp(`^ {0,${-m.delta}}`), '');
  }
}

export const mutatedManifestArb: fc.Arbitrary<{ original: string; mutations: Mutation[]; text: string }> = fc
  .tuple(manifestArb, fc.array(mutationArb, { maxLength: 4 }))
  .map(([original, mutations]) => ({ original, mutations, text: mutations.reduce(applyMutation, original) }));

// ---- contracts and repositories -----------------------------------------------------------------

export const contractArb = (files: string[], names: string[]): fc.Arbitrary<string> =>
  fc
    .record({
      include: fc.option(
        fc.subarray(['**/*.yaml', 'apps/**', 'apps/', '**/*.yml', 'missing/**', '{apps,clusters}/**/*.yaml', '[a-z]*/**', '../**', '/abs/**', 'x'.repeat(1001)], { minLength: 1, maxLength: 3 }),
      ),
      exclude: fc.option(fc.subarray(['**/patch*.yaml', 'charts/**', 'apps/other.yaml'], { maxLength: 2 })),
      required: fc.option(fc.constantFrom('86400', '3600', '-1', '"x"', '0')),
      note: fc.option(fc.constantFrom('"converges:"', 'idempotent:', '""', '[]')),
      entries: fc.array(
        fc.record({
          list: fc.constantFrom('noFinishTimeout', 'otherFinishTimeout'),
          file: fc.constantFrom(...files, '../outside.yaml', '/etc/passwd', 'apps/*.yaml', 'missing.yaml', 'apps/../apps/job.yaml', ''),
          job: fc.option(fc.constantFrom(...names, 'ghost')),
          value: fc.option(fc.constantFrom('3600', '86400', '600', '"x"')),
          reason: fc.option(fc.constantFrom('the completions are evidence', '""', 'TODO write why this Job is an exception')),
        }),
        { maxLength: 4 },
      ),
      rules: fc.option(
        fc.subarray(['ttl-convergence-note: info', 'ttl-missing: warning', 'yaml-syntax: off', 'no-such-rule: error', 'ttl-forbidden: loud', 'flux-substitution-bare-dollar: warning'], {
          maxLength: 3,
        }),
      ),
      flux: fc.option(
        fc.constantFrom('flux:\n  substitution: always\n  strict: false', 'flux:\n  substitution: never', 'flux:\n  substitution: auto\n  strict: true', 'flux:\n  substitution: sometimes'),
      ),
      emptyLists: fc.boolean(),
      comments: fc.boolean(),
    })
    .map((c) => {
      const lines: string[] = [];
      if (c.comments) lines.push('# Flux Job Guard contract');
      if (c.include || c.exclude) {
        lines.push('jobs:');
        if (c.include) lines.push('  include:', ...c.include.map((g) => `    - ${JSON.stringify(g)}`));
        if (c.exclude) lines.push('  exclude:', ...c.exclude.map((g) => `    - ${JSON.stringify(g)}`));
      }
      const byList = (list: string) => c.entries.filter((e) => e.list === list);
      if (c.required || c.note || c.entries.length > 0 || c.emptyLists) {
        lines.push('ttl:');
        if (c.required) lines.push(`  required: ${c.required}`);
        if (c.note) lines.push(`  convergenceNote: ${c.note}`);
        for (const list of ['noFinishTimeout', 'otherFinishTimeout']) {
          const entries = byList(list);
          if (entries.length === 0) {
            if (c.emptyLists) lines.push(`  ${list}: []`);
            continue;
          }
          lines.push(`  ${list}:`);
          for (const e of entries) {
            lines.push(`    - file: ${JSON.stringify(e.file)}`);
            if (e.job !== null) lines.push(`      job: ${JSON.stringify(e.job)}`);
            if (list === 'otherFinishTimeout' && e.value !== null) lines.push(`      value: ${e.value}`);
            if (e.reason !== null) lines.push(`      reason: ${e.reason}`);
            if (c.comments) lines.push('      # entry comment');
          }
        }
      }
      if (c.flux) lines.push(c.flux);
      if (c.rules) lines.push('rules:', ...c.rules.map((r) => `  ${r}`));
      return lines.join('\n') + '\n';
    });

const FLUX_KUSTOMIZATION = (path: string, postBuild: string[]) =>
  [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    '  name: apps',
    '  namespace: flux-system',
    'spec:',
    '  interval: 10m',
    `  path: ${path}`,
    '  prune: true',
    '  sourceRef:',
    '    kind: GitRepository',
    '    name: flux-system',
    ...postBuild,
  ].join('\n') + '\n';

const POST_BUILDS: string[][] = [
  [],
  ['  postBuild:', '    substitute:', '      APP_NAME: demo', '      DB_HOST: db.internal'],
  ['  postBuild:', '    substitute:', '      APP_NAME: demo', '    substituteFrom:', '      - kind: ConfigMap', '        name: cluster-vars'],
  ['  postBuild:', '    substituteFrom:', '      - kind: Secret', '        name: cluster-secrets', '        optional: true'],
  ['  postBuild:', '    substituteStrategy: Always'],
  ['  postBuild:', '    substitute:', '      app.conf: bad-name', '      FLAG: "1"'],
  ['  postBuild:', '    substitute: {}'],
];

export interface WorldShape {
  main: string;
  mainIsPatch: boolean;
  other: string | null;
  kustomization: string | null;
  flux: string | null;
  vars: boolean;
  chart: boolean;
  helmElsewhere: boolean;
  contract: string | null;
  binary: Uint8Array | null;
  contractBytes: boolean;
  maxFileSize: number;
}

const HELM_TEMPLATE = 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ include "app.fullname" . }}\n{{- if .Values.ttl }}\nspec:\n  ttlSecondsAfterFinished: {{ .Values.ttl }}\n{{- end }}\n';

export const worldShapeArb: fc.Arbitrary<WorldShape> = fc.record({
  main: fc.oneof({ weight: 3, arbitrary: manifestArb }, { weight: 2, arbitrary: mutatedManifestArb.map((m) => m.text) }),
  mainIsPatch: fc.constantFrom(false, false, false, true),
  other: fc.option(manifestArb, { freq: 2 }),
  kustomization: fc.option(
    fc.constantFrom(
      'resources:\n  - job.yaml\n  - other.yaml\n',
      'resources:\n  - job.yaml\npatches:\n  - path: other.yaml\n',
      'patchesStrategicMerge:\n  - other.yaml\n  - ../../outside/patch.yaml\n  - /etc/passwd\n',
      'resources: [job.yaml, missing.yaml, ../outside]\ncomponents: [../components/x]\n',
      'resources: {{ broken\n',
    ),
  ),
  flux: fc.option(fc.tuple(fc.constantFrom('./apps', 'apps', './', '../outside', '/abs', './missing', '""'), fc.constantFrom(...POST_BUILDS)).map(([path, post]) => FLUX_KUSTOMIZATION(path, post))),
  vars: fc.boolean(),
  chart: fc.boolean(),
  helmElsewhere: fc.constantFrom(false, false, true),
  contract: fc.option(
    fc.oneof(
      contractArb(['apps/job.yaml', 'job.yaml', 'apps/other.yaml'], ['migrate', 'backup', '${APP_NAME}-init']),
      fc.tuple(contractArb(['apps/job.yaml'], ['migrate']), fc.array(mutationArb, { minLength: 1, maxLength: 2 })).map(([text, ms]) => ms.reduce(applyMutation, text)),
    ),
    { freq: 2 },
  ),
  binary: fc.option(fc.uint8Array({ maxLength: 64 }), { freq: 6 }),
  contractBytes: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  maxFileSize: fc.constantFrom(DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILE_SIZE, 400),
});

export function buildWorld(shape: WorldShape): World {
  const world: World = new Map();
  world.set('apps/job.yaml', shape.main);
  if (shape.other !== null) world.set('apps/other.yaml', shape.other);
  if (shape.kustomization !== null) world.set('apps/kustomization.yaml', shape.mainIsPatch ? shape.kustomization.replace('path: other.yaml', 'path: job.yaml') : shape.kustomization);
  if (shape.flux !== null) world.set('clusters/apps.yaml', shape.flux);
  if (shape.vars) world.set('clusters/vars.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata:\n  DB_PORT: "5432"\n  FALLBACK: x\n');
  if (shape.chart) {
    world.set('charts/app/Chart.yaml', 'apiVersion: v2\nname: app\nversion: 0.1.0\n');
    world.set('charts/app/templates/job.yaml', HELM_TEMPLATE);
  }
  if (shape.helmElsewhere) world.set('apps/templates/job.yaml', HELM_TEMPLATE);
  if (shape.contract !== null) world.set(CONTRACT, shape.contractBytes ? new Uint8Array([0x6a, 0x6f, 0x62, 0x73, 0x3a, 0x00, 0xff]) : shape.contract);
  if (shape.binary !== null) world.set('apps/blob.yaml', shape.binary);
  return world;
}

export const worldArb = worldShapeArb.map((shape) => ({ shape, world: buildWorld(shape) }));

// ---- the checker --------------------------------------------------------------------------------

/** How a case is analysed: findings for a world. Tests swap in broken analysers as negative controls. */
export type Analyzer = (world: World) => Promise<Finding[]>;

export const auditAnalyzer =
  (maxFileSize = DEFAULT_MAX_FILE_SIZE): Analyzer =>
  async (world) =>
    (await audit(new MemoryRepoFs(world, maxFileSize), { contractPath: CONTRACT })).findings;

/** The editor's path: one open file analysed alone with the contract (as the language server does). */
export const fileAnalyzer =
  (file: string, role: FileRole): Analyzer =>
  (world) => {
    const contractContent = world.get(CONTRACT);
    const contract = loadContract(CONTRACT, typeof contractContent === 'string' ? contractContent : undefined, {}, RULE_IDS).contract;
    const text = world.get(file);
    if (typeof text !== 'string') return Promise.resolve([]);
    // An editor hands the server the text without its BOM.
    return Promise.resolve(analyzeFile({ file, text: text.replace(/^\ufeff/, ''), role, contract }).findings);
  };

export interface CheckOptions {
  /** At most this many fixes are applied and re-analysed per case (each costs one more analysis). */
  maxFixes?: number;
  /** A second analyser whose findings must equal the first's (e.g. the audit over files listed in another order). */
  twin?: Analyzer;
  /** Counts the fixes applied. */
  stats?: RunStats;
  /** The analyser's size limit: a fix that grows a file past it makes the file unreadable, so its effect is not checked. */
  maxFileSize?: number;
}

const yamlErrors = (text: string) => parseYamlFile(text).reduce((n, d) => n + d.errors.length, 0);

/** The text the engine reads (BOM dropped; bytes decoded), '' for a missing file, null for bytes that are no text. */
function engineText(world: World, file: string): string | null {
  const content = world.get(file);
  if (content === undefined) return '';
  if (typeof content !== 'string') {
    const decoded = decodeFile(content, Number.MAX_SAFE_INTEGER);
    return decoded.kind === 'text' ? decoded.text : null;
  }
  return content.replace(/^\ufeff/, '');
}

const findingKey = (f: Finding) => `${f.rule}\u0000${f.file}\u0000${f.job}`;
const fixKey = (f: Finding, fix: Fix) => `${findingKey(f)}\u0000${fix.title}\u0000${JSON.stringify(fix.edits.map((e) => [e.file, e.newText, !!e.create]))}`;
const countBy = <T>(items: T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};
const describe = (f: Finding) => `${f.rule} ${f.file}:${f.range.start.line}:${f.range.start.character} job=${JSON.stringify(f.job)}`;

/** Applies a fix to a world as VS Code applies a WorkspaceEdit; returns the new world or a violation. */
export function applyFix(world: World, fix: Fix): World | string {
  const next: World = new Map(world);
  const byFile = new Map<string, FileEdit[]>();
  for (const edit of fix.edits) byFile.set(edit.file, [...(byFile.get(edit.file) ?? []), edit]);
  for (const [file, edits] of byFile) {
    const content = world.get(file);
    if (content !== undefined && typeof content !== 'string') return `fix "${fix.title}" edits ${file}, a file the engine could not read as text (its bytes would be corrupted)`;
    if (content === undefined && !edits.some((e) => e.create)) return `fix "${fix.title}" edits ${file}, which does not exist, without creating it`;
    const before = content ?? '';
    // What the engine read: an editor shows the text without its BOM, and so do fix positions.
    const bom = before.startsWith('\ufeff') ? '\ufeff' : '';
    try {
      next.set(file, bom + applyLspEdits(before.slice(bom.length), edits));
    } catch (error) {
      return `fix "${fix.title}" on ${file}: ${(error as Error).message}`;
    }
  }
  return next;
}

/**
 * Every invariant over one world; returns the violations (empty when all hold).
 * Throws only when the analyser throws (the engine must never).
 */
export async function checkWorld(world: World, analyze: Analyzer, options: CheckOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const findings = await analyze(world);
  // Determinism: a second run, and the twin analyser, see exactly the same.
  const again = await analyze(world);
  if (JSON.stringify(again) !== JSON.stringify(findings)) problems.push('two analyses of the same input differ');
  if (options.twin) {
    const twin = await options.twin(world);
    if (JSON.stringify(twin) !== JSON.stringify(findings)) problems.push('the analysis depends on the order files are listed in');
  }
  problems.push(...checkFindings(world, findings));
  const maxFixes = options.maxFixes ?? 8;
  let fixesChecked = 0;
  const beforeFindings = countBy(findings, findingKey);
  const beforeFixes = countBy(
    findings.flatMap((f) => (f.fixes ?? []).map((fix) => fixKey(f, fix))),
    (k) => k,
  );
  for (const finding of findings) {
    for (const fix of finding.fixes ?? []) {
      if (fixesChecked++ >= maxFixes) return problems;
      if (options.stats) options.stats.fixesApplied++;
      problems.push(...(await checkFix(world, finding, fix, analyze, findings, beforeFindings, beforeFixes, options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE)));
    }
  }
  return problems;
}

/** Rules, severities, messages, and every range inside the file it names. */
export function checkFindings(world: World, findings: Finding[]): string[] {
  const problems: string[] = [];
  for (const f of findings) {
    if (!RULE_IDS.has(f.rule)) problems.push(`unknown rule ${f.rule}`);
    if (!['error', 'warning', 'info'].includes(f.severity)) problems.push(`bad severity ${f.severity} on ${describe(f)}`);
    if (typeof f.message !== 'string' || f.message.trim() === '') problems.push(`empty message on ${describe(f)}`);
    if (f.file !== CONTRACT && !world.has(f.file)) problems.push(`finding on a file that does not exist: ${describe(f)}`);
    const text = engineText(world, f.file);
    const where = rangeOffsets(new LspText(text ?? ''), f.range);
    if (typeof where === 'string') problems.push(`range outside ${f.file}: ${where} (${describe(f)})`);
  }
  return problems;
}

async function checkFix(
  world: World,
  finding: Finding,
  fix: Fix,
  analyze: Analyzer,
  findings: Finding[],
  beforeFindings: Map<string, number>,
  beforeFixes: Map<string, number>,
  maxFileSize: number,
): Promise<string[]> {
  const problems: string[] = [];
  const name = `fix "${fix.title}" of ${describe(finding)}`;
  if (fix.edits.length === 0) return [`${name} has no edit`];
  // Each edit writes the line ending of the file it edits, and stays inside one YAML document.
  for (const edit of fix.edits) {
    const text = engineText(world, edit.file);
    if (text === null) continue; // applyFix reports it
    // In a file with one line ending throughout, a fix writes that one (mixed files: either).
    const crlf = text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
    const lf = text.includes('\n') && !text.includes('\r');
    if (crlf && /(^|[^\r])\n/.test(edit.newText)) problems.push(`${name} writes a bare LF into the CRLF file ${edit.file}`);
    if (lf && edit.newText.includes('\r')) problems.push(`${name} writes a CR into the LF file ${edit.file}`);
    const offsets = rangeOffsets(new LspText(text), edit.range);
    if (typeof offsets === 'string') continue; // applyFix reports it
    const [start, end] = offsets;
    if (edit.file === finding.file && documentBoundaries(text).some((b) => start < b && b < end)) problems.push(`${name} edits across a document boundary (${start}..${end})`);
  }
  // A fix edits the finding's own document (it may edit other files, such as the contract, too).
  const onOwnFile = fix.edits.filter((e) => e.file === finding.file);
  const ownText = engineText(world, finding.file);
  if (onOwnFile.length > 0 && ownText !== null) {
    const lsp = new LspText(ownText);
    const starts = documentBoundaries(ownText);
    const own = rangeOffsets(lsp, finding.range);
    if (typeof own !== 'string') {
      const i = starts.filter((s) => s <= own[0]).length - 1;
      const [chunkStart, chunkEnd] = [starts[i], starts[i + 1] ?? ownText.length];
      const inOwn = onOwnFile.some((e) => {
        const r = rangeOffsets(lsp, e.range);
        return typeof r === 'string' || (r[0] >= chunkStart && r[1] <= chunkEnd);
      });
      if (!inOwn) problems.push(`${name} edits only other documents of ${finding.file}, not the finding's own`);
    }
  }
  const after = applyFix(world, fix);
  if (typeof after === 'string') return [...problems, after];
  // Bytes outside the edits are identical (checked per file against the applied text).
  for (const file of new Set(fix.edits.map((e) => e.file))) {
    const before = engineText(world, file) ?? '';
    const now = engineText(after, file) ?? '';
    const lsp = new LspText(before);
    const spans = fix.edits.filter((e) => e.file === file).map((e) => rangeOffsets(lsp, e.range) as [number, number]);
    const lo = Math.min(...spans.map((s) => s[0]));
    const hi = Math.max(...spans.map((s) => s[1]));
    if (now.slice(0, lo) !== before.slice(0, lo) || now.slice(now.length - (before.length - hi)) !== before.slice(hi)) problems.push(`${name} changed bytes outside its edits in ${file}`);
    if (world.has(file) && yamlErrors(now) > yamlErrors(before))
      problems.push(
        `${name} adds YAML errors to ${file}: ${parseYamlFile(now)
          .flatMap((d) => d.errors.map((e) => e.message))
          .join('; ')}`,
      );
    if (!world.has(file) && yamlErrors(now) > 0) problems.push(`${name} creates ${file} with YAML errors`);
  }
  const findingsAfter = await analyze(after);
  problems.push(...checkFindings(after, findingsAfter).map((p) => `after ${name}: ${p}`));
  const grownPastLimit = [...new Set(fix.edits.map((e) => e.file))].some((file) => new TextEncoder().encode(engineText(after, file) ?? '').length > maxFileSize);
  if (grownPastLimit) return problems; // the fixed file is now skipped as too large: its effect cannot show
  const countAfter = countBy(findingsAfter, findingKey);
  // Its own finding is gone when fewer findings of its rule remain, or none says the same thing any more (renaming
  // an unknown contract key to `rules` removes that finding and lets the rules under it be checked, one more of the rule).
  const sameMessage = findingsAfter.filter((f) => findingKey(f) === findingKey(finding) && f.message === finding.message).length;
  const sameMessageBefore = findings.filter((f) => findingKey(f) === findingKey(finding) && f.message === finding.message).length;
  if ((countAfter.get(findingKey(finding)) ?? 0) >= (beforeFindings.get(findingKey(finding)) ?? 0) && sameMessage >= sameMessageBefore) {
    problems.push(`${name} does not remove its finding (still ${countAfter.get(findingKey(finding))})`);
  }
  const fixesAfter = countBy(
    findingsAfter.flatMap((f) => (f.fixes ?? []).map((x) => fixKey(f, x))),
    (k) => k,
  );
  const key = fixKey(finding, fix);
  if ((fixesAfter.get(key) ?? 0) >= (beforeFixes.get(key) ?? 0) && (fixesAfter.get(key) ?? 0) > 0) {
    problems.push(`${name} is not idempotent: the fixed text offers the same fix again`);
  }
  const syntaxBefore = findings.filter((f) => f.rule === 'yaml-syntax').length;
  const syntaxAfter = findingsAfter.filter((f) => f.rule === 'yaml-syntax').length;
  if (syntaxAfter > syntaxBefore) problems.push(`${name} adds yaml-syntax findings (${syntaxBefore} -> ${syntaxAfter})`);
  return problems;
}

// ---- running ------------------------------------------------------------------------------------

export interface RunStats {
  cases: number;
  fixesApplied: number;
}

/** The properties, each as a fast-check property over its own arbitrary; `stats` counts what ran. */
export function properties(stats: RunStats) {
  return {
    /** The editor's path: analyzeFile over realistic and mutated manifests, in every role. */
    analyzeFile: fc.asyncProperty(
      fc.oneof(
        manifestArb,
        mutatedManifestArb.map((m) => m.text),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => new TextDecoder().decode(bytes)),
      ),
      fc.option(contractArb(['job.yaml'], ['migrate', 'backup', '${APP_NAME}-init']), { freq: 2 }),
      fc.constantFrom<FileRole>('resource', 'resource', 'resource', 'patch', 'chart-template'),
      async (text, contract, role) => {
        stats.cases++;
        const world: World = new Map([['job.yaml', text]]);
        if (contract !== null) world.set(CONTRACT, contract);
        const analyzer = fileAnalyzer('job.yaml', role);
        const problems = await checkWorld(world, analyzer, { stats });
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
    ),
    /** The whole audit over small repositories (kustomizations, Flux Kustomizations, charts, a contract). */
    audit: fc.asyncProperty(worldArb, async ({ shape, world }) => {
      stats.cases++;
      const analyzer = auditAnalyzer(shape.maxFileSize);
      const twin: Analyzer = async (w) => (await audit(new MemoryRepoFs(w, shape.maxFileSize, 'reversed'), { contractPath: CONTRACT })).findings;
      const problems = await checkWorld(world, analyzer, { twin, stats, maxFileSize: shape.maxFileSize });
      if (problems.length > 0) throw new Error(problems.join('\n'));
    }),
    /** Random bytes through decodeFile: never throws, never keeps a BOM, refuses NUL and bad UTF-8. */
    decode: fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, bom) => {
      stats.cases++;
      const input = bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]) : bytes;
      const result = decodeFile(input, DEFAULT_MAX_FILE_SIZE);
      if (result.kind === 'text') {
        if (result.text.startsWith('\ufeff') && bom) throw new Error('the BOM survived decoding');
        if (input.includes(0)) throw new Error('a file with NUL bytes was read as text');
        if (new TextEncoder().encode((bom ? '\ufeff' : '') + result.text).length !== input.length) throw new Error('decoding lost bytes');
      }
    }),
  };
}
