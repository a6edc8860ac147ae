// Roots Flux starts from that the first model missed (issue 26.4), each a
// small repository shaped like the real one it comes from: a folder bootstrapped
// with `kubectl apply -k`, a FluxInstance sync path with a `${VAR}` the
// Kustomization that applies it fills, one cluster's GitRepository among
// same-named ones, and roots that apply nothing. Each case has a control that
// goes red when the model falls back to its old answer (a silent audit).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles, brief } from './helpers/memory-fs';

/** A Flux Kustomization; `extra` is appended under spec (indented by 2). */
function ks(name: string, path: string, extra = '', source = 'flux-system', kind = 'GitRepository'): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: ${kind}\n    name: ${source}\n${extra}`;
}

/** A GitRepository flux-system; `ignore` lines become its spec.ignore. */
function gitRepository(url = 'https://github.com/example/home-ops', ignore: string[] = []): string {
  const spec = ignore.length > 0 ? `  ignore: |\n${ignore.map((line) => `    ${line}\n`).join('')}` : '';
  return `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: ${url}\n  ref:\n    branch: main\n${spec}`;
}

const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: main\n';

/** A ConfigMap with a shell script that uses a name nothing defines (line 7, column 10). */
const SCRIPT = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    echo ${UNSET}\n';

function modelFindings(findings: Finding[]): string[] {
  return findings.filter((f) => f.rule.startsWith('flux-') || f.rule === 'kustomize-reference').map(brief);
}

async function model(files: Record<string, string>): Promise<string[]> {
  return modelFindings((await auditFiles(files)).findings);
}

describe('roots: a folder bootstrapped with kubectl apply -k', () => {
  // One cluster bootstrapped by `flux bootstrap`, the other by `kubectl apply -k clusters/main/bootstrap`.
  const files = {
    'clusters/other/flux-system/gotk-sync.yaml': `${gitRepository()}---\n${ks('flux-system', './clusters/other')}`,
    'clusters/other/apps.yaml': ks('apps', './apps/other', SUBSTITUTE),
    'apps/other/config.yaml': SCRIPT,
    'clusters/main/bootstrap/kustomization.yaml': 'resources:\n  - gitrepo.yaml\n  - ks.yaml\n',
    'clusters/main/bootstrap/gitrepo.yaml': gitRepository(),
    'clusters/main/bootstrap/ks.yaml': ks('main-apps', './apps/main', SUBSTITUTE),
    'apps/main/config.yaml': SCRIPT,
  };

  test('the folder that bundles a GitRepository of this repository with a Kustomization on it is a root: both clusters are checked', async () => {
    assert.deepEqual(await model(files), ['flux-substitution-undefined apps/main/config.yaml:7:10', 'flux-substitution-undefined apps/other/config.yaml:7:10']);
  });

  test('negative controls: without the GitRepository, or with another repository’s, the folder starts nothing', async () => {
    const { 'clusters/main/bootstrap/gitrepo.yaml': _git, ...withoutSource } = files;
    assert.deepEqual(await model({ ...withoutSource, 'clusters/main/bootstrap/kustomization.yaml': 'resources:\n  - ks.yaml\n' }), ['flux-substitution-undefined apps/other/config.yaml:7:10']);
    assert.deepEqual(await model({ ...files, 'clusters/main/bootstrap/gitrepo.yaml': gitRepository('https://github.com/example/another') }), [
      'flux-substitution-undefined apps/other/config.yaml:7:10',
    ]);
  });
});

describe('roots: what is no kubectl bootstrap', () => {
  const files = {
    'clusters/mgmt/flux-system/gotk-sync.yaml': `${gitRepository('https://github.com/example/home-ops', ['/archive/'])}---\n${ks('flux-system', './clusters/mgmt')}`,
    'clusters/mgmt/apps.yaml': ks('apps', './apps/mgmt', SUBSTITUTE),
    'apps/mgmt/config.yaml': SCRIPT,
  };
  const bundle = (dir: string, path: string) => ({
    [`${dir}/kustomization.yaml`]: 'resources:\n  - sync.yaml\n',
    [`${dir}/sync.yaml`]: `${gitRepository('https://github.com/example/home-ops', ['/archive/'])}---\n${ks('old-apps', path, SUBSTITUTE)}`,
  });

  test('a template whose Kustomization syncs a folder that does not exist (a script copies and fills it in): no root, no error', async () => {
    assert.deepEqual(await model({ ...files, ...bundle('clusters/template/flux-system', './clusters/cluster-name') }), ['flux-substitution-undefined apps/mgmt/config.yaml:7:10']);
  });

  test('a bundle in a folder its own GitRepository ignores (an archived cluster): no root', async () => {
    assert.deepEqual(await model({ ...files, ...bundle('archive/old/flux', './archive/old/apps'), 'archive/old/apps/config.yaml': SCRIPT }), [
      'flux-substitution-undefined apps/mgmt/config.yaml:7:10',
    ]);
  });

  test('negative control: the same bundle outside the ignored folder, syncing a folder that exists, is a root', async () => {
    assert.deepEqual(await model({ ...files, ...bundle('old/flux', './old/apps'), 'old/apps/config.yaml': SCRIPT }), [
      'flux-substitution-undefined apps/mgmt/config.yaml:7:10',
      'flux-substitution-undefined old/apps/config.yaml:7:10',
    ]);
  });
});

describe('roots: an OCI artifact pushed from the repository root', () => {
  // d2-fleet: the FluxInstance syncs clusters/prod from an OCIRepository that CI pushes with path "./".
  const instance = `apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: OCIRepository\n    url: oci://ghcr.io/example/fleet\n    ref: latest\n    path: clusters/prod\n`;
  const files = {
    'clusters/prod/flux-system/flux-instance.yaml': instance,
    'clusters/prod/tenants.yaml': ks('tenants', './tenants', SUBSTITUTE, 'flux-system', 'OCIRepository'),
    'tenants/config.yaml': SCRIPT,
  };

  test('the assumed artifact is the repository itself: the world is walked and its files checked', async () => {
    const result = await model(files);
    assert.ok(result.includes('flux-substitution-undefined tenants/config.yaml:7:10'), result.join('\n'));
    assert.ok(!result.some((finding) => finding.startsWith('kustomize-reference')), result.join('\n'));
  });

  test('negative control: a Kustomization on another OCIRepository is not that world', async () => {
    const result = await model({ ...files, 'clusters/prod/tenants.yaml': ks('tenants', './tenants', SUBSTITUTE, 'elsewhere', 'OCIRepository') });
    assert.ok(!result.includes('flux-substitution-undefined tenants/config.yaml:7:10'), result.join('\n'));
  });
});

describe('roots: a FluxInstance sync path with ${VAR}', () => {
  const release = (path: string) =>
    `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  interval: 1h\n  chartRef:\n    kind: OCIRepository\n    name: flux-instance\n  values:\n    instance:\n      sync:\n        kind: GitRepository\n        url: https://github.com/example/home-ops\n        path: ${path}\n`;
  const files = {
    'kubernetes/flux/instance.yaml': release('kubernetes/clusters/${CLUSTER}/bootstrap'),
    'kubernetes/flux/oci.yaml':
      'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance\n',
    // The bootstrap folder applies the FluxInstance again (it manages itself) and the apps.
    'kubernetes/clusters/main/bootstrap/flux.yaml': ks('flux', './kubernetes/flux', SUBSTITUTE),
    'kubernetes/clusters/main/bootstrap/apps.yaml': ks('apps', './kubernetes/apps', SUBSTITUTE),
    'kubernetes/apps/config.yaml': SCRIPT,
  };

  test('the Kustomization that applies the FluxInstance fills the path: its world is checked', async () => {
    assert.deepEqual(await model(files), ['flux-substitution-undefined kubernetes/apps/config.yaml:7:10']);
  });

  test('filled from a ConfigMap (substituteFrom): the folders the path can name are tried, and the one whose world applies the FluxInstance is kept', async () => {
    const fromSettings = '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n';
    const settings = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  CLUSTER: main\n';
    const fromConfigMap = {
      ...files,
      'kubernetes/clusters/main/bootstrap/flux.yaml': ks('flux', './kubernetes/flux', fromSettings),
      'kubernetes/clusters/main/bootstrap/apps.yaml': ks('apps', './kubernetes/apps', fromSettings),
      'kubernetes/clusters/main/bootstrap/settings.yaml': settings,
      // A folder that fits the path but whose world never applies the FluxInstance: not a root.
      'kubernetes/clusters/lab/bootstrap/apps.yaml': ks('lab-apps', './kubernetes/lab', fromSettings),
      'kubernetes/lab/config.yaml': SCRIPT,
    };
    assert.deepEqual(await model(fromConfigMap), ['flux-substitution-undefined kubernetes/apps/config.yaml:7:10']);
  });

  test('a path no Kustomization fills and no folder fits: one error at the path, and no silent pass', async () => {
    const result = await auditFiles({
      ...files,
      'kubernetes/clusters/main/bootstrap/flux.yaml': ks('flux', './kubernetes/flux'),
      'kubernetes/flux/instance.yaml': release('kubernetes/clusters/${CLUSTER}/flux'),
    });
    assert.deepEqual(modelFindings(result.findings), ['kustomize-reference kubernetes/flux/instance.yaml:16:15']);
    assert.match(
      result.findings[0].message,
      /^The HelmRelease values in kubernetes\/flux\/instance\.yaml syncs "kubernetes\/clusters\/\$\{CLUSTER\}\/flux", which keeps \$\{CLUSTER\}: no Kustomization that applies it substitutes it/,
    );
    assert.equal(result.findings[0].severity, 'error');
  });
});

describe('roots: each world builds from its own source object', () => {
  // Three clusters, each with a GitRepository flux-system that keeps only its own folders.
  const files: Record<string, string> = {};
  for (const cluster of ['a', 'b', 'c']) {
    files[`clusters/${cluster}/flux-system/gotk-sync.yaml`] = gitRepository(undefined, ['/*', `!/clusters/${cluster}`, `!/apps/${cluster}`]);
    files[`clusters/${cluster}/apps.yaml`] = ks('apps', `./apps/${cluster}`, SUBSTITUTE);
    files[`apps/${cluster}/config.yaml`] = SCRIPT;
  }

  test('flux.roots names one cluster: its GitRepository’s spec.ignore decides, not the first same-named one', async () => {
    assert.deepEqual(await model({ ...files, '.flux-job-guard.yaml': 'flux:\n  roots: [clusters/c]\n' }), ['flux-substitution-undefined apps/c/config.yaml:7:10']);
  });

  test('negative control: another root, another cluster’s files', async () => {
    assert.deepEqual(await model({ ...files, '.flux-job-guard.yaml': 'flux:\n  roots: [clusters/a]\n' }), ['flux-substitution-undefined apps/a/config.yaml:7:10']);
  });
});

describe('roots that apply nothing', () => {
  const instance = (path: string) =>
    `apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: GitRepository\n    url: https://github.com/example/home-ops\n    path: ${path}\n`;

  test('a FluxInstance syncs a folder the repository does not have, or one with nothing to apply: an error at its path', async () => {
    const result = await auditFiles({ 'flux/instance.yaml': instance('clusters/gone'), 'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE), 'apps/config.yaml': SCRIPT });
    assert.deepEqual(modelFindings(result.findings), ['kustomize-reference flux/instance.yaml:10:11']);
    assert.match(result.findings[0].message, /^spec\.path "clusters\/gone" of Kustomization "flux-system" does not exist in GitRepository flux-system/);
    const empty = await auditFiles({ 'flux/instance.yaml': instance('clusters/docs'), 'clusters/docs/README.md': '# how we bootstrap\n', 'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE) });
    assert.deepEqual(modelFindings(empty.findings), ['kustomize-reference flux/instance.yaml:10:11']);
    assert.match(empty.findings[0].message, /^The FluxInstance in flux\/instance\.yaml syncs "clusters\/docs", which holds nothing Flux applies: Flux applies nothing from it/);
    // Negative control: the folder it names exists, and its world is checked.
    assert.deepEqual(await model({ 'flux/instance.yaml': instance('clusters/home'), 'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE), 'apps/config.yaml': SCRIPT }), [
      'flux-substitution-undefined apps/config.yaml:7:10',
    ]);
  });

  test('Kustomizations whose sources the repository cannot show: said once that nothing was checked', async () => {
    const oci = (name: string) => ks(name, `./${name}`, SUBSTITUTE, 'platform', 'OCIRepository');
    const result = await auditFiles({ 'clusters/a.yaml': oci('a'), 'clusters/b.yaml': oci('b'), 'a/config.yaml': SCRIPT });
    assert.deepEqual(modelFindings(result.findings), ['flux-no-root clusters/a.yaml:2:1']);
    assert.equal(result.findings[0].severity, 'warning');
    assert.match(result.findings[0].message, /^2 Flux Kustomization\(s\) are written here, but no root was found: no file of this repository was checked as Flux applies it\./);
  });
});

describe('roots: cluster folders no readable root applies (a Terraform bootstrap, a templated FluxInstance)', () => {
  // clusters/prod is bootstrapped by `flux bootstrap`; clusters/dev by Terraform, which commits no gotk-sync.yaml.
  const files = {
    'clusters/prod/flux-system/gotk-sync.yaml': `${gitRepository()}---\n${ks('flux-system', './clusters/prod')}`,
    'clusters/prod/apps.yaml': ks('apps', './apps/prod', SUBSTITUTE),
    'apps/prod/config.yaml': SCRIPT,
    'clusters/dev/apps.yaml': ks('apps', './apps/dev', SUBSTITUTE),
    'apps/dev/config.yaml': SCRIPT,
  };

  test('the cluster folder beside the root’s is taken as a root, said once in one info', async () => {
    const result = await auditFiles(files);
    assert.deepEqual(modelFindings(result.findings), [
      'flux-substitution-undefined apps/dev/config.yaml:7:10',
      'flux-substitution-undefined apps/prod/config.yaml:7:10',
      'flux-no-root clusters/dev/apps.yaml:2:1',
    ]);
    const info = result.findings.find((f) => f.rule === 'flux-no-root')!;
    assert.equal(info.severity, 'info');
    assert.match(info.message, /^No root found applies clusters\/dev, beside clusters\/prod: taken as cluster folders .* Name the folders Flux starts from in flux\.roots/);
  });

  test('negative controls: an archived cluster, a folder some Kustomization builds, a cluster folder that does not build, and flux.roots are not taken', async () => {
    const onlyProd = ['flux-substitution-undefined apps/prod/config.yaml:7:10'];
    const { 'clusters/dev/apps.yaml': dev, 'apps/dev/config.yaml': devConfig } = files;
    const prod = Object.fromEntries(Object.entries(files).filter(([file]) => !file.includes('/dev/')));
    assert.deepEqual(await model({ ...prod, 'clusters/archive/apps.yaml': dev, 'apps/dev/config.yaml': devConfig }), onlyProd);
    // A Kustomization that fails (a resource it lists is missing) builds the folder: it is part of prod's world.
    const failing = { ...files, 'clusters/prod/dev.yaml': ks('dev', './clusters/dev'), 'clusters/dev/kustomization.yaml': 'resources:\n  - apps.yaml\n  - gone.yaml\n' };
    assert.ok(!(await model(failing)).some((finding) => finding.startsWith('flux-no-root')), 'a folder a Kustomization builds is no cluster of its own');
    // It lists a flux-system/ it lacks: never bootstrapped.
    assert.deepEqual(await model({ ...files, 'clusters/dev/kustomization.yaml': 'resources:\n  - ./flux-system\n  - apps.yaml\n' }), onlyProd);
    const contract = 'flux:\n  roots:\n    - clusters/prod\n';
    assert.deepEqual(await model({ ...files, '.flux-job-guard.yaml': contract }), onlyProd);
  });
});
