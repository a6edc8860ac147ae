// flux-substitution-type as table tests: each case is a small repository whose
// Kustomization gives the values, the exact findings (rule, range, severity),
// the message, and the fix; each with a negative control (the same field with
// a value that keeps its type gives nothing). The re-read itself (kustomize's
// styles, go-yaml v2's types) is pinned case by case below.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { kustomizeStyle, reread, writtenByKustomize } from '../server/src/engine/flux/substitution/retype';
import { fieldType } from '../server/src/engine/k8s/field-types';
import { auditFiles } from './helpers/memory-fs';
import { applyRepositoryEdits } from './helpers/table';

const RULE = 'flux-substitution-type';

const SYNC =
  'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n---\n' +
  'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./clusters/home\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n';

/** A cluster whose Kustomization `apps` substitutes `vars` into `apps/app.yaml`. */
function repo(vars: Record<string, string>, app: string): Record<string, string> {
  const substitute = Object.entries(vars)
    .map(([name, value]) => `      ${name}: ${JSON.stringify(value)}\n`)
    .join('');
  return {
    'clusters/home/flux-system/gotk-sync.yaml': SYNC,
    'clusters/home/apps.yaml': `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n${substitute}`,
    'apps/app.yaml': app,
  };
}

const CRONJOB = (schedule: string) =>
  `apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: backup\n  namespace: default\nspec:\n  schedule: ${schedule}\n  jobTemplate:\n    spec:\n      ttlSecondsAfterFinished: 86400 # converges: an idempotent copy\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n            - name: backup\n              image: busybox\n`;
const CONFIGMAP = (line: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  ${line}\n`;
const HELMRELEASE = (values: string) =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: default\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: app\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n  values:\n    ${values}\n`;
const DEPLOYMENT = (replicas: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  namespace: default\nspec:\n  replicas: ${replicas}\n  template:\n    spec:\n      containers:\n        - name: app\n          image: busybox\n`;

function exact(f: Finding): string {
  const { start, end } = f.range;
  return `${f.file} [${start.line}, ${start.character}, ${end.line}, ${end.character}] ${f.severity}`;
}

async function typeFindings(files: Record<string, string>): Promise<Finding[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule === RULE);
}

describe('flux-substitution-type: the findings', () => {
  test('a cron schedule in a plain ${CRON}: an alias, the reconcile fails; the fix wraps it in ${quote} and defines quote', async () => {
    const files = repo({ CRON: '*/5 * * * *' }, CRONJOB('${CRON}'));
    const found = await typeFindings(files);
    assert.deepEqual(found.map(exact), ['apps/app.yaml [6, 12, 6, 19] error']);
    assert.equal(
      found[0].message,
      'With CRON=*/5 * * * * (Kustomization "apps"), Flux reads `schedule: */5 * * * *`: that is no YAML (`*` starts an alias), so Flux fails the reconcile. Wrap it as ${quote}${CRON}${quote}.',
    );
    const fix = found[0].fixes![0];
    assert.equal(fix.preferred, true);
    const fixed = applyRepositoryEdits(files, fix.edits);
    assert.match(fixed['apps/app.yaml'], /^ {2}schedule: \$\{quote\}\$\{CRON\}\$\{quote\}$/m);
    assert.match(fixed['clusters/home/apps.yaml'], /^ {6}quote: '"'$/m);
    assert.deepEqual(await typeFindings(fixed), [], 'after the fix Flux reads a string');
  });

  test('quotes in the file do not help: "${CRON}" is written plain by kustomize, and still fails', async () => {
    const found = await typeFindings(repo({ CRON: '*/5 * * * *' }, CRONJOB('"${CRON}"')));
    assert.deepEqual(found.map(exact), ['apps/app.yaml [6, 13, 6, 20] error']);
    assert.match(found[0].message, /The quotes in the file do not help: kustomize writes the value again without them before Flux substitutes\. Wrap it as/);
    const fixed = applyRepositoryEdits(repo({ CRON: '*/5 * * * *' }, CRONJOB('"${CRON}"')), found[0].fixes![0].edits);
    assert.match(fixed['apps/app.yaml'], /schedule: "\$\{quote\}\$\{CRON\}\$\{quote\}"/);
  });

  test('negative control: a schedule that reads as a string gives nothing', async () => {
    assert.deepEqual(await typeFindings(repo({ CRON: '@daily' }, CRONJOB('"0 ${HOUR} * * *"'))), []);
    assert.deepEqual(await typeFindings(repo({ HOUR: '3' }, CRONJOB('"0 ${HOUR} * * *"'))), []);
  });

  test('a boolean in ConfigMap data: the apply fails; a YAML 1.1 word too; a plain string does not', async () => {
    const found = await typeFindings(repo({ ENABLED: 'true' }, CONFIGMAP('FEATURE: ${ENABLED}')));
    assert.deepEqual(found.map(exact), ['apps/app.yaml [6, 11, 6, 21] error']);
    assert.match(found[0].message, /Flux reads `FEATURE: true`: the boolean true where the field takes a string, so the apply fails\./);
    assert.equal((await typeFindings(repo({ ENABLED: 'yes' }, CONFIGMAP('FEATURE: ${ENABLED}'))))[0]?.severity, 'error');
    assert.equal((await typeFindings(repo({ PORT: '8080' }, CONFIGMAP('PORT: "${PORT}"'))))[0]?.severity, 'error', 'a number in data, quoted in the file');
    assert.deepEqual(await typeFindings(repo({ ENABLED: 'enabled' }, CONFIGMAP('FEATURE: ${ENABLED}'))), []);
    assert.deepEqual(await typeFindings(repo({ PORT: '8080' }, CONFIGMAP('URL: http://host:${PORT}/'))), [], 'a number inside a longer text stays text');
  });

  test('an integer field: a number is right, a word is not; a quoted ${REPLICAS} is right too (kustomize drops the quotes)', async () => {
    assert.deepEqual(await typeFindings(repo({ REPLICAS: '3' }, DEPLOYMENT('${REPLICAS}'))), []);
    assert.deepEqual(await typeFindings(repo({ REPLICAS: '3' }, DEPLOYMENT('"${REPLICAS}"'))), []);
    const found = await typeFindings(repo({ REPLICAS: 'three' }, DEPLOYMENT('${REPLICAS}')));
    assert.deepEqual(found.map(exact), ['apps/app.yaml [6, 12, 6, 23] error']);
    assert.match(found[0].message, /a string "three" where the field takes an integer/);
  });

  test('Helm values (any type): a number is fine, a number that does not read as written is a warning, a YAML 1.1 word a warning', async () => {
    assert.deepEqual(await typeFindings(repo({ REPLICAS: '3' }, HELMRELEASE('replicaCount: ${REPLICAS}'))), []);
    assert.deepEqual(await typeFindings(repo({ ON: 'true' }, HELMRELEASE('enabled: ${ON}'))), []);
    const lossy = await typeFindings(repo({ VERSION: '1.10' }, HELMRELEASE('tag: ${VERSION}')));
    assert.deepEqual(lossy.map(exact), ['apps/app.yaml [14, 9, 14, 19] warning']);
    assert.match(lossy[0].message, /Flux reads `tag: 1.10`: the number 1.1, not the text 1.10\./);
    const norway = await typeFindings(repo({ COUNTRY: 'no' }, HELMRELEASE('country: ${COUNTRY}')));
    assert.match(norway[0].message, /the boolean false \(YAML 1.1, as Flux parses it\), not the text no/);
    assert.deepEqual(await typeFindings(repo({ JSON: '[a, b]' }, HELMRELEASE('hosts: ${JSON}'))), [], 'a flow list in a field of any type may be meant');
  });

  test('a HelmRelease chart version is a string: 1.10 fails the apply', async () => {
    const files = repo({ VERSION: '1.10' }, HELMRELEASE('a: b').replace('      chart: app\n', '      chart: app\n      version: ${VERSION}\n'));
    const found = await typeFindings(files);
    assert.equal(found.length, 1);
    assert.equal(found[0].severity, 'error');
    assert.match(found[0].message, /the number 1.1 where the field takes a string/);
  });

  test('a value with a double quote: the fix quotes with a single quote', async () => {
    const files = repo({ GREETING: 'say "hi": now' }, CONFIGMAP('GREETING: ${GREETING}'));
    const found = await typeFindings(files);
    assert.equal(found.length, 1);
    assert.match(found[0].message, /`: ` starts a mapping/);
    const fixed = applyRepositoryEdits(files, found[0].fixes![0].edits);
    assert.match(fixed['clusters/home/apps.yaml'], /^ {6}quote: "'"$/m);
    assert.deepEqual(await typeFindings(fixed), []);
  });

  test('values the repository cannot show are not guessed; an undefined name is the undefined rule’s', async () => {
    const files = repo({ OTHER: 'x' }, CONFIGMAP('FEATURE: ${ENABLED}'));
    assert.deepEqual(await typeFindings(files), []);
    assert.deepEqual(await typeFindings(repo({ OTHER: 'x' }, CONFIGMAP('FEATURE: ${ENABLED:=true}'))).then((f) => f.map((x) => x.severity)), ['error'], 'a default is a value');
  });

  test('the contract can turn it off', async () => {
    const contract = (severity: string) => ({ ...repo({ CRON: '*/5 * * * *' }, CRONJOB('${CRON}')), '.flux-job-guard.yaml': `rules:\n  flux-substitution-type: ${severity}\n` });
    assert.deepEqual(await typeFindings(contract('off')), []);
    assert.deepEqual(
      (await typeFindings(contract('warning'))).map((f) => f.severity),
      ['warning'],
    );
  });
});

describe('flux-substitution-type: what Flux reads', () => {
  test('kustomize writes a value in the style it needs, not the one the file used', () => {
    assert.equal(kustomizeStyle('${X}'), 'plain');
    assert.equal(kustomizeStyle("'${X}'"), 'single');
    assert.equal(writtenByKustomize("'${X}'", 'single'), "'''${X}'''");
    assert.equal(kustomizeStyle('${A}: ${B}'), 'single');
    assert.equal(kustomizeStyle(' ${X}'), 'single');
    assert.equal(kustomizeStyle('a\tb'), 'double');
    assert.equal(kustomizeStyle('line ${X}\n'), 'literal');
  });

  test('go-yaml v2 types (YAML 1.1)', () => {
    const type = (text: string) => {
      const read = reread(text, false);
      return read.kind === 'scalar' ? `${read.type} ${read.json}` : read.kind;
    };
    assert.equal(type('true'), 'boolean true');
    assert.equal(type('on'), 'boolean true');
    assert.equal(type('N'), 'boolean false');
    assert.equal(type('3'), 'integer 3');
    assert.equal(type('0755'), 'integer 493');
    assert.equal(type('0x1F'), 'integer 31');
    assert.equal(type('1_000'), 'integer 1000');
    assert.equal(type('08'), 'float 8');
    assert.equal(type('1.10'), 'float 1.1');
    assert.equal(type('1e3'), 'string "1e3"', 'v2 wants a signed exponent');
    assert.equal(type('1e+3'), 'float 1000');
    assert.equal(type('.5'), 'float 0.5');
    assert.equal(type('2024-01-31'), 'string "2024-01-31"', 'a timestamp decodes to the string written');
    assert.equal(type('~'), 'null null');
    assert.equal(type('12345678901234567890'), 'integer 12345678901234567890', 'ParseUint takes it');
    assert.equal(type('hello'), 'string "hello"');
    assert.equal(type("'it''s'"), 'string "it\'s"');
    assert.equal(type("'it's'"), 'invalid');
    assert.equal(type('*/5 * * * *'), 'invalid');
    assert.equal(type('{a: 1}'), 'collection');
    assert.equal(type('a #b'), 'cut');
    assert.equal(reread('a: b', true).kind, 'collection', 'in a list item `a: b` is a mapping');
  });

  test('field types: by kind and API group, with pod templates mounted', () => {
    assert.equal(fieldType('v1', 'ConfigMap', ['data', 'X']), 'string');
    assert.equal(fieldType('apps/v1', 'Deployment', ['spec', 'template', 'spec', 'containers', 0, 'env', 2, 'value']), 'string');
    assert.equal(fieldType('batch/v1', 'CronJob', ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'ports', 0, 'containerPort']), 'integer');
    assert.equal(fieldType('apps/v1', 'Deployment', ['spec', 'replicas']), 'integer');
    assert.equal(fieldType('example.com/v1', 'Deployment', ['spec', 'replicas']), null, 'another group’s Deployment');
    assert.equal(fieldType('example.com/v1', 'Widget', ['metadata', 'labels', 'app']), 'string', 'metadata of any kind');
    assert.equal(fieldType('helm.toolkit.fluxcd.io/v2', 'HelmRelease', ['spec', 'values', 'replicas']), null);
    assert.equal(fieldType('v1', 'Service', ['spec', 'ports', 0, 'targetPort']), null, 'IntOrString');
  });
});
