// yaml-syntax only where a YAML error matters (scope.ts syntaxScope): an error on what Flux reads
// (a file a live Kustomization builds: a resource, a kustomize patch, a kustomization file), on a
// file the contract's own jobs.include names, and everywhere when the model knows no root; a
// warning naming the consumer on a file a generator hands on; nothing on a template nobody applies.
// Each case has its negative control: the same broken text where the other answer is right.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { appTemplateRelease, gotkSync, kustomization } from './helpers/flux-fixtures';
import { audit } from '../server/src/engine/pipeline/audit';
import type { ReadResult } from '../server/src/engine/base/repo-fs';
import { auditFiles, brief, memoryFs } from './helpers/memory-fs';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

/** Broken for go-yaml and for YAML 1.2 alike: a flow sequence that never closes (a Go template's `{{ range }}` often leaves one). */
const BROKEN = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  list: [a, b\n';

/** Broken for go-yaml only: `\/` is no escape to it (YAML 1.2 and JSON have it). */
/** A postBuild that substitutes (so an undefined variable is a finding). */
const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: home\n';

const GO_YAML_BROKEN = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  pattern: "a\\/b"\n';

/** A cluster bootstrapped at clusters/home whose one Kustomization builds ./apps. */
function cluster(files: Record<string, string>, contract = ''): Record<string, string> {
  return {
    ...(contract ? { '.flux-job-guard.yaml': contract } : {}),
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/apps.yaml': kustomization('apps', './apps'),
    ...files,
  };
}

async function syntax(files: Record<string, string>): Promise<string[]> {
  const { findings } = await auditFiles(files);
  return findings.filter((f) => f.rule === 'yaml-syntax').map((f) => `${f.severity} ${f.file}:${f.range.start.line + 1} ${f.message}`);
}

describe('yaml-syntax where it matters', () => {
  test('a file Flux applies: an error', async () => {
    assert.deepEqual(await syntax(cluster({ 'apps/broken.yaml': BROKEN })), [
      'error apps/broken.yaml:7 Not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  test('the same file where nothing applies it (a template folder): nothing', async () => {
    assert.deepEqual(await syntax(cluster({ 'templates/broken.yaml': BROKEN, 'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n' })), []);
  });

  test('a kustomize patch file and a kustomization file of a live build: errors (kustomize fails on them)', async () => {
    const files = cluster({
      'apps/kustomization.yaml': 'resources:\n  - ok.yaml\npatches:\n  - path: patch.yaml\n',
      'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n',
      'apps/patch.yaml': BROKEN,
      'apps/unlisted.yaml': BROKEN,
    });
    // the file the kustomization does not list is not built: nothing (the negative control)
    assert.deepEqual(await syntax(files), ['error apps/patch.yaml:7 Not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]']);
    const brokenKustomization = { ...files, 'apps/kustomization.yaml': 'resources:\n  - ok.yaml\npatches: [\n' };
    assert.ok((await syntax(brokenKustomization)).some((line) => line.startsWith('error apps/kustomization.yaml:')));
  });

  test('a resource kustomize cannot decode fails the build: one error, in the file, naming the Kustomization that applies nothing', async () => {
    // a key written twice at the top level: go-yaml refuses it, so kustomize's decoder does
    const twice = 'apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata:\n  name: broken\n';
    const files = cluster({
      'apps/kustomization.yaml': 'resources:\n  - ok.yaml\n  - broken.yaml\n',
      'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n',
      'apps/broken.yaml': twice,
    });
    const { findings } = await auditFiles(files);
    const failing = findings.filter((f) => f.rule === 'yaml-syntax' || f.rule === 'kustomize-reference').map((f) => `${f.rule} ${f.file}:${f.range.start.line + 1} ${f.message}`);
    assert.deepEqual(failing, ['yaml-syntax apps/broken.yaml:3 Not valid YAML: Map keys must be unique. Kustomization "apps" fails and applies nothing']);
    // negative control: a build that fails for another reason (a missing resource) keeps its kustomize-reference error
    const missing = { ...files, 'apps/kustomization.yaml': 'resources:\n  - ok.yaml\n  - gone.yaml\n' };
    const other = (await auditFiles(missing)).findings.filter((f) => f.rule === 'kustomize-reference');
    assert.equal(other.length, 1);
    assert.match(other[0].message, /gone\.yaml.*Kustomization "apps" fails and applies nothing/);
  });

  test('a generator input: a warning that names the generator and the ConfigMap it makes', async () => {
    const files = cluster({
      'apps/kustomization.yaml': 'resources:\n  - ok.yaml\nconfigMapGenerator:\n  - name: blueprints\n    files:\n      - blueprints/flow.yaml\n',
      'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n',
      'apps/blueprints/flow.yaml': 'entries:\n  - id: flow\n    attrs: {name: login\n',
    });
    const [finding, ...rest] = await syntax(files);
    assert.deepEqual(rest, []);
    assert.match(finding, /^warning apps\/blueprints\/flow\.yaml:4 Not valid YAML: .*configMapGenerator "blueprints" of apps\/kustomization\.yaml \(into ConfigMap "blueprints"\) copies it as it is/);
    // negative control: the same file, no longer read by the generator, is nothing
    const unread = { ...files, 'apps/kustomization.yaml': 'resources:\n  - ok.yaml\n' };
    assert.deepEqual(await syntax(unread), []);
  });

  test('a generator input go-yaml alone refuses (an alias of no anchor, as in `!KeyOf *missing`): the warning quotes go-yaml', async () => {
    const files = cluster({
      'apps/kustomization.yaml': 'configMapGenerator:\n  - name: blueprints\n    files:\n      - flow.yaml\n',
      'apps/flow.yaml': 'entries:\n  - id: flow\n    attrs:\n      stage: *missing\n',
    });
    const [finding] = await syntax(files);
    assert.match(
      finding,
      /^warning apps\/flow\.yaml:4 Not valid YAML: no `&missing` comes before `\*missing` in this document: kustomize's YAML decoder \(go-yaml\) stops with "unknown anchor 'missing' referenced" here\. Flux does not parse this file, but configMapGenerator "blueprints"/,
    );
  });

  test("a file the contract's jobs.include names, though nothing applies it: an error", async () => {
    const files = cluster({ 'templates/broken.yaml': BROKEN }, 'jobs:\n  include: ["templates/**"]\n');
    assert.deepEqual(await syntax(files), ['error templates/broken.yaml:7 Not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]']);
    // negative control: an include that does not name it
    assert.deepEqual(await syntax(cluster({ 'templates/broken.yaml': BROKEN }, 'jobs:\n  include: ["apps/**"]\n')), []);
  });

  test('a repository without Flux (no root to tell what is applied): every audited file, as before', async () => {
    assert.deepEqual(await syntax({ 'templates/broken.yaml': BROKEN }), [
      'error templates/broken.yaml:7 Not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  test('a repository without Flux: a Helm chart file Helm never parses (values.schema.yaml) is nothing; its values files and templates stay checked', async () => {
    const chart = { 'charts/units/Chart.yaml': 'apiVersion: v2\nname: units\nversion: 1.0.0\n', 'charts/units/values.schema.yaml': GO_YAML_BROKEN };
    assert.deepEqual(await syntax(chart), [], 'sylva-core: a schema a tool turns into values.schema.json');
    // negative controls: the same text as a values file Helm reads, and outside any chart
    const asValues = await syntax({ ...chart, 'charts/units/values.schema.yaml': 'x: 1\n', 'charts/units/management.values.yaml': GO_YAML_BROKEN });
    assert.deepEqual(
      asValues.map((line) => line.split(' ').slice(0, 2).join(' ')),
      ['error charts/units/management.values.yaml:6'],
    );
    const outside = await syntax({ 'charts/units/values.schema.yaml': GO_YAML_BROKEN });
    assert.deepEqual(
      outside.map((line) => line.split(' ').slice(0, 2).join(' ')),
      ['error charts/units/values.schema.yaml:6'],
    );
  });

  test('a binary file named .yaml: reported where a YAML error is an error, not where nothing applies it', async () => {
    const binaryAt = async (path: string) => {
      const files = cluster({ [path]: '', 'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n' });
      const fs = memoryFs(files);
      const read = (file: string): Promise<ReadResult> =>
        file === path ? Promise.resolve({ kind: 'skipped', reason: 'the file is binary (it holds NUL bytes), not YAML text', notYaml: true }) : fs.read(file);
      const { findings } = await audit({ ...fs, read });
      return findings.filter((f) => f.rule === 'yaml-syntax').map((f) => `${f.severity} ${f.file}`);
    };
    assert.deepEqual(await binaryAt('apps/data.yaml'), ['error apps/data.yaml']);
    assert.deepEqual(await binaryAt('templates/data.yaml'), []);
  });

  test('what only go-yaml refuses (`\\/` in a double-quoted scalar), in a file Flux applies: an error that says Flux fails to build it; in a template: nothing', async () => {
    assert.deepEqual(await syntax(cluster({ 'apps/settings.yaml': GO_YAML_BROKEN })), [
      'error apps/settings.yaml:6 Not valid YAML: `\\/` is no escape to go-yaml (write `/` alone): kustomize\'s YAML decoder (go-yaml) stops with "found unknown escape character" here, so Flux fails to build this file',
    ]);
    assert.deepEqual(await syntax(cluster({ 'templates/settings.yaml': GO_YAML_BROKEN, 'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n' })), []);
  });

  test('the contract file: its YAML, read as go-yaml reads it, is checked wherever it is (contract-invalid, an error)', async () => {
    const { findings } = await auditFiles(cluster({ 'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n' }, 'jobs:\n  exclude: ["a\\/b"]\n'));
    const contract = findings.filter((f) => f.file === '.flux-job-guard.yaml' && f.rule !== 'contract-no-jobs');
    assert.deepEqual(
      contract.map((f) => `${f.rule} ${f.severity} ${f.range.start.line + 1}`),
      ['contract-invalid error 2'],
    );
    assert.match(contract[0].message, /found unknown escape character/);
    // negative control: the same contract with the escape gone has no finding
    const fixed = await auditFiles(cluster({ 'apps/ok.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n' }, 'jobs:\n  exclude: ["a/b"]\n'));
    assert.deepEqual(fixed.findings.filter((f) => f.file === '.flux-job-guard.yaml' && f.rule !== 'contract-no-jobs').map(brief), []);
  });
});

/** A HelmRelease whose app-template controllers key is an alias (`*app:`, valid to go-yaml), with a variable nothing defines. */
const HELM_RELEASE = appTemplateRelease('*app');

describe('yaml-syntax where it matters, in the editor (default settings: plain YAML errors are left to YAML extensions)', () => {
  after(removeTempRepos);

  test('a `*app:` HelmRelease shows its other findings and no yaml-syntax; a broken applied file shows the error; the same file nothing applies shows nothing', async () => {
    const repo = tempRepo(
      'fjg-yaml-scope-',
      cluster({
        'clusters/home/apps.yaml': kustomization('apps', './apps', SUBSTITUTE),
        'apps/blog/helmrelease.yaml': HELM_RELEASE,
        'apps/settings.yaml': GO_YAML_BROKEN,
        'templates/settings.yaml': GO_YAML_BROKEN,
      }),
    );
    const uri = (path: string) => fileUri(join(repo, path));
    const client = new TestLspClient();
    try {
      await client.initialize(repo);
      client.open(uri('templates/settings.yaml'), GO_YAML_BROKEN);
      client.open(uri('apps/blog/helmrelease.yaml'), HELM_RELEASE);
      client.open(uri('apps/settings.yaml'), GO_YAML_BROKEN);
      const release = await client.waitForDiagnostics(uri('apps/blog/helmrelease.yaml'), (d) => d.length > 0, 30_000);
      assert.deepEqual(
        release.map((d) => `${d.code} ${d.range.start.line}:${d.range.start.character}`),
        ['flux-substitution-undefined 11:20'],
      );
      const [applied, ...more] = await client.waitForDiagnostics(uri('apps/settings.yaml'), (d) => d.length > 0, 30_000);
      assert.deepEqual(more, []);
      assert.equal(applied.code, 'yaml-syntax');
      assert.equal(applied.severity, 1); // an error
      assert.deepEqual(
        [applied.range.start, applied.range.end],
        [
          { line: 5, character: 13 },
          { line: 5, character: 15 },
        ],
      );
      assert.match(messageText(applied), /found unknown escape character.*so Flux fails to build this file/);
      // negative control: the template, opened first, was answered with nothing
      assert.deepEqual(await client.waitForDiagnostics(uri('templates/settings.yaml'), () => true, 30_000), []);
      // and the applied file, once fixed, has nothing left
      client.change(uri('apps/settings.yaml'), GO_YAML_BROKEN.replace('\\/', '/'));
      assert.deepEqual(await client.waitForDiagnostics(uri('apps/settings.yaml'), (d) => d.length === 0, 30_000), []);
    } finally {
      await client.shutdown();
    }
  });
});
