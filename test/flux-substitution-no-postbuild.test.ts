// flux-substitution-no-postbuild as table tests: a world where Kustomization
// `apps` substitutes from cluster-settings and `coredns` has no postBuild.
// Each case gives the exact findings (range, severity), the message and the
// fix; the negative controls are the same text where it is not Flux's (a
// shell script, a container's env, a config file block, opted out), where
// the name is nobody's variable, and after the fix.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles } from './helpers/memory-fs';
import { applyRepositoryEdits } from './helpers/table';

const RULE = 'flux-substitution-no-postbuild';

const SYNC =
  'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n---\n' +
  'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./clusters/home\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n';

const ks = (name: string, path: string, postBuild: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${postBuild}`;

const SETTINGS = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  COREDNS_REPLICAS: "2"\n  SECRET_DOMAIN: example.com\n';
const POSTBUILD = '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n';

const HELMRELEASE = (values: string) =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: coredns\n  namespace: kube-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: coredns\n      sourceRef:\n        kind: HelmRepository\n        name: coredns\n  values:\n${values}`;

/** The cluster; `coredns/` holds `files`, built by Kustomization coredns (`corednsPostBuild`: its postBuild, none by default). */
function repo(files: Record<string, string>, corednsPostBuild = ''): Record<string, string> {
  const out: Record<string, string> = {
    'clusters/home/flux-system/gotk-sync.yaml': SYNC,
    'clusters/home/cluster-settings.yaml': SETTINGS,
    'clusters/home/apps.yaml': ks('apps', './apps', POSTBUILD),
    'clusters/home/coredns.yaml': ks('coredns', './coredns', corednsPostBuild),
    'apps/ingress.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apps\n  namespace: default\ndata:\n  host: app.${SECRET_DOMAIN}\n',
  };
  for (const [path, text] of Object.entries(files)) out[`coredns/${path}`] = text;
  return out;
}

function exact(f: Finding): string {
  const { start, end } = f.range;
  return `${f.file} [${start.line}, ${start.character}, ${end.line}, ${end.character}] ${f.severity}`;
}

async function found(files: Record<string, string>): Promise<Finding[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule === RULE);
}

describe('flux-substitution-no-postbuild', () => {
  test('a HelmRelease value with a sibling’s variable, built without postBuild: a warning, and the fix that adds the sibling’s substituteFrom', async () => {
    const files = repo({ 'helmrelease.yaml': HELMRELEASE('    replicaCount: ${COREDNS_REPLICAS}\n') });
    const findings = await found(files);
    assert.deepEqual(findings.map(exact), ['coredns/helmrelease.yaml [14, 18, 14, 37] warning']);
    assert.equal(
      findings[0].message,
      '${COREDNS_REPLICAS} is never substituted: Kustomization "coredns" builds this file without a postBuild, so the resource gets the text ${COREDNS_REPLICAS}. COREDNS_REPLICAS is a variable of Kustomization "apps": give it the same postBuild.',
    );
    assert.deepEqual(
      findings[0].related?.map((r) => r.file),
      ['clusters/home/coredns.yaml'],
    );
    const [fix] = findings[0].fixes!;
    assert.equal(fix.title, 'Give Kustomization "coredns" the postBuild of "apps" (substituteFrom ConfigMap cluster-settings)');
    const fixed = applyRepositoryEdits(files, fix.edits);
    assert.equal(fixed['clusters/home/coredns.yaml'], ks('coredns', './coredns', POSTBUILD));
    const after = await auditFiles(fixed);
    assert.deepEqual(
      after.findings.filter((f) => f.rule === RULE || f.rule === 'flux-substitution-undefined'),
      [],
      'after the fix Flux substitutes it, and defines it',
    );
  });

  test('negative controls: text that is not Flux’s, a name nobody defines, a Kustomization that substitutes', async () => {
    const job = (line: string) =>
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: dns\n  namespace: kube-system\nspec:\n  ttlSecondsAfterFinished: 86400 # converges: a no-op\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: dns\n          image: busybox\n${line}`;
    const cases: Record<string, Record<string, string>> = {
      'a shell script': { 'job.yaml': job('          command: [sh, -c, "echo ${SECRET_DOMAIN}"]\n') },
      'a container env value': { 'job.yaml': job('          env:\n            - name: D\n              value: ${SECRET_DOMAIN}\n') },
      'a config file an app expands': { 'config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  namespace: kube-system\ndata:\n  config.yml: |\n    domain: ${SECRET_DOMAIN}\n' },
      'opted out': {
        'config.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  namespace: kube-system\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  host: ${SECRET_DOMAIN}\n',
      },
      'a name no Kustomization defines': { 'helmrelease.yaml': HELMRELEASE('    replicaCount: ${SOMETHING_ELSE}\n') },
    };
    for (const [what, files] of Object.entries(cases)) assert.deepEqual(await found(repo(files)), [], what);
    assert.deepEqual(await found(repo({ 'helmrelease.yaml': HELMRELEASE('    replicaCount: ${COREDNS_REPLICAS}\n') }, POSTBUILD)), [], 'coredns substitutes');
    // and the control of the controls: the same one-line ConfigMap value, not opted out, is reported
    assert.equal((await found(repo({ 'config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  namespace: kube-system\ndata:\n  host: ${SECRET_DOMAIN}\n' }))).length, 1);
  });

  test('a sibling that defines the name inline only: the warning, no fix to copy', async () => {
    const files = { ...repo({ 'helmrelease.yaml': HELMRELEASE('    region: ${REGION}\n') }), 'clusters/home/apps.yaml': ks('apps', './apps', '  postBuild:\n    substitute:\n      REGION: eu\n') };
    const findings = await found(files);
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0].fixes ?? [], []);
  });
});
