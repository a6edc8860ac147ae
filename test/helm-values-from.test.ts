// helm-values-from-missing (flux/model/helm-refs.ts), as table tests: each case
// is a small repository and the exact findings it gives (rule, severity, 0-based
// range), with its message and fixes; each invalid case has its negative control
// (the same repository, the reference right, gives nothing), and every way the
// world may create the object without a finding is a valid case.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { auditFiles } from './helpers/memory-fs';
import { applyFileEdits, CONTRACT_PATH } from './helpers/table';

const RULE = 'helm-values-from-missing';

/** A HelmRelease in `namespace` (none: ''), `spec` appended under its spec (indented by 2). */
function release(name: string, spec: string, namespace = 'media'): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}spec:\n  interval: 1h\n${spec}`;
}

const CHART = '  chart:\n    spec:\n      chart: app-template\n      sourceRef:\n        kind: HelmRepository\n        name: bjw-s\n        namespace: flux-system\n';
const VALUES = (kind: string, name: string, extra = '') => `  valuesFrom:\n    - kind: ${kind}\n      name: ${name}\n${extra}`;
const HELM_REPOSITORY = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: bjw-s\n  namespace: flux-system\nspec:\n  url: https://bjw-s-labs.github.io/helm-charts\n';
const CONFIGMAP = (name: string, namespace = 'media') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}data:\n  values.yaml: |\n    replicas: 1\n`;

/** A cluster: the root applies clusters/home (the HelmRepository, Kustomization `apps`), `apps` applies apps/. */
function repo(files: Record<string, string>, apps = kustomization('apps', './apps')): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/repositories.yaml': HELM_REPOSITORY,
    'clusters/home/apps.yaml': apps,
    ...files,
  };
}

/** `file [l0, c0, l1, c1] severity`, for the rule's findings only. */
function exact(f: Finding): string {
  const { start, end } = f.range;
  return `${f.file} [${start.line}, ${start.character}, ${end.line}, ${end.character}] ${f.severity}`;
}

async function findings(files: Record<string, string>): Promise<Finding[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule === RULE);
}

async function table(files: Record<string, string>): Promise<string[]> {
  return (await findings(files)).map(exact);
}

/** An app folder: its kustomization lists the release (and `more`), with `kustomization` lines after resources. */
function app(helmrelease: string, more: Record<string, string> = {}, kustomizationExtra = ''): Record<string, string> {
  return {
    'apps/kustomization.yaml': `resources:\n  - helmrelease.yaml\n${Object.keys(more)
      .filter((file) => file.endsWith('.yaml') && !file.includes('/'))
      .map((file) => `  - ${file}\n`)
      .join('')}${kustomizationExtra}`,
    'apps/helmrelease.yaml': helmrelease,
    ...Object.fromEntries(Object.entries(more).map(([file, text]) => [file.includes('/') ? file : `apps/${file}`, text])),
  };
}

describe('helm-values-from-missing: valuesFrom', () => {
  test('a ConfigMap the world applies, in the release’s namespace: nothing; an optional entry nothing creates: nothing', async () => {
    assert.deepEqual(await table(repo(app(release('app', CHART + VALUES('ConfigMap', 'app-values')), { 'values.yaml': CONFIGMAP('app-values') }))), []);
    assert.deepEqual(await table(repo(app(release('app', CHART + VALUES('ConfigMap', 'app-values', '      optional: true\n'))))), []);
  });

  test('a ConfigMap applied in another namespace: an error at the name, naming where it is; the negative control puts it in the release’s', async () => {
    const files = repo(app(release('app', CHART + VALUES('ConfigMap', 'app-values')), { 'values.yaml': CONFIGMAP('app-values', 'default') }));
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    assert.equal(
      found[0].message,
      'HelmRelease "app" takes values from ConfigMap "app-values" (namespace media), which nothing in this world creates: helm-controller cannot compose its values, so it never installs or upgrades "app". This world applies ConfigMap "app-values" in namespace default.',
    );
    assert.equal(found[0].fixes, undefined);
    assert.deepEqual(await table({ ...files, 'apps/values.yaml': CONFIGMAP('app-values') }), []);
  });

  test('the namespace is the one Flux gives: a targetNamespace puts the release and its ConfigMap in one namespace; a kustomization namespace: too', async () => {
    const files = repo(
      app(release('app', CHART + VALUES('ConfigMap', 'app-values'), ''), { 'values.yaml': CONFIGMAP('app-values', 'default') }),
      kustomization('apps', './apps', '  targetNamespace: media\n'),
    );
    assert.deepEqual(await table(files), []);
    const byKustomize = repo(app(release('app', CHART + VALUES('ConfigMap', 'app-values'), 'other'), { 'values.yaml': CONFIGMAP('app-values', '') }, 'namespace: media\n'));
    assert.deepEqual(await table(byKustomize), []);
    // Negative control: without the transformer, the release stays in `other` and the ConfigMap in `default`.
    const apart = repo(app(release('app', CHART + VALUES('ConfigMap', 'app-values'), 'other'), { 'values.yaml': CONFIGMAP('app-values', 'default') }));
    assert.deepEqual(await table(apart), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });

  test('a configMapGenerator’s ConfigMap gets a hash suffix kustomize does not write into valuesFrom: an error that says so; disableNameSuffixHash or a nameReference configuration: nothing', async () => {
    const generator = 'configMapGenerator:\n  - name: app-values\n    namespace: media\n    files:\n      - values.yaml=helm-values.yaml\n';
    const files = repo({ ...app(release('app', CHART + VALUES('ConfigMap', 'app-values')), {}, generator), 'apps/helm-values.yaml': 'replicas: 1\n' });
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    assert.match(
      found[0].message,
      /^HelmRelease "app" takes values from ConfigMap "app-values" \(namespace media\), which nothing in this world creates: helm-controller cannot compose its values, so it never installs or upgrades "app"\. The generator of apps\/kustomization\.yaml makes it as "app-values-[a-z0-9]{10}": kustomize adds a hash suffix to the name and rewrites no valuesFrom \(HelmRelease is no kind it knows\) unless a `configurations:` nameReference tells it to\. Set `options\.disableNameSuffixHash: true` on the generator, or add that configuration\.$/,
    );
    const noHash = { ...files, 'apps/kustomization.yaml': files['apps/kustomization.yaml'] + 'generatorOptions:\n  disableNameSuffixHash: true\n' };
    assert.deepEqual(await table(noHash), []);
    const nameReference = {
      ...files,
      'apps/kustomization.yaml': files['apps/kustomization.yaml'] + 'configurations:\n  - kustomizeconfig.yaml\n',
      'apps/kustomizeconfig.yaml': 'nameReference:\n  - kind: ConfigMap\n    version: v1\n    fieldSpecs:\n      - path: spec/valuesFrom/name\n        kind: HelmRelease\n',
    };
    assert.deepEqual(await table(nameReference), []);
    // Negative control: a configuration whose nameReference is for another kind's fields rewrites no valuesFrom.
    const otherReference = {
      ...nameReference,
      'apps/kustomizeconfig.yaml': 'nameReference:\n  - kind: ConfigMap\n    version: v1\n    fieldSpecs:\n      - path: spec/configMapRef/name\n        kind: Grafana\n',
    };
    assert.deepEqual(await table(otherReference), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });

  test('a Secret an ExternalSecret, a SealedSecret or a SOPS Secret makes: nothing; an operator’s (a CloudNativePG Cluster’s -app, an ObjectBucketClaim’s): nothing', async () => {
    const uses = (name: string, kind = 'Secret') => release('app', CHART + VALUES(kind, name));
    const externalSecret =
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: app\n  namespace: media\nspec:\n  target:\n    name: app-secret\n  dataFrom:\n    - extract:\n        key: app\n';
    assert.deepEqual(await table(repo(app(uses('app-secret'), { 'externalsecret.yaml': externalSecret }))), []);
    const sealed = 'apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: app-secret\n  namespace: media\nspec:\n  encryptedData:\n    password: AgB=\n';
    assert.deepEqual(await table(repo(app(uses('app-secret'), { 'sealed.yaml': sealed }))), []);
    const sops = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secret\n  namespace: media\nstringData:\n  values.yaml: ENC[AES256_GCM,data:abc=]\nsops:\n  version: 3.9.0\n';
    assert.deepEqual(await table(repo(app(uses('app-secret'), { 'secret.sops.yaml': sops }))), []);
    const cluster = 'apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata:\n  name: app-db\n  namespace: media\nspec:\n  instances: 1\n';
    assert.deepEqual(await table(repo(app(uses('app-db-app'), { 'cluster.yaml': cluster }))), []);
    const bucket = 'apiVersion: objectbucket.io/v1alpha1\nkind: ObjectBucketClaim\nmetadata:\n  name: app-bucket\n  namespace: media\nspec:\n  bucketName: app\n';
    assert.deepEqual(await table(repo(app(uses('app-bucket', 'ConfigMap'), { 'bucket.yaml': bucket }))), []);
    // Negative control: the same Secret with nothing that makes it.
    assert.deepEqual(await table(repo(app(uses('app-secret')))), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });

  test('a Secret made outside the repository: the fix declares it in flux.variables (a from item without names), and the declaration ends the finding; with no release reading it the item is stale', async () => {
    const files = repo(app(release('app', CHART + VALUES('Secret', 'app-secret'))));
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    assert.equal(
      found[0].message,
      'HelmRelease "app" takes values from Secret "app-secret" (namespace media), which nothing in this world creates: helm-controller cannot compose its values, so it never installs or upgrades "app". If something outside the repository creates it (by hand, a bootstrap script, another repository), declare it in the contract\'s flux.variables (from: { kind: Secret, name: app-secret, namespace: media }).',
    );
    assert.deepEqual(
      found[0].fixes!.map((fix) => [fix.title, fix.preferred === true]),
      [["Declare Secret app-secret (namespace media) in the contract's flux.variables as created outside the repository", false]],
    );
    const [edit] = found[0].fixes![0].edits;
    assert.equal(edit.file, CONTRACT_PATH);
    const contract = applyFileEdits('', [edit]);
    assert.equal(
      contract,
      '# Flux Job Guard contract: which Jobs keep no finish timeout\n# (or another one), and why. Hover a key for its meaning.\nflux:\n  variables:\n    - from: { kind: Secret, name: app-secret, namespace: media }\n      reason: TODO say where this comes from\n',
    );
    const declared = { ...files, [CONTRACT_PATH]: contract.replace('TODO say where this comes from', 'Made by the bootstrap script.') };
    const result = await auditFiles(declared);
    assert.deepEqual(
      result.findings.filter((f) => f.rule === RULE || f.rule === 'contract-stale').map((f) => f.rule),
      [],
    );
    // The same item once no release reads the Secret: stale.
    const unread = await auditFiles({ ...declared, 'apps/helmrelease.yaml': release('app', CHART) });
    assert.deepEqual(
      unread.findings.filter((f) => f.rule === 'contract-stale').map((f) => f.message),
      [
        'The flux.variables item for Secret app-secret is stale: no live Kustomization takes Secret app-secret from outside the repository, and no live HelmRelease reads it (where the repository shows it, its keys are read there). Remove the item.',
      ],
    );
  });

  test('a contract item for the Secret in another namespace does not declare it; one without a namespace does', async () => {
    const files = repo(app(release('app', CHART + VALUES('Secret', 'app-secret'))));
    const other = '.flux-job-guard.yaml';
    const elsewhere = { ...files, [other]: 'flux:\n  variables:\n    - from: { kind: Secret, name: app-secret, namespace: default }\n      reason: Made by hand.\n' };
    assert.deepEqual(await table(elsewhere), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    const anywhere = { ...files, [other]: 'flux:\n  variables:\n    - from: { kind: Secret, name: app-secret }\n      reason: Made by hand.\n' };
    assert.deepEqual(await table(anywhere), []);
  });

  test('what the model cannot tell is not reported: a name with a variable nobody fills, a patch that writes valuesFrom, a suspended release, a file no Kustomization applies', async () => {
    const open = repo(
      app(release('app', CHART + VALUES('Secret', '${SECRET_NAME}'))),
      kustomization('apps', './apps', '  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n'),
    );
    assert.deepEqual(await table(open), []);
    const filled = repo(app(release('app', CHART + VALUES('Secret', '${APP}-secret'))), kustomization('apps', './apps', '  postBuild:\n    substitute:\n      APP: app\n'));
    const found = await findings(filled);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [16, 12, 16, 25] error']);
    assert.match(found[0].message, /takes values from Secret "app-secret" \(namespace media\)/);
    const patch = 'patches:\n  - target:\n      kind: HelmRelease\n    patch: |\n      - op: replace\n        path: /spec/valuesFrom/0/name\n        value: shared-secret\n';
    assert.deepEqual(await table(repo(app(release('app', CHART + VALUES('Secret', 'app-secret')), {}, patch))), []);
    // Negative control: a patch that writes something else leaves valuesFrom as written.
    const other = 'patches:\n  - target:\n      kind: HelmRelease\n    patch: |\n      - op: add\n        path: /spec/timeout\n        value: 10m\n';
    assert.deepEqual(await table(repo(app(release('app', CHART + VALUES('Secret', 'app-secret')), {}, other))), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    assert.deepEqual(await table(repo(app(release('app', CHART + '  suspend: true\n' + VALUES('Secret', 'app-secret'))))), []);
    const dead = repo({ 'apps/kustomization.yaml': 'resources: []\n', 'apps/helmrelease.yaml': release('app', CHART + VALUES('Secret', 'app-secret')) });
    assert.deepEqual(await table(dead), []);
  });
});

describe('helm-values-from-missing: what else may create the object', () => {
  const uses = (name: string, releaseName = 'app') => release(releaseName, CHART + VALUES('Secret', name));

  test('another release’s chart may make Secrets named after it: nothing; a release’s own chart cannot make its values before it installs: an error', async () => {
    const other = release('db', CHART);
    assert.deepEqual(await table(repo(app(uses('db-credentials'), { 'db.yaml': other }))), []);
    assert.deepEqual(await table(repo(app(uses('app-credentials')))), ['apps/helmrelease.yaml [16, 12, 16, 27] error']);
  });

  test('Flux’s own patches of what it builds: a Kustomization’s spec.patches that writes the releases’ valuesFrom, a parent’s patch that nests one: nothing; one that writes other fields: an error', async () => {
    const patches = (text: string) => `  patches:\n    - target:\n        kind: HelmRelease\n      patch: |\n${text.replace(/^/gm, '        ')}\n`;
    const valuesFrom = 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: _\nspec:\n  valuesFrom:\n    - kind: Secret\n      name: shared-secret';
    const timeout = 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: _\nspec:\n  timeout: 10m';
    const files = app(uses('app-secret'));
    assert.deepEqual(await table(repo(files, kustomization('apps', './apps', patches(valuesFrom)))), []);
    assert.deepEqual(await table(repo(files, kustomization('apps', './apps', patches(timeout)))), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    // A parent that patches its children's spec.patches (the home-ops way of release defaults).
    const nested = (inner: string) =>
      `  patches:\n    - target:\n        kind: Kustomization\n      patch: |\n        apiVersion: kustomize.toolkit.fluxcd.io/v1\n        kind: Kustomization\n        metadata:\n          name: _\n        spec:\n          patches:\n            - target:\n                kind: HelmRelease\n              patch: |\n${inner.replace(/^/gm, '                ')}\n`;
    const parent = (inner: string) => ({
      'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
      'clusters/home/repositories.yaml': HELM_REPOSITORY,
      'clusters/home/cluster-apps.yaml': kustomization('cluster-apps', './kubernetes', nested(inner)),
      'kubernetes/apps.yaml': kustomization('apps', './apps'),
      ...files,
    });
    assert.deepEqual(await table(parent(valuesFrom)), []);
    assert.deepEqual(await table(parent(timeout)), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });

  test('a Flux Operator ResourceSet’s template that makes the operator’s object (a CloudNativePG Cluster): nothing; one the reader cannot follow may make anything in its namespace: nothing', async () => {
    const resourceSet = (template: string) =>
      `apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: app-db\n  namespace: media\nspec:\n  inputs:\n    - namespace: media\n  resourcesTemplate: |\n${template.replace(/^/gm, '    ')}\n`;
    const cluster = 'apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata:\n  name: app-db\n  namespace: << inputs.namespace >>\nspec:\n  instances: 1';
    assert.deepEqual(await table(repo(app(uses('app-db-app'), { 'db.yaml': resourceSet(cluster) }))), []);
    const opaque = '<<- range $i := until 2 >>\napiVersion: v1\nkind: Secret\nmetadata: {name: x}\n  broken: [\n<<- end >>';
    assert.deepEqual(await table(repo(app(uses('app-secret'), { 'db.yaml': resourceSet(opaque) }))), []);
    // Negative control: a template that makes something else.
    const other = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-db\n  namespace: media\ndata: {}';
    assert.deepEqual(await table(repo(app(uses('app-secret'), { 'db.yaml': resourceSet(other) }))), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });

  test('a world that also builds another repository: a name this repository writes nowhere may be that repository’s: nothing; one it writes elsewhere: an error', async () => {
    const foreign =
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: platform\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: platform\n';
    const files = { ...repo(app(uses('app-secret'))), 'clusters/home/platform.yaml': foreign };
    assert.deepEqual(await table(files), []);
    const writtenHere = { ...files, 'templates/secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secret\n  namespace: media\nstringData:\n  a: b\n' };
    const found = await findings(writtenHere);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
    assert.match(found[0].message, / templates\/secret\.yaml declares it, but no Kustomization of this world applies that file\.$/);
    // Flux's own install manifests (ghcr.io/fluxcd/flux-manifests) make nothing a release reads: not another repository here.
    const fluxManifests =
      'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: flux-manifests\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/fluxcd/flux-manifests\n  ref:\n    tag: v2.5.1\n---\n' +
      foreign.replace('name: platform\n  namespace', 'name: flux\n  namespace').replace('kind: GitRepository\n    name: platform', 'kind: OCIRepository\n    name: flux-manifests');
    assert.deepEqual(await table({ ...files, 'clusters/home/platform.yaml': fluxManifests }), ['apps/helmrelease.yaml [16, 12, 16, 22] error']);
  });
});

describe('helm-values-from-missing: the chart’s source', () => {
  test('spec.chart.spec.sourceRef: a near name is replaced by the fix, and the fixed release gives nothing; the namespace defaults to the release’s', async () => {
    const files = repo(app(release('app', CHART.replace('name: bjw-s', 'name: bjw-ss'))));
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [12, 14, 12, 20] error']);
    assert.equal(
      found[0].message,
      'HelmRelease "app" takes its chart from HelmRepository "bjw-ss" (namespace flux-system), which nothing in this world creates: helm-controller cannot get the chart, so it never installs or upgrades "app". The nearest HelmRepository name there is "bjw-s".',
    );
    assert.deepEqual(
      found[0].fixes!.map((fix) => [fix.title, fix.preferred === true]),
      [['Replace with "bjw-s"', true]],
    );
    const fixed = applyFileEdits(files['apps/helmrelease.yaml'], found[0].fixes![0].edits);
    assert.equal(fixed, files['apps/helmrelease.yaml'].replace('name: bjw-ss', 'name: bjw-s'));
    assert.deepEqual(await table({ ...files, 'apps/helmrelease.yaml': fixed }), []);
    const local = await findings(repo(app(release('app', CHART.replace('        namespace: flux-system\n', '')))));
    assert.deepEqual(local.map(exact), ['apps/helmrelease.yaml [12, 14, 12, 19] error']);
    assert.match(local[0].message, /HelmRepository "bjw-s" \(namespace media\).* This world applies HelmRepository "bjw-s" in namespace flux-system\.$/);
  });

  test('spec.chartRef: an OCIRepository nothing applies, declared in a file no Kustomization of the world applies: said; Flux’s own flux-system source: nothing', async () => {
    const chartRef = (name: string, namespace: string) => `  chartRef:\n    kind: OCIRepository\n    name: ${name}\n    namespace: ${namespace}\n`;
    const oci = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app-template\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n';
    const files = repo({ ...app(release('app', chartRef('app-template', 'flux-system'))), 'repositories/oci/app-template.yaml': oci });
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [9, 10, 9, 22] error']);
    assert.equal(
      found[0].message,
      'HelmRelease "app" takes its chart from OCIRepository "app-template" (namespace flux-system), which nothing in this world creates: helm-controller cannot get the chart, so it never installs or upgrades "app". repositories/oci/app-template.yaml declares it, but no Kustomization of this world applies that file.',
    );
    assert.deepEqual(await table({ ...files, 'clusters/home/app-template.yaml': oci }), []);
    assert.deepEqual(await table(repo(app(release('app', chartRef('flux-system', 'flux-system'))))), []);
    const git = '  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n';
    assert.deepEqual(await table(repo(app(release('app', git)))), []);
  });

  test('several clusters: said once, naming the clusters where the source is missing', async () => {
    const files = {
      'clusters/a/flux-system/gotk-sync.yaml': gotkSync('./clusters/a'),
      'clusters/a/repositories.yaml': HELM_REPOSITORY,
      'clusters/a/apps.yaml': kustomization('apps', './apps'),
      'clusters/b/flux-system/gotk-sync.yaml': gotkSync('./clusters/b'),
      'clusters/b/apps.yaml': kustomization('apps', './apps'),
      ...app(release('app', CHART)),
    };
    const found = await findings(files);
    assert.deepEqual(found.map(exact), ['apps/helmrelease.yaml [12, 14, 12, 19] error']);
    assert.match(found[0].message, /which nothing in this world creates: .* In clusters\/b\.$/);
  });
});
