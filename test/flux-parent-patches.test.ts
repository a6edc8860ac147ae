// A parent Kustomization's `spec.patches` (and a kustomize `patches` entry on the way) that set a
// child Kustomization's sourceRef and postBuild apply before the child's source and variables are
// decided (issue 18): a child whose own sourceRef is a placeholder the parent fills builds this
// repository with the parent's variables. Each case has its negative control: without the patch
// (or with one that targets another name) the child's own sourceRef names nothing here, and it is
// another repository's, never checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles } from './helpers/memory-fs';

const GIT = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n';

function ks(name: string, path: string, source: string, extra = ''): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: ${source}\n${extra}`;
}

/** The parent's patch, strategic merge: this repository's source and a substituteFrom the app needs. */
const SMP_PATCH = (target: string) =>
  `  patches:\n    - target:\n        kind: Kustomization\n        name: ${target}\n      patch: |-\n        apiVersion: kustomize.toolkit.fluxcd.io/v1\n        kind: Kustomization\n        metadata:\n          name: not-used\n        spec:\n          sourceRef:\n            kind: GitRepository\n            name: flux-system\n          postBuild:\n            substituteFrom:\n              - kind: ConfigMap\n                name: cluster-settings\n`;

/** The same as a JSON 6902 patch (replace of the sourceRef's name, add of postBuild). */
const JSON_PATCH = (target: string) =>
  `  patches:\n    - target:\n        kind: Kustomization\n        name: ${target}\n      patch: |-\n        - op: replace\n          path: /spec/sourceRef/name\n          value: flux-system\n        - op: add\n          path: /spec/postBuild\n          value:\n            substituteFrom:\n              - kind: ConfigMap\n                name: cluster-settings\n`;

const SETTINGS = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  DOMAIN: example.org\n';
const APP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  host: app.${DOMAIN}\n  mail: ${MAIL_HOST}\n';

/** A cluster whose `apps` applies `app`, which names the placeholder source `REPLACED` (nothing declares it). */
function cluster(appsSpec: string): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home', 'flux-system')}`,
    'clusters/home/settings.yaml': SETTINGS,
    'clusters/home/apps.yaml': ks('apps', './apps', 'flux-system', appsSpec),
    'apps/app/ks.yaml': ks('app', './apps/app/resources', 'REPLACED'),
    'apps/app/resources/configmap.yaml': APP,
  };
}

function exact(f: Finding): string {
  const { start, end } = f.range;
  return `${f.rule} ${f.file} [${start.line}, ${start.character}, ${end.line}, ${end.character}] ${f.severity}`;
}

async function substitutionFindings(files: Record<string, string>): Promise<string[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('flux-substitution')).map(exact);
}

describe('parent patches decide a child Kustomization’s source and variables', () => {
  test('a strategic-merge spec.patches entry sets sourceRef and postBuild: the child builds this repository with the parent’s variables', async () => {
    // ${DOMAIN} comes from the patched substituteFrom; ${MAIL_HOST} is defined nowhere: Flux fails (or blanks) it.
    assert.deepEqual(await substitutionFindings(cluster(SMP_PATCH('app'))), ['flux-substitution-undefined apps/app/resources/configmap.yaml [6, 8, 6, 20] error']);
  });

  test('the same as a JSON 6902 patch', async () => {
    assert.deepEqual(await substitutionFindings(cluster(JSON_PATCH('app'))), ['flux-substitution-undefined apps/app/resources/configmap.yaml [6, 8, 6, 20] error']);
  });

  test('a kustomize patches entry of the kustomization the parent builds the child through does the same', async () => {
    const files = cluster('');
    files['apps/kustomization.yaml'] = `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./app/ks.yaml\n${SMP_PATCH('app').replace(/^ {2}/gm, '')}`;
    assert.deepEqual(await substitutionFindings(files), ['flux-substitution-undefined apps/app/resources/configmap.yaml [6, 8, 6, 20] error']);
  });

  test('negative control: without the patch, or with one for another name, the placeholder source is another repository: nothing is checked', async () => {
    assert.deepEqual(await substitutionFindings(cluster('')), []);
    assert.deepEqual(await substitutionFindings(cluster(SMP_PATCH('other'))), []);
    assert.deepEqual(await substitutionFindings(cluster(JSON_PATCH('other'))), []);
  });

  test('negative control: a patch that sets only postBuild leaves the placeholder source foreign', async () => {
    const onlyPostBuild = SMP_PATCH('app').replace('          sourceRef:\n            kind: GitRepository\n            name: flux-system\n', '');
    assert.deepEqual(await substitutionFindings(cluster(onlyPostBuild)), []);
  });
});
