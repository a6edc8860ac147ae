// Jobs a kustomization does not list (issue 26.7). Where no Flux root decides
// what is applied, kustomize and Argo CD apply a folder with a kustomization
// file only through what the kustomizations list: a Job file beside it that
// none lists (kept in git, deprecated) is never applied, so it gets no TTL
// finding unless the contract's own jobs.include selects it. A folder without
// a kustomization file keeps its files as plain manifests. With Flux, the
// Flux model decides, and it reads the same kustomization.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultContract } from '../server/src/engine/contract/load';
import { analyzeInRepo } from '../server/src/engine/pipeline/repo-analysis';
import { RepoIndex } from '../server/src/engine/pipeline/repo-index';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { auditFiles, brief } from './helpers/memory-fs';

/** A Job without a TTL: ttl-missing at line 5 wherever the TTL rules look at it. */
function bareJob(name: string): string {
  return `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: alpine:3.20\n`;
}

/** The ttl-* findings of an audit, as `rule file:line:column`. */
async function ttlFindings(files: Record<string, string>): Promise<string[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('ttl-')).map(brief);
}

const LISTED = 'ttl-missing app/listed.yaml:5:1';
const UNLISTED = 'ttl-missing app/unlisted.yaml:5:1';

/** app/ holds two Jobs; its kustomization lists one of them. */
const APP = {
  'app/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - listed.yaml\n',
  'app/listed.yaml': bareJob('listed'),
  'app/unlisted.yaml': bareJob('unlisted'),
};

describe('without Flux: a Job file its folder’s kustomization does not list', () => {
  test('is not applied: no TTL finding; the listed Job beside it keeps its finding (negative control)', async () => {
    assert.deepEqual(await ttlFindings(APP), [LISTED]);
  });

  test('each name kustomize accepts for the kustomization file decides the same way', async () => {
    for (const name of ['kustomization.yml', 'Kustomization']) {
      const { 'app/kustomization.yaml': text, ...rest } = APP;
      assert.deepEqual(await ttlFindings({ ...rest, [`app/${name}`]: text }), [LISTED], name);
    }
  });

  test('listed by a parent kustomization’s resources (the file itself, or under the deprecated bases): applied, finding', async () => {
    assert.deepEqual(await ttlFindings({ ...APP, 'kustomization.yaml': 'resources:\n  - app\n  - app/unlisted.yaml\n' }), [LISTED, UNLISTED]);
    assert.deepEqual(await ttlFindings({ ...APP, 'other/kustomization.yaml': 'bases:\n  - ../app/unlisted.yaml\n' }), [LISTED, UNLISTED]);
  });

  test('a parent that lists only the folder does not list the file: still not applied', async () => {
    assert.deepEqual(await ttlFindings({ ...APP, 'kustomization.yaml': 'resources:\n  - app\n' }), [LISTED]);
  });

  test('a component that lists it: applied wherever the component is used, finding', async () => {
    const files = {
      ...APP,
      'app/kustomization.yaml': 'resources:\n  - listed.yaml\ncomponents:\n  - extra\n',
      'app/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - ../unlisted.yaml\n',
    };
    assert.deepEqual(await ttlFindings(files), [LISTED, UNLISTED]);
  });

  test('a jobs.include the contract writes selects it: finding', async () => {
    for (const include of ['[app/unlisted.yaml, app/listed.yaml]', '["**/*.yaml"]']) {
      assert.deepEqual(await ttlFindings({ ...APP, '.flux-job-guard.yaml': `jobs:\n  include: ${include}\n` }), [LISTED, UNLISTED], include);
    }
  });

  test('a contract without jobs.include (the default globs) does not select it', async () => {
    assert.deepEqual(await ttlFindings({ ...APP, '.flux-job-guard.yaml': 'ttl:\n  required: 86400\n' }), [LISTED]);
  });

  test('a folder without a kustomization file: its files are plain manifests, finding', async () => {
    const { 'app/kustomization.yaml': _k, ...plain } = APP;
    assert.deepEqual(await ttlFindings(plain), [LISTED, UNLISTED]);
    // A sub-folder without one of its own is plain too, whatever its parent holds.
    assert.deepEqual(await ttlFindings({ ...APP, 'app/old/job.yaml': bareJob('old') }), [LISTED, 'ttl-missing app/old/job.yaml:5:1']);
  });

  test('a kustomization kustomize cannot load (not YAML, two kustomization files) decides nothing: its files are checked', async () => {
    assert.deepEqual(await ttlFindings({ ...APP, 'app/kustomization.yaml': 'resources: [listed.yaml\n' }), [LISTED, UNLISTED]);
    assert.deepEqual(await ttlFindings({ ...APP, 'app/kustomization.yml': 'resources:\n  - listed.yaml\n' }), [LISTED, UNLISTED]);
  });

  test('an audit of a repository whose only Job is unlisted counts no Job', async () => {
    const result = await auditFiles({ 'app/kustomization.yaml': 'resources: []\n', 'app/unlisted.yaml': bareJob('unlisted') });
    assert.equal(result.summary.jobs, 0);
    assert.deepEqual(result.findings.map(brief), []);
  });

  test('the editor decides as the audit does, and follows an edit of the kustomization', () => {
    const index = new RepoIndex();
    index.setFiles(Object.keys(APP));
    for (const [path, text] of Object.entries(APP)) index.update(path, text);
    const contract = defaultContract('.flux-job-guard.yaml');
    const ttl = () =>
      analyzeInRepo(index, contract, 'app/unlisted.yaml', APP['app/unlisted.yaml'])
        .findings.filter((f) => f.rule.startsWith('ttl-'))
        .map(brief);
    assert.deepEqual(ttl(), []);
    index.update('app/kustomization.yaml', 'resources:\n  - listed.yaml\n  - unlisted.yaml\n');
    assert.deepEqual(ttl(), [UNLISTED]);
  });
});

describe('with Flux: the model already decides what is applied', () => {
  const flux = { 'clusters/main/flux-system/gotk-sync.yaml': gotkSync('./clusters/main'), 'clusters/main/apps.yaml': kustomization('apps', './app'), ...APP };

  test('an unlisted Job under the folder a live Kustomization builds: no finding; the listed one has it (negative control)', async () => {
    assert.deepEqual(await ttlFindings(flux), [LISTED]);
  });

  test('listed once the kustomization names it: finding', async () => {
    assert.deepEqual(await ttlFindings({ ...flux, 'app/kustomization.yaml': 'resources:\n  - listed.yaml\n  - unlisted.yaml\n' }), [LISTED, UNLISTED]);
  });

  test('with only a fallback root (no root found), an unlisted file stays unapplied too', async () => {
    const { 'clusters/main/flux-system/gotk-sync.yaml': _sync, ...fallback } = flux;
    assert.deepEqual(await ttlFindings(fallback), [LISTED]);
  });
});
