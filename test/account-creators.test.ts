// pod-service-account-undeclared where a chart or an operator probably creates
// the account: a HelmRelease applied in the same world and namespace (the
// Kustomization's targetNamespace wins over the file's own) whose values name
// it, or whose release name (or `<release>-<chart>`) it is; a custom resource
// of the same name and namespace. Then an info naming it; the warning stays
// when nothing like that is there (the negative controls).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { auditFiles, brief } from './helpers/memory-fs';

function cronJob(account: string, namespace = 'kube-system'): string {
  return `apiVersion: batch/v1
kind: CronJob
metadata:
  name: reconciler
  namespace: ${namespace}
spec:
  schedule: "*/15 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: ${account}
          restartPolicy: OnFailure
          containers:
            - name: main
              image: alpine:3.20
`;
}

function helmRelease(name: string, chart: string, values = ''): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
spec:
  interval: 1h
  chart:
    spec:
      chart: ${chart}
      sourceRef: {kind: HelmRepository, name: charts}
${values ? `  values:\n${values}` : ''}`;
}

/** One cluster; Kustomization `app` applies app/ into network-system; `extra` adds files. */
function repo(account: string, beside: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'clusters/a/flux-system/gotk-sync.yaml': gotkSync('./clusters/a'),
    'clusters/a/app.yaml': kustomization('app', './app', '  targetNamespace: network-system\n'),
    'app/cronjob.yaml': cronJob(account),
    ...Object.fromEntries(Object.entries(beside).map(([file, text]) => [`app/${file}`, text])),
    ...extra,
  };
}

async function accountFindings(files: Record<string, string>): Promise<string[]> {
  const result = await auditFiles(files);
  return result.findings
    .filter((f) => f.rule === 'pod-service-account-undeclared')
    .map((f) => `${brief(f)} ${f.severity}: ${f.message.replace(/^(.*?: it is probably created by [^.]+|[^:]*).*$/s, '$1')}`);
}

const INFO = (account: string, by: string) => [
  `pod-service-account-undeclared app/cronjob.yaml:12:31 info: ServiceAccount "${account}" in namespace network-system is not declared in this repository: it is probably created by ${by}`,
];
const WARNING = (account: string, namespace = 'network-system') => [
  `pod-service-account-undeclared app/cronjob.yaml:12:31 warning: ServiceAccount "${account}" in namespace ${namespace} is not declared in this repository`,
];

describe('an account a chart installed beside it probably creates', () => {
  test("<release>-<chart> (the common fullname helper), in the targetNamespace that wins over the file's own", async () => {
    assert.deepEqual(
      await accountFindings(repo('whereabouts-whereabouts-chart', { 'helmrelease.yaml': helmRelease('whereabouts', 'whereabouts-chart') })),
      INFO('whereabouts-whereabouts-chart', 'HelmRelease whereabouts (chart whereabouts-chart)'),
    );
  });

  test('the release name itself', async () => {
    assert.deepEqual(
      await accountFindings(repo('external-dns', { 'helmrelease.yaml': helmRelease('external-dns', 'external-dns') })),
      INFO('external-dns', 'HelmRelease external-dns (chart external-dns)'),
    );
  });

  test('serviceAccount.name at any depth of the values', async () => {
    const values = '    controller:\n      serviceAccount:\n        create: true\n        name: ingress-bot\n';
    assert.deepEqual(
      await accountFindings(repo('ingress-bot', { 'helmrelease.yaml': helmRelease('ingress', 'ingress-nginx', values) })),
      INFO('ingress-bot', 'HelmRelease ingress (chart ingress-nginx)'),
    );
  });

  test("app-template's serviceAccount: {<name>: {}}", async () => {
    const values = '    serviceAccount:\n      backup-runner: {}\n';
    assert.deepEqual(
      await accountFindings(repo('backup-runner', { 'helmrelease.yaml': helmRelease('backup', 'app-template', values) })),
      INFO('backup-runner', 'HelmRelease backup (chart app-template)'),
    );
  });

  test('negative controls: a release in another namespace, a release in another world, a release that names another account: the warning stays', async () => {
    const other = {
      'clusters/a/other.yaml': kustomization('other', './other', '  targetNamespace: monitoring\n'),
      'other/helmrelease.yaml': helmRelease('whereabouts', 'whereabouts-chart'),
    };
    assert.deepEqual(await accountFindings(repo('whereabouts-whereabouts-chart', {}, other)), WARNING('whereabouts-whereabouts-chart'), 'another namespace');
    const world = {
      'clusters/b/flux-system/gotk-sync.yaml': gotkSync('./clusters/b'),
      'clusters/b/charts.yaml': kustomization('charts', './charts', '  targetNamespace: network-system\n'),
      'charts/helmrelease.yaml': helmRelease('whereabouts', 'whereabouts-chart'),
    };
    assert.deepEqual(await accountFindings(repo('whereabouts-whereabouts-chart', {}, world)), WARNING('whereabouts-whereabouts-chart'), 'another world');
    const values = '    serviceAccount:\n      name: something-else\n';
    assert.deepEqual(await accountFindings(repo('ingress-bot', { 'helmrelease.yaml': helmRelease('ingress', 'ingress-nginx', values) })), WARNING('ingress-bot'), 'another account');
    assert.deepEqual(await accountFindings(repo('ingress-bot', {})), WARNING('ingress-bot'), 'nothing at all');
  });

  test('a chart whose values name no account may create any of its namespace (its templates are not in the repository): an info that says so', async () => {
    const findings = await auditFiles(repo('proxies', { 'helmrelease.yaml': helmRelease('tailscale-operator', 'tailscale-operator') }));
    const found = findings.findings.filter((f) => f.rule === 'pod-service-account-undeclared');
    assert.deepEqual(
      found.map((f) => `${brief(f)} ${f.severity}: ${f.message}`),
      [
        `pod-service-account-undeclared app/cronjob.yaml:12:31 info: ServiceAccount "proxies" in namespace network-system is not declared in this repository: its chart's templates are not in the repository, so it may be created by HelmRelease tailscale-operator (chart tailscale-operator). Whatever creates it can delete it, and then every pod fails before its first container starts. List it in serviceAccounts.external with that reason to record it.`,
      ],
    );
  });

  test('several charts in that namespace: the nearest to the pod is named, with how many there are', async () => {
    const far = { 'clusters/a/echo.yaml': kustomization('echo', './echo', '  targetNamespace: network-system\n'), 'echo/helmrelease.yaml': helmRelease('echo', 'echo') };
    const found = (await auditFiles(repo('proxies', { 'helmrelease.yaml': helmRelease('tailscale-operator', 'tailscale-operator') }, far))).findings.filter(
      (f) => f.rule === 'pod-service-account-undeclared',
    );
    assert.equal(found.length, 1);
    assert.match(found[0].message, /may be created by HelmRelease tailscale-operator \(chart tailscale-operator\) \(the nearest of 2 charts installed there\)\./);
  });

  test('negative controls: app-template creates only what its values say; a chart whose values name its accounts; a chart in another namespace: the warning stays', async () => {
    assert.deepEqual(await accountFindings(repo('proxies', { 'helmrelease.yaml': helmRelease('app', 'app-template') })), WARNING('proxies'), 'app-template');
    const values = '    serviceAccount:\n      name: operator\n';
    assert.deepEqual(await accountFindings(repo('proxies', { 'helmrelease.yaml': helmRelease('tailscale-operator', 'tailscale-operator', values) })), WARNING('proxies'), 'values name the account');
    const other = {
      'clusters/a/other.yaml': kustomization('other', './other', '  targetNamespace: monitoring\n'),
      'other/helmrelease.yaml': helmRelease('tailscale-operator', 'tailscale-operator'),
    };
    assert.deepEqual(await accountFindings(repo('proxies', {}, other)), WARNING('proxies'), 'another namespace');
  });

  test('the contract stays the explicit answer: listed in serviceAccounts.external, no finding', async () => {
    const contract = 'serviceAccounts:\n  external:\n    - { name: whereabouts-whereabouts-chart, reason: Made by the whereabouts chart. }\n';
    const files = { ...repo('whereabouts-whereabouts-chart', { 'helmrelease.yaml': helmRelease('whereabouts', 'whereabouts-chart') }), '.flux-job-guard.yaml': contract };
    assert.deepEqual(await accountFindings(files), []);
  });
});

describe('an account an operator probably creates (a custom resource of the same name and namespace)', () => {
  const cluster = (apiVersion: string, kind: string, name: string) => `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n  instances: 2\n`;

  test('a CloudNativePG Cluster beside the pod', async () => {
    assert.deepEqual(await accountFindings(repo('pg-main', { 'cluster.yaml': cluster('postgresql.cnpg.io/v1', 'Cluster', 'pg-main') })), INFO('pg-main', 'the operator of Cluster pg-main'));
  });

  test('negative controls: a core kind of that name, a Flux object of that name, a resource of another name', async () => {
    assert.deepEqual(await accountFindings(repo('pg-main', { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pg-main\n' })), WARNING('pg-main'));
    assert.deepEqual(await accountFindings(repo('pg-main', { 'repo.yaml': cluster('source.toolkit.fluxcd.io/v1', 'HelmRepository', 'pg-main') })), WARNING('pg-main'));
    assert.deepEqual(await accountFindings(repo('pg-main', { 'cluster.yaml': cluster('postgresql.cnpg.io/v1', 'Cluster', 'pg-other') })), WARNING('pg-main'));
  });

  test('without Flux: the namespaces as written decide', async () => {
    const files = {
      'k8s/cronjob.yaml': cronJob('pg-main', 'db'),
      'k8s/cluster.yaml': cluster('postgresql.cnpg.io/v1', 'Cluster', 'pg-main').replace('  name: pg-main\n', '  name: pg-main\n  namespace: db\n'),
    };
    const result = await auditFiles(files);
    assert.deepEqual(
      result.findings.filter((f) => f.rule === 'pod-service-account-undeclared').map((f) => `${brief(f)} ${f.severity}`),
      ['pod-service-account-undeclared k8s/cronjob.yaml:12:31 info'],
    );
    const elsewhere = { ...files, 'k8s/cluster.yaml': files['k8s/cluster.yaml'].replace('namespace: db', 'namespace: other') };
    assert.deepEqual(
      (await auditFiles(elsewhere)).findings.filter((f) => f.rule === 'pod-service-account-undeclared').map((f) => f.severity),
      ['warning'],
    );
  });
});
