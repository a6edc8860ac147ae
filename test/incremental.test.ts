// The fast path and the straightforward one must agree: the per-document
// cached analysis the server runs as the user types (DocumentSession),
// fed a sequence of edits, gives exactly the findings of analyzeFile over the
// whole text, and so does a parse of the whole text in one go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { analyzeFile, FileInput, syntaxOnlyAnalysis } from '../server/src/engine/pipeline/analyze';
import { defaultContract } from '../server/src/engine/contract/load';
import { chunksOf, DocumentSession, documentMayMatter, fileMayMatter, rechunk } from '../server/src/engine/pipeline/incremental';
import { parseYamlFile } from '../server/src/engine/yaml/documents';
import { summarizeFile } from '../server/src/engine/pipeline/file-summary';
import type { ParsedDocument } from '../server/src/engine/yaml/documents';
import { applyMutation, manifestArb, mutationArb } from './helpers/arbitraries';

const contract = defaultContract('.flux-job-guard.yaml');
const input = (text: string): FileInput => ({ file: 'apps/jobs.yaml', text, role: 'resource', contract });

/** The whole text parsed in one call, no `---` splitting: the reference the chunking must match. */
function wholeParse(text: string): ParsedDocument[] {
  return parseAllDocuments(text, { prettyErrors: false, strict: false }).map((doc) => ({
    base: 0,
    end: text.length,
    doc: doc,
    source: text,
    errors: doc.errors.map((e) => ({ start: e.pos[0], end: Math.max(e.pos[0], e.pos[1]), message: e.message.split('\n')[0] })),
  }));
}

const strip = (findings: ReturnType<typeof analyzeFile>['findings']): unknown => JSON.parse(JSON.stringify(findings));

test('incremental analysis over random edit sequences equals a full analysis after every edit', () => {
  fc.assert(
    fc.property(manifestArb, fc.array(mutationArb, { minLength: 1, maxLength: 8 }), (original, mutations) => {
      const session = new DocumentSession('apps/jobs.yaml');
      let text = original;
      for (const mutation of [null, ...mutations]) {
        if (mutation) text = applyMutation(text, mutation);
        session.update(text);
        const fast = session.analyze(input(text), 'context', null);
        const full = analyzeFile(input(text));
        assert.deepEqual(strip(fast.findings), strip(full.findings));
        assert.deepEqual(fast.jobs, full.jobs);
      }
    }),
    { numRuns: 150 },
  );
});

test('splitting at --- gives the same findings as parsing the whole text at once (valid files)', () => {
  fc.assert(
    fc.property(manifestArb, (text) => {
      const whole = wholeParse(text);
      // valid to both readings: YAML 1.2 (the whole text at once) and go-yaml (each --- piece alone, as kustomize decodes it)
      fc.pre(whole.every((d) => d.errors.length === 0) && parseYamlFile(text).every((d) => d.errors.length === 0));
      assert.deepEqual(strip(analyzeFile(input(text)).findings), strip(analyzeFile(input(text), whole).findings));
    }),
    { numRuns: 150 },
  );
});

test('incremental summaries (facts and names used) equal those of the whole text, after edits', () => {
  const kustomization = (name: string, line: string) =>
    `---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\nspec:\n  path: ./apps\n  postBuild:\n    substitute:\n      ${line}\n`;
  const session = new DocumentSession('flux/ks.yaml');
  let text = kustomization('a', 'A: "1"') + '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  X: ${Y}\n' + kustomization('b', 'B: "2"');
  for (const edit of [(t: string) => t, (t: string) => '# a comment line\n' + t, (t: string) => t.replace('X: ${Y}', 'X: ${Y}\n  Z: ${W:=w} ${V}'), (t: string) => t.replace('B: "2"', 'B: "3"')]) {
    text = edit(text);
    session.update(text);
    const summary = session.summary();
    assert.deepEqual(JSON.parse(JSON.stringify(summary, mapsAsArrays)), JSON.parse(JSON.stringify(summarizeFile('flux/ks.yaml', text), mapsAsArrays)));
    assert.ok(summary.uses.includes('Y') && summary.facts?.kustomizations.length === 2, 'the summary holds what the text says');
  }
});

test('rechunk after random edits gives the chunks (keys, offsets, lines) of a fresh split', () => {
  fc.assert(
    fc.property(manifestArb, fc.array(mutationArb, { minLength: 1, maxLength: 8 }), (original, mutations) => {
      let text = original;
      let chunks = chunksOf(text);
      for (const mutation of mutations) {
        const next = applyMutation(text, mutation);
        chunks = rechunk(text, chunks, next);
        text = next;
        assert.deepEqual(chunks, chunksOf(text));
      }
    }),
    { numRuns: 200 },
  );
});

test('rechunk in large documents, with edits at their boundaries and replacements of as many characters', () => {
  const big = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${Array.from({ length: 2500 }, (_, i) => `  key${i}: value-${i}-abcdefghij\n`).join('')}`;
  fc.assert(
    fc.property(manifestArb, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom('', 'x', 'yz', '\n', '  k: v\n', '---\n')), { minLength: 1, maxLength: 8 }), (manifest, edits) => {
      let text = `${manifest}---\n${big}---\n${big.replace('name: big', 'name: big2')}`;
      let chunks = chunksOf(text);
      for (const [at, removed, inserted] of edits) {
        const offset = at % 3 === 0 ? text.indexOf('---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big') - 2 + (at % 5) : at % text.length;
        const next = text.slice(0, offset) + inserted + text.slice(offset + removed);
        chunks = rechunk(text, chunks, next);
        text = next;
        assert.deepEqual(chunks, chunksOf(text));
      }
    }),
    { numRuns: 150, seed: 22 },
  );
});

test('the editor session (prefilter on) equals the full analysis without yaml-syntax, after every edit', () => {
  const withoutSyntax = (findings: ReturnType<typeof analyzeFile>['findings']) => strip(findings.filter((f) => f.rule !== 'yaml-syntax'));
  fc.assert(
    fc.property(manifestArb, fc.array(mutationArb, { minLength: 1, maxLength: 6 }), (original, mutations) => {
      const session = new DocumentSession('apps/jobs.yaml');
      let text = original;
      for (const mutation of [null, ...mutations]) {
        if (mutation) text = applyMutation(text, mutation);
        session.update(text);
        const fast = session.analyze(input(text), 'context', { bareDollar: false });
        assert.deepEqual(withoutSyntax(fast.findings), withoutSyntax(analyzeFile(input(text)).findings));
      }
    }),
    { numRuns: 150 },
  );
});

function mapsAsArrays(_key: string, value: unknown) {
  return value instanceof Map ? [...value.entries()] : value;
}

test('negative control: a stale cache is detected (a context change that is not signalled gives old findings)', () => {
  const session = new DocumentSession('apps/jobs.yaml');
  const job = 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  ttlSecondsAfterFinished: 3600\n  template: {}\n';
  session.update(job);
  session.analyze(input(job), 'v1', null);
  const other = { ...input(job), contract: { ...contract, requiredTtl: 3600 } };
  assert.notDeepEqual(strip(session.analyze(other, 'v1', null).findings), strip(analyzeFile(other).findings), 'same context key: the cache answers (old findings)');
  assert.deepEqual(strip(session.analyze(other, 'v2', null).findings), strip(analyzeFile(other).findings), 'a new context key: fresh findings');
});

test('a file the prefilter calls irrelevant gets from the syntax-only path exactly what the full analysis gives', () => {
  fc.assert(
    fc.property(manifestArb, fc.array(mutationArb, { maxLength: 4 }), (original, mutations) => {
      const text = mutations.reduce(applyMutation, original).replace(/Job\b|\$|\/tmp\/|serviceAccount|\{\{/g, 'x');
      fc.pre(!documentMayMatter(text, false));
      const documents = parseYamlFile(text);
      assert.deepEqual(strip(syntaxOnlyAnalysis('a.yaml', text, documents).findings), strip(analyzeFile({ ...input(text), file: 'a.yaml' }, documents).findings));
    }),
    { numRuns: 150 },
  );
});

test('the audit’s file test lets templates and aliases outside a templates folder take the syntax-only path, with the same findings', () => {
  const extras = fc.constantFrom('', 'note: "{{ .Values.x }}"\n', 'base: &b\n  a: 1\nother: *b\n', 'bad: {{ x }\n', 'a: &a [*a]\n', 'values:\n  serviceAccountName: app\n  dir: /tmp/x/\n');
  fc.assert(
    fc.property(manifestArb, fc.array(mutationArb, { maxLength: 4 }), extras, (original, mutations, extra) => {
      const text = mutations.reduce(applyMutation, original).replace(/Job\b|\$|\/tmp\/|serviceAccount/g, 'x') + extra;
      fc.pre(!fileMayMatter('apps/a.yaml', text, false));
      const documents = parseYamlFile(text);
      assert.deepEqual(strip(syntaxOnlyAnalysis('apps/a.yaml', text, documents).findings), strip(analyzeFile({ ...input(text), file: 'apps/a.yaml' }, documents).findings));
    }),
    { numRuns: 150 },
  );
  assert.equal(fileMayMatter('apps/a.yaml', 'kind: CronJob\nx: "{{workflow.name}}"\n', false), true, 'a Job’s template still waits');
});

test('negative control: in a templates folder the file waits, because a chart’s template gets no findings there', () => {
  const text = 'kind: ConfigMap\ndata: {{ .Values.data }\n';
  assert.equal(fileMayMatter('apps/a.yaml', text, false), false);
  assert.equal(fileMayMatter('charts/app/templates/cm.yaml', text, false), true);
  const documents = parseYamlFile(text);
  const template: FileInput = { ...input(text), file: 'charts/app/templates/cm.yaml', role: 'chart-template' };
  assert.equal(syntaxOnlyAnalysis(template.file, text, documents).findings.length, 1, 'the syntax-only path would report the template');
  assert.deepEqual(analyzeFile(template, documents).findings, []);
});

test('negative control: a pod’s account makes its file wait, and the full analysis then finds what the syntax-only path cannot', () => {
  const text = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      serviceAccountName: nowhere\n      containers: []\n';
  assert.equal(fileMayMatter('apps/a.yaml', text, false), true);
  assert.equal(fileMayMatter('apps/a.yaml', text.replace('kind: Deployment', 'kind: HelmRelease'), false), false);
  const documents = parseYamlFile(text);
  const full = analyzeFile({ ...input(text), file: 'apps/a.yaml', repository: { declaresServiceAccount: () => false } }, documents);
  assert.deepEqual(
    full.findings.map((finding) => finding.rule),
    ['pod-service-account-undeclared'],
  );
  assert.deepEqual(syntaxOnlyAnalysis('apps/a.yaml', text, documents).findings, []);
});
