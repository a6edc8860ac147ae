// The dependsOn gate (flux/model/gate.ts) and its three rules, as table tests:
// each case is a small repository, the exact findings it gives (rule, severity,
// 0-based range), its messages and fixes; each with a negative control (the
// same repository with the dependency right gives nothing, and what the
// blocked Kustomization builds is checked again).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles } from './helpers/memory-fs';
import { applyFileEdits } from './helpers/table';

const GIT = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n';

/** A Flux Kustomization; `extra` is appended under spec (indented by 2). */
function ks(name: string, path: string, extra = '', namespace = 'flux-system'): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}spec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;
}

const dependsOn = (...names: string[]) => `  dependsOn:\n${names.map((name) => `    - name: ${name}\n`).join('')}`;
const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: home\n';
const CONFIGMAP = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  run.sh: |\n    ${value}\n`;

/** `rule file [l0, c0, l1, c1] severity`: the exact form the tables compare. */
function exact(f: Finding): string {
  const { start, end } = f.range;
  return `${f.rule} ${f.file} [${start.line}, ${start.character}, ${end.line}, ${end.character}] ${f.severity}`;
}

const MODEL_RULES = /^(flux-|kustomize-reference)/;

async function findings(files: Record<string, string>): Promise<Finding[]> {
  return (await auditFiles(files)).findings.filter((f) => MODEL_RULES.test(f.rule));
}

async function table(files: Record<string, string>): Promise<string[]> {
  return (await findings(files)).map(exact);
}

/** A cluster whose `apps` waits for `infra`; `apps` builds a ConfigMap with an undefined name (seen only when apps builds). */
function cluster(appsDependsOn: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
    'clusters/home/infra.yaml': ks('infra-controllers', './infra'),
    'clusters/home/apps.yaml': ks('apps', './apps', dependsOn(appsDependsOn) + SUBSTITUTE),
    'infra/config.yaml': CONFIGMAP('infra', 'echo infra'),
    'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
    ...extra,
  };
}

describe('flux-depends-on-missing', () => {
  test('a name no Kustomization of the world has: an error at the entry, the nearest name, a fix; what apps builds is not applied', async () => {
    const files = cluster('infra-controlers');
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 28] error']);
    assert.equal(
      found[0].message,
      'Kustomization "apps" waits for Kustomization "infra-controlers" (namespace flux-system), which no Kustomization of this world declares: Flux never builds "apps", and nothing only it applies reaches the cluster. The nearest existing name is "infra-controllers".',
    );
    assert.deepEqual(
      found[0].fixes!.map((fix) => [fix.title, fix.preferred]),
      [['Replace with "infra-controllers"', true]],
    );
    const fixed = applyFileEdits(files['clusters/home/apps.yaml'], found[0].fixes![0].edits);
    assert.match(fixed, /- name: infra-controllers\n/);
    // Negative control: with the name right, apps builds, and the undefined name in what it builds is seen.
    assert.deepEqual(await table({ ...files, 'clusters/home/apps.yaml': fixed }), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
  });

  test('no fix when nothing is close; the message still names the nearest; quotes are kept by the fix', async () => {
    const far = await findings(cluster('databases'));
    assert.deepEqual(far.map(exact), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 21] error']);
    assert.match(far[0].message, /The nearest existing name is "(apps|flux-system|infra-controllers)"\.$/);
    assert.equal(far[0].fixes, undefined);
    const quoted = await findings(cluster('"infra-controler"'));
    assert.deepEqual(
      quoted[0].fixes![0].edits.map((e) => e.newText),
      ['"infra-controllers"'],
    );
  });

  test('the namespace defaults to the dependent’s: a name that exists only in another namespace is missing; naming the namespace resolves it', async () => {
    const files = cluster('infra-controllers', { 'clusters/home/infra.yaml': ks('infra-controllers', './infra', '', 'infra') });
    assert.deepEqual(await table(files), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 29] error']);
    assert.match((await findings(files))[0].message, /The nearest existing name is "infra-controllers" \(in namespace infra\)\.$/);
    const withNamespace = ks('apps', './apps', '  dependsOn:\n    - name: infra-controllers\n      namespace: infra\n' + SUBSTITUTE);
    assert.deepEqual(await table({ ...files, 'clusters/home/apps.yaml': withNamespace }), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
  });

  test('a kustomization.yaml namespace puts the Kustomizations it lists there (the outermost wins), and a parent’s targetNamespace wins over both', async () => {
    const files = {
      ...cluster('infra-controllers', { 'clusters/home/infra.yaml': '' }),
      'clusters/home/kustomization.yaml': 'resources:\n  - ./flux-system/gotk-sync.yaml\n  - ./apps.yaml\n  - ./infra\n',
      'clusters/home/infra/kustomization.yaml': 'namespace: infra\nresources:\n  - ks.yaml\n',
      'clusters/home/infra/ks.yaml': ks('infra-controllers', './infra', '', ''),
    };
    assert.deepEqual(await table(files), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 29] error']);
    const outer = { ...files, 'clusters/home/kustomization.yaml': 'namespace: flux-system\nresources:\n  - ./flux-system/gotk-sync.yaml\n  - ./apps.yaml\n  - ./infra\n' };
    assert.deepEqual(await table(outer), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
  });

  test('self-created: the dependency exists only in what the dependent itself builds (sob__home-ops): never builds on a fresh cluster, the path named', async () => {
    const files = {
      'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
      'clusters/home/apps.yaml': ks('cluster-apps', './apps', '  dependsOn:\n    - name: external-secrets-stores\n      namespace: external-secrets\n' + SUBSTITUTE),
      'apps/kustomization.yaml': 'resources:\n  - ./external-secrets\n  - ./config.yaml\n',
      'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
      'apps/external-secrets/kustomization.yaml': 'namespace: external-secrets\nresources:\n  - ./stores/ks.yaml\n',
      'apps/external-secrets/stores/ks.yaml': ks('external-secrets-stores', './stores', '', ''),
      'stores/store.yaml': CONFIGMAP('s', 'echo ${UNSET}'),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 35] error']);
    assert.equal(
      found[0].message,
      'Kustomization "cluster-apps" waits for Kustomization "external-secrets-stores" (namespace external-secrets), which only its own build creates ("cluster-apps" → apps/external-secrets/stores/ks.yaml): it cannot be Ready before "cluster-apps" builds, so Flux never builds "cluster-apps" on a cluster where it does not exist yet, and nothing only it applies reaches the cluster.',
    );
    assert.deepEqual(
      found[0].related!.map((r) => [r.file, r.range.start.line, r.message]),
      [['apps/external-secrets/stores/ks.yaml', 1, 'Kustomization "external-secrets-stores", created by "cluster-apps"\'s own build']],
    );
    // Negative control: applied by the cluster folder itself (not through cluster-apps), it is Ready first.
    const outside = {
      ...files,
      'apps/kustomization.yaml': 'resources:\n  - ./config.yaml\n',
      'clusters/home/stores.yaml': ks('external-secrets-stores', './stores', '', 'external-secrets'),
    };
    assert.deepEqual(await table(outside), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
  });

  test('a root that applies itself may wait for what the bootstrap applies with it, the folder of its own file (carpenike__k8s-gitops: kubectl apply -k flux/config)', async () => {
    const files = {
      'flux/config/kustomization.yaml': 'resources:\n  - ./flux.yaml\n  - ./cluster.yaml\n',
      'flux/config/cluster.yaml': `${GIT}---\n${ks('cluster', './flux', dependsOn('flux'))}`,
      'flux/config/flux.yaml': ks('flux', './infra'),
      'flux/apps.yaml': ks('apps', './apps', SUBSTITUTE),
      'infra/config.yaml': CONFIGMAP('infra', 'echo infra'),
      'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
    };
    assert.deepEqual(await table(files), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
    // Negative control: declared in a sub-folder the root's own build applies, it exists only once the root built.
    const { 'flux/config/flux.yaml': flux, ...rest } = files;
    // The root's kustomization.yaml no longer lists the moved file (a dangling ./flux.yaml would fail kustomize's build of the root itself).
    const below = { ...rest, 'flux/config/kustomization.yaml': 'resources:\n  - ./cluster.yaml\n', 'flux/extra/flux.yaml': flux };
    assert.deepEqual(await table(below), ['flux-depends-on-missing flux/config/cluster.yaml [22, 12, 22, 16] error']);
  });

  test('a HelmRelease waits for HelmReleases of its world (namespace defaulting to its own)', async () => {
    const release = (name: string, extra = '') => `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  interval: 1h\n${extra}`;
    const files = {
      'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
      'clusters/home/apps.yaml': ks('apps', './apps'),
      'apps/db.yaml': release('postgres'),
      'apps/app.yaml': release('app', dependsOn('postgress')),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-missing apps/app.yaml [8, 12, 8, 21] error']);
    assert.equal(
      found[0].message,
      'HelmRelease "app" waits for HelmRelease "postgress" (namespace default), which no HelmRelease of this world declares: Flux never installs or upgrades "app". The nearest existing name is "postgres".',
    );
    assert.deepEqual(await table({ ...files, 'apps/app.yaml': release('app', dependsOn('postgres')) }), []);
  });

  test('several clusters: the entry is said once, naming the cluster where it is missing', async () => {
    const files = {
      'clusters/a/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/a')}`,
      'clusters/a/infra.yaml': ks('infra', './infra'),
      'clusters/a/apps.yaml': ks('apps', './apps', dependsOn('infra')),
      'clusters/b/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/b')}`,
      'clusters/b/apps.yaml': ks('apps', './apps', dependsOn('infra')),
      'infra/a.yaml': CONFIGMAP('i', 'x'),
      'apps/a.yaml': CONFIGMAP('a', 'x'),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-missing clusters/b/apps.yaml [14, 12, 14, 17] error']);
    assert.match(found[0].message, / In clusters\/b\.$/);
    // The same entry in a.yaml resolves: nothing there.
  });
});

describe('flux-depends-on-cycle', () => {
  const files = {
    'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
    'clusters/home/a.yaml': ks('alpha', './alpha', dependsOn('beta')),
    'clusters/home/b.yaml': ks('beta', './beta', dependsOn('gamma')),
    'clusters/home/c.yaml': ks('gamma', './gamma', dependsOn('alpha') + SUBSTITUTE),
    'alpha/a.yaml': CONFIGMAP('a', 'x'),
    'beta/b.yaml': CONFIGMAP('b', 'x'),
    'gamma/c.yaml': CONFIGMAP('c', 'echo ${UNSET}'),
  };

  test('once per cycle, at its first member in file order, the path in related information; what the cycle builds is not applied', async () => {
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-cycle clusters/home/a.yaml [14, 12, 14, 16] error']);
    assert.equal(
      found[0].message,
      'Kustomizations wait for each other in a cycle ("alpha" → "beta" → "gamma" → "alpha"): none of them ever becomes Ready, so Flux builds none of them, and nothing only they apply reaches the cluster. Remove one dependsOn entry of the cycle.',
    );
    assert.deepEqual(
      found[0].related!.map((r) => [r.file, r.message]),
      [
        ['clusters/home/a.yaml', 'Kustomization "alpha" waits for "beta"'],
        ['clusters/home/b.yaml', 'Kustomization "beta" waits for "gamma"'],
        ['clusters/home/c.yaml', 'Kustomization "gamma" waits for "alpha"'],
      ],
    );
  });

  test('negative control: break the cycle and every member builds (gamma’s undefined name is seen)', async () => {
    assert.deepEqual(await table({ ...files, 'clusters/home/c.yaml': ks('gamma', './gamma', SUBSTITUTE) }), ['flux-substitution-undefined gamma/c.yaml [6, 9, 6, 17] error']);
  });

  test('a Kustomization that waits for itself is a cycle of one', async () => {
    assert.deepEqual(
      await table({ ...files, 'clusters/home/a.yaml': ks('alpha', './alpha', dependsOn('alpha')), 'clusters/home/b.yaml': ks('beta', './beta'), 'clusters/home/c.yaml': ks('gamma', './gamma') }),
      ['flux-depends-on-cycle clusters/home/a.yaml [14, 12, 14, 17] error'],
    );
  });
});

describe('flux-depends-on-kind', () => {
  const release = 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: cert-manager\n  namespace: flux-system\nspec:\n  interval: 1h\n';
  const files = cluster('cert-manager', { 'infra/cert-manager.yaml': release });

  test('a Kustomization’s dependsOn that names a HelmRelease never resolves: the explanation, and a fix naming the Kustomization that applies it', async () => {
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['flux-depends-on-kind clusters/home/apps.yaml [14, 12, 14, 24] error']);
    assert.match(found[0].message, /"cert-manager" is a HelmRelease \(infra\/cert-manager\.yaml\): a Kustomization's dependsOn names Kustomizations only, .*fluxcd\/kustomize-controller#242/);
    assert.deepEqual(
      found[0].fixes!.map((fix) => [fix.title, fix.edits[0].newText]),
      [['Depend on Kustomization "infra-controllers", which applies HelmRelease "cert-manager"', 'infra-controllers']],
    );
    const fixed = applyFileEdits(files['clusters/home/apps.yaml'], found[0].fixes![0].edits);
    assert.deepEqual(await table({ ...files, 'clusters/home/apps.yaml': fixed }), ['flux-substitution-undefined apps/config.yaml [6, 9, 6, 17] error']);
  });

  test('negative control: without the HelmRelease the same entry is a missing Kustomization', async () => {
    assert.deepEqual(await table(cluster('cert-manager')), ['flux-depends-on-missing clusters/home/apps.yaml [14, 12, 14, 24] error']);
  });
});

describe('what never builds is not applied', () => {
  test('a Kustomization whose path keeps a ${VAR} nobody substitutes fails, and what depends on it waits (sulibot__home-ops production)', async () => {
    const files = {
      'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
      'clusters/home/apps.yaml': ks('apps', './apps'),
      'apps/db.yaml': ks('db', './db/app-${MODE:=false}'),
      'apps/web.yaml': ks('web', './web', dependsOn('db') + SUBSTITUTE),
      'db/app-false/a.yaml': CONFIGMAP('d', 'x'),
      'web/a.yaml': CONFIGMAP('w', 'echo ${UNSET}'),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['kustomize-reference apps/db.yaml [7, 8, 7, 31] warning']);
    assert.match(found[0].message, /keeps its \$\{…\} as written: Kustomization "apps", which applies it, has no postBuild/);
    // Negative control: a parent that substitutes fills the default in; db builds and web after it.
    const substituted = { ...files, 'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE) };
    assert.deepEqual(await table(substituted), ['flux-substitution-undefined web/a.yaml [6, 9, 6, 17] error']);
  });

  test('several clusters: the literal path is said once, naming the cluster whose parent does not substitute', async () => {
    const files = {
      'clusters/a/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/a')}`,
      'clusters/a/apps.yaml': ks('apps', './apps', SUBSTITUTE),
      'clusters/b/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/b')}`,
      'clusters/b/apps.yaml': ks('apps', './apps'),
      'apps/db.yaml': ks('db', './db/app-${MODE:=false}'),
      'db/app-false/a.yaml': CONFIGMAP('d', 'x'),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['kustomize-reference apps/db.yaml [7, 8, 7, 31] warning']);
    assert.match(found[0].message, /has no postBuild, .* In clusters\/b\.$/);
  });

  test('a ${VAR} in a dependsOn name or a Kustomization name is read with the variables of the parent that applies it', async () => {
    const files = {
      'clusters/home/flux-system/gotk-sync.yaml': `${GIT}---\n${ks('flux-system', './clusters/home')}`,
      'clusters/home/apps.yaml': ks('apps', './apps', '  postBuild:\n    substitute:\n      APP: web\n'),
      'apps/db.yaml': ks('${APP}-db', './db'),
      'apps/web.yaml': ks('web', './web', dependsOn('web-db')),
      'db/a.yaml': CONFIGMAP('d', 'x'),
      'web/a.yaml': CONFIGMAP('w', 'x'),
    };
    assert.deepEqual(await table(files), []);
    assert.deepEqual(await table({ ...files, 'apps/web.yaml': ks('web', './web', dependsOn('web-dbs')) }), ['flux-depends-on-missing apps/web.yaml [14, 12, 14, 19] error']);
  });
});
