// The kustomize model against kustomize itself: every kustomization folder
// of ../shared/corpus/ (oracle: ../shared/oracles/kustomize/corpus.jsonl,
// kustomize v5.5.0's own build of each) and of test/fixtures/kustomize/
// (oracle.jsonl beside them, made the same way: `python3
// ../shared/oracles/kustomize/make.py test/fixtures/kustomize >
// test/fixtures/kustomize/oracle.jsonl`). Per folder the set of resource ids
// (apiVersion, kind, final namespace and name) and each resource's
// substitution opt-out (annotation and label) must be the same, and the
// model must fail exactly where kustomize fails (`build`); folders kustomize
// could not build offline (`remote`) or that inflate Helm charts (`helm`)
// are not compared. No kubectl runs here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KustomizeBuilder, SUBSTITUTE_OPT_OUT } from '../server/src/engine/kustomize/build';
import { optOutOf } from '../server/src/engine/kustomize/document-query';
import type { KustomizeFiles } from '../server/src/engine/kustomize/files';
import { ResourceDoc, scanResourceDocs } from '../server/src/engine/kustomize/resource-docs';
import { CORPUS, ROOT } from './ecosystem/corpus';
import { compareAll, diskFiles, OracleEntry, readOracle, ORACLE } from './helpers/kustomize-oracle';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'kustomize');

/** One view of each root, and one builder over it, shared by the tests (a folder is built once). */
const views = new Map<string, { files: KustomizeFiles; builder: KustomizeBuilder }>();
function view(root: string): { files: KustomizeFiles; builder: KustomizeBuilder } {
  let entry = views.get(root);
  if (!entry) {
    const files = diskFiles(root);
    views.set(root, (entry = { files, builder: new KustomizeBuilder(files) }));
  }
  return entry;
}

/**
 * Folders where the model is known to differ from kustomize, each with the
 * reason. The goal is none; a listed folder that agrees again fails the test
 * (the entry must go).
 */
const KNOWN_DIFFERENCES: Record<string, string> = {};

/**
 * Folders whose output depends on a patch: with patches ignored the model
 * must disagree on each (a rename by JSON 6902, a strategic-merge patch that
 * finds no target, an opt-out a patch adds). The corpus has no opt-out
 * written as a patch, so the fixtures hold those.
 */
const PATCH_FOLDERS = {
  corpus: [
    'giantswarm__gitops-template/management-clusters/MC_NAME/organizations/ORG_NAME/workload-clusters/WC_NAME_OUT_OF_BAND_FLUX_APP/mapi/apps/ingress-nginx-from-template',
    'mirceanton__home-ops/apps/media/immich/app',
    'tyriis__home-ops/kubernetes/main/apps/default/echo-server/app',
  ],
  fixtures: ['json6902-kind-name', 'json6902-label-selector', 'json6902-annotation-selector', 'smp-patch-file', 'smp-inline-target', 'patches-strategic-merge', 'component-patch', 'patch-no-target'],
};

interface Tally {
  folders: number;
  agree: number;
  resources: number;
  annotated: number;
  labelled: number;
  failures: number;
}

function tally(entries: OracleEntry[], results: Map<string, string | null>): Tally {
  const out: Tally = { folders: results.size, agree: 0, resources: 0, annotated: 0, labelled: 0, failures: 0 };
  for (const entry of entries) {
    if (!results.has(entry.dir) || results.get(entry.dir) !== null) continue;
    out.agree++;
    if (!entry.ok) out.failures++;
    else {
      out.resources += entry.resources.length;
      out.annotated += entry.resources.filter((row) => row[4] === 'disabled').length;
      out.labelled += entry.resources.filter((row) => row[5] === 'disabled').length;
    }
  }
  return out;
}

function describe(name: string, t: Tally): string {
  return `${name}: ${t.agree}/${t.folders} folders agree with kustomize (${t.resources} resources, ${t.annotated} opted out by annotation, ${t.labelled} by label; ${t.failures} build failures)`;
}

function checkAgainstOracle(name: string, entries: OracleEntry[], builder: KustomizeBuilder, known: Record<string, string>): void {
  const started = Date.now();
  const results = compareAll(builder, entries);
  const elapsed = Date.now() - started;
  console.log(`${describe(name, tally(entries, results))} in ${elapsed} ms`);
  const unexpected = [...results].filter(([dir, why]) => why !== null && !(dir in known)).map(([dir, why]) => `${dir}: ${why}`);
  assert.deepEqual(unexpected, [], `the model differs from kustomize on ${unexpected.length} folder(s)`);
  const stale = Object.keys(known).filter((dir) => results.get(dir) === null);
  assert.deepEqual(stale, [], 'known differences that agree now: remove them from KNOWN_DIFFERENCES');
}

test('the kustomize model builds the fixture folders as kustomize v5.5.0 does', () => {
  const entries = readOracle(join(FIXTURES, 'oracle.jsonl'));
  assert.ok(entries.length >= PATCH_FOLDERS.fixtures.length, 'the fixture oracle covers the fixtures');
  checkAgainstOracle('fixtures', entries, view(FIXTURES).builder, {});
});

test('the kustomize model builds every corpus folder as kustomize v5.5.0 does', (t) => {
  if (!existsSync(ORACLE) || !existsSync(CORPUS)) {
    const message = `KUSTOMIZE ORACLE MISSING: ${ORACLE} or ${CORPUS} does not exist, so no corpus folder was compared.`;
    console.warn(`\n!!! ${message}\n`);
    t.skip(message);
    return;
  }
  checkAgainstOracle('corpus', readOracle(ORACLE), view(CORPUS).builder, KNOWN_DIFFERENCES);
});

test('negative control: with patches ignored, the model disagrees on every patch folder', (t) => {
  const cases: Array<[string, string, string[]]> = [[FIXTURES, join(FIXTURES, 'oracle.jsonl'), PATCH_FOLDERS.fixtures]];
  if (existsSync(ORACLE) && existsSync(CORPUS)) cases.push([CORPUS, ORACLE, PATCH_FOLDERS.corpus]);
  else t.diagnostic('corpus oracle missing: only the fixtures are checked');
  for (const [root, oracle, folders] of cases) {
    const entries = readOracle(oracle).filter((entry) => folders.includes(entry.dir));
    assert.equal(entries.length, folders.length, `every patch folder is in ${oracle}`);
    const withPatches = compareAll(view(root).builder, entries);
    const withoutPatches = compareAll(new KustomizeBuilder(view(root).files, { ignorePatches: true }), entries);
    for (const dir of folders) {
      assert.equal(withPatches.get(dir), null, `${dir} agrees with its patches`);
      assert.notEqual(withoutPatches.get(dir), null, `${dir} must disagree once patches are ignored`);
    }
  }
});

test('per document, the chain of transformations answers as the whole build does', (t) => {
  const roots: Array<[string, string]> = [[FIXTURES, join(FIXTURES, 'oracle.jsonl')]];
  if (existsSync(ORACLE) && existsSync(CORPUS)) roots.push([CORPUS, ORACLE]);
  let documents = 0;
  let byChain = 0;
  const wrong: string[] = [];
  const text = (values: Array<[string | null, string | null]>) => JSON.stringify(values.map((value) => JSON.stringify(value)).sort());
  for (const [root, oracle] of roots) {
    const { builder } = view(root);
    for (const entry of readOracle(oracle)) {
      if (!entry.ok) continue;
      const outcome = builder.build(entry.dir);
      if (outcome.status !== 'ok') continue;
      // a file a component brings in can be built more than once (once per folder that includes the component)
      const byOrigin = new Map<string, Array<[string | null, string | null]>>();
      for (const res of outcome.resources) {
        if (res.origin.kind !== 'file') continue;
        const key = `${res.origin.file}@${res.origin.span[0]}`;
        byOrigin.set(key, [...(byOrigin.get(key) ?? []), [res.annotations.get(SUBSTITUTE_OPT_OUT) ?? null, res.labels.get(SUBSTITUTE_OPT_OUT) ?? null]]);
      }
      for (const [key, expected] of byOrigin) {
        const [file, start] = [key.slice(0, key.lastIndexOf('@')), Number(key.slice(key.lastIndexOf('@') + 1))];
        const doc = builder.resourceDocs(file).find((candidate) => candidate.span[0] === start);
        if (!doc) continue;
        documents++;
        const answer = optOutOf(builder, entry.dir, { kind: 'document', file, doc });
        if (answer.status !== 'built') {
          wrong.push(`${entry.dir} ${key}: ${answer.status}`);
          continue;
        }
        if (answer.how === 'chain') byChain++;
        const got = answer.results.map((result): [string | null, string | null] => [result.annotation, result.label]);
        if (text(got) !== text(expected)) wrong.push(`${entry.dir} ${key}: ${answer.how} ${text(got)}, build ${text(expected)}`);
      }
    }
  }
  t.diagnostic(`${documents} documents asked, ${byChain} answered by their chain alone`);
  assert.deepEqual(wrong.slice(0, 20), []);
  assert.ok(byChain > documents * 0.9, 'nearly every document is answered without building its folder');
});

test('the header scan reads every document as a whole parse does (where the yaml package accepts it)', (t) => {
  if (!existsSync(CORPUS)) {
    t.skip('corpus missing');
    return;
  }
  // every 32nd YAML file of the corpus (a whole parse of all of it takes long): the scan must not depend on which
  const files = [...walkYaml(CORPUS)].filter((_, i) => i % 32 === 0);
  const shape = (docs: ResourceDoc[]) =>
    JSON.stringify(docs.map((doc) => ({ ...doc, labels: doc.labels && [...doc.labels], annotations: doc.annotations && [...doc.annotations], error: doc.error?.message ?? null })));
  const differ: string[] = [];
  for (const path of files) {
    const text = view(CORPUS).files.read(path);
    if (text === undefined) continue;
    const whole = scanResourceDocs(text, true);
    if (whole.some((doc) => doc.error?.message.startsWith('MalformedYAMLError'))) continue; // the yaml package is stricter than go-yaml in places
    if (shape(scanResourceDocs(text)) !== shape(whole)) differ.push(path);
  }
  t.diagnostic(`${files.length} files compared`);
  assert.deepEqual(differ, []);
});

function* walkYaml(root: string, dir = ''): Generator<string> {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* walkYaml(root, path);
    else if (/\.(ya?ml|json)$/.test(entry.name)) yield path;
  }
}
