// `audit --changed-since` takes the model now for the model of the revision where no changed file
// tells the index anything new (affected.ts unchangedModel). The property that makes it exact:
// wherever it does, the files it finds affected are the files the modelled revision gives. Checked
// over edits of every YAML file of real repositories (a comment added, a digit changed, a line
// added at the top, which moves every document), with a table of changes it must refuse.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { affectedFiles, revisionModel, unchangedModel, type RevisionModel } from '../server/src/engine/pipeline/affected';
import { IndexMemo } from '../server/src/engine/pipeline/index-memo';
import { dataEqual } from '../server/src/engine/base/data-equal';
import { filesOf, memoryFs } from './helpers/memory-fs';
import { gotkSync, job, kustomization } from './helpers/flux-fixtures';
import { sampledEdits } from './helpers/edits';

const ROOT = join(__dirname, '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');

type Files = Record<string, string>;

const model = (files: Files, memo?: IndexMemo) => revisionModel(memoryFs(files), Object.keys(files).sort(), {}, { memo });

/** The affected files of the change from `before` to `now`, with the revision modelled (`prior`) or taken from the shortcut. */
function affectedBy(changed: Set<string>, prior: RevisionModel, now: RevisionModel): string[] {
  const affected = affectedFiles({ files: changed, before: prior.view, after: now.view, contract: { before: prior.contract, after: now.contract } });
  return affected === null ? ['(every file)'] : [...affected].sort();
}

const REPOSITORIES: Array<[string, string, number]> = [
  ['examples/flux-repo', join(ROOT, 'examples', 'flux-repo'), Infinity],
  ['fluxcd__flux2-multi-tenancy', join(CORPUS, 'fluxcd__flux2-multi-tenancy'), Infinity],
  ['controlplaneio-fluxcd__d2-fleet', join(CORPUS, 'controlplaneio-fluxcd__d2-fleet'), Infinity],
  ['giantswarm__gitops-template', join(CORPUS, 'giantswarm__gitops-template'), 60],
  ['billimek__k8s-gitops', join(CORPUS, 'billimek__k8s-gitops'), 40],
];

/** Over all repositories: how often the shortcut was taken and refused (the control that the property is not vacuous). */
const counts = { taken: 0, refused: 0 };

describe('the model now stands for the revision only where the change tells the index nothing new', () => {
  for (const [name, dir, limit] of REPOSITORIES) {
    test(`${name}: every edit the shortcut takes gives the affected files of the modelled revision`, { skip: existsSync(dir) ? false : `${dir} is not here` }, async () => {
      const before = filesOf(dir);
      const memo = new IndexMemo();
      const prior = await model(before, memo);
      for (const { path, what, text } of sampledEdits(before, limit)) {
        const files = { ...before, [path]: text };
        const changed = new Set([path]);
        const now = await model(files, memo);
        const same = await unchangedModel(now, memoryFs(files), memoryFs(before), changed);
        if (same === null) {
          counts.refused++;
          continue;
        }
        counts.taken++;
        assert.equal(same, now, 'the shortcut gives the model now');
        assert.deepEqual(affectedBy(changed, same, now), affectedBy(changed, prior, now), `${path}, ${what}`);
      }
    });
  }
  test('the property is not vacuous: the shortcut was both taken and refused', (t) => {
    t.diagnostic(`taken ${counts.taken} times, refused ${counts.refused} times`);
    assert.ok(counts.taken >= 100, `taken ${counts.taken} times`);
    assert.ok(counts.refused >= 50, `refused ${counts.refused} times`);
  });
});

const JOB = job('report', 'it writes the same report again', '          command: ["sh", "-c", "echo hi"]\n');

const BASE: Files = {
  'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
  'clusters/home/apps.yaml': kustomization('apps', './apps'),
  'apps/kustomization.yaml': 'resources:\n  - job.yaml\n  - account.yaml\npatches:\n  - path: patch.yaml\nconfigMapGenerator:\n  - name: script\n    files:\n      - run.sh\n',
  'apps/job.yaml': JOB,
  'apps/account.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n',
  'apps/patch.yaml': 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: report\nspec:\n  backoffLimit: 2\n',
  'apps/run.sh': 'echo run\n',
  '.flux-job-guard.yaml': 'version: 1\n',
};

/** Changes of the small repository: whether the model now may stand for the revision. */
const TABLE: Array<[string, Record<string, string | null>, boolean]> = [
  ["a Job's TTL", { 'apps/job.yaml': JOB.replace('86400', '86401') }, true],
  ["a Job's command, longer", { 'apps/job.yaml': JOB.replace('echo hi', 'echo hello there') }, true],
  ['a comment at the top of the Job file', { 'apps/job.yaml': `# why it converges\n${JOB}` }, true],
  ["the Job's name (a header kustomize reads)", { 'apps/job.yaml': JOB.replace('name: report', 'name: report-2') }, false],
  ['a name the Job now substitutes', { 'apps/job.yaml': JOB.replace('echo hi', 'echo ${GREETING}') }, false],
  ['a patch file (read whole)', { 'apps/patch.yaml': 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: report\nspec:\n  backoffLimit: 3\n' }, false],
  ['a generator input', { 'apps/run.sh': 'echo $$\n' }, false],
  ["a Flux Kustomization's interval (its facts)", { 'clusters/home/apps.yaml': BASE['clusters/home/apps.yaml'].replace('1h', '5m') }, false],
  ['a ServiceAccount renamed', { 'apps/account.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: worker\n' }, false],
  ['the contract', { '.flux-job-guard.yaml': 'version: 1\n# edited\n' }, false],
  ['a file deleted', { 'apps/account.yaml': null }, false],
  ['a file added', { 'apps/extra.yaml': JOB }, false],
];

describe('which changes let the model now stand for the revision', () => {
  for (const [what, edits, stands] of TABLE) {
    test(`${what}: ${stands ? 'it stands' : 'the revision is modelled'}`, async () => {
      const files: Files = { ...BASE };
      for (const [path, text] of Object.entries(edits)) {
        if (text === null) delete files[path];
        else files[path] = text;
      }
      const now = await model(files);
      const same = await unchangedModel(now, memoryFs(files), memoryFs(BASE), new Set(Object.keys(edits)));
      assert.equal(same !== null, stands);
      if (same) assert.deepEqual(affectedBy(new Set(Object.keys(edits)), same, now), affectedBy(new Set(Object.keys(edits)), await model(BASE), now));
    });
  }
});

describe('dataEqual (what the shortcut compares summaries with)', () => {
  const table: Array<[string, unknown, unknown, boolean]> = [
    ['equal nested data', { a: [1, { b: 'x' }], c: null }, { a: [1, { b: 'x' }], c: null }, true],
    ['a value differs deep down', { a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] }, false],
    ['maps with the same entries', new Map([['a', 1]]), new Map([['a', 1]]), true],
    ['maps whose values differ (Object.keys sees none)', new Map([['a', 1]]), new Map([['a', 2]]), false],
    ['maps whose keys differ', new Map([['a', 1]]), new Map([['b', 1]]), false],
    ['sets that differ', new Set(['a']), new Set(['b']), false],
    ['a map and an object', new Map(), {}, false],
    ['an array and an object', [], {}, false],
    ['a key set to undefined and a missing key', { a: undefined }, {}, false],
  ];
  for (const [what, a, b, equal] of table) test(what, () => assert.equal(dataEqual(a, b), equal));
});
