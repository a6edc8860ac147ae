// The Flux repository graph and the substitution rules, on small
// repositories built the way real ones are. Every rule has a negative
// control: the corrected text gives no finding, the broken one does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { job as fluxJob, kustomization } from './helpers/flux-fixtures';
import { auditFiles, brief } from './helpers/memory-fs';

/** The contract of these tests; Flux starts from flux/ (as a bootstrap's cluster folder would). `flux` adds lines under `flux:`. */
function contractWith(flux = ''): string {
  return `jobs:\n  include: ["**/*.yaml"]\nflux:\n  roots: [flux]\n${flux}rules:\n  ttl-convergence-note: "off"\n`;
}

const CONTRACT = contractWith();

const POST_BUILD = `  postBuild:
    substitute:
      CLUSTER: home
`;

/** A ConfigMap holding `script` as run.sh (line 7 of the file, from column 5): a mounted script, which the kubelet never expands. */
function scriptMap(name: string, script: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  run.sh: |\n    ${script}\n`;
}

/** A Job with a TTL and a note, running `script` (one line, or lines indented by the caller). */
function job(name: string, script: string): string {
  return fluxJob(name, 'the script is idempotent', `          command:\n            - /bin/sh\n            - -c\n            - |\n              ${script}\n`);
}

async function fluxFindings(files: Record<string, string>): Promise<string[]> {
  const result = await auditFiles({ '.flux-job-guard.yaml': CONTRACT, ...files });
  return result.findings.filter((f) => f.rule.startsWith('flux-') || f.rule === 'kustomize-reference').map(brief);
}

describe('which files a Flux Kustomization builds', () => {
  test('a folder without kustomization.yaml: every YAML file below it, recursively', async () => {
    assert.deepEqual(await fluxFindings({ 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/deep/er/job.yaml': job('a', 'echo ${UNSET}') }), [
      'flux-substitution-undefined apps/deep/er/job.yaml:18:20',
    ]);
  });

  test('a kustomization.yaml decides: files it does not list are not built', async () => {
    const files = {
      'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD),
      'apps/kustomization.yaml': 'resources:\n  - listed.yaml\ncomponents:\n  - ../components/extra\n',
      'apps/listed.yaml': job('listed', 'echo ${UNSET}'),
      'apps/unlisted.yaml': job('unlisted', 'echo ${UNSET}'),
      'components/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - job.yaml\n',
      'components/extra/job.yaml': job('component', 'echo ${ALSO_UNSET}'),
    };
    assert.deepEqual(await fluxFindings(files), ['flux-substitution-undefined apps/listed.yaml:18:20', 'flux-substitution-undefined components/extra/job.yaml:18:20']);
  });

  test('a sub-folder with its own kustomization.yaml is one unit; patch files are substituted but are not Jobs', async () => {
    const files = {
      'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD),
      'apps/top.yaml': job('top', 'echo ${CLUSTER}'),
      'apps/sub/kustomization.yaml': 'resources:\n  - job.yaml\npatches:\n  - path: patch.yaml\n',
      'apps/sub/job.yaml': job('sub', 'echo ok'),
      'apps/sub/ignored.yaml': job('ignored', 'echo ${UNSET}'),
      'apps/sub/patch.yaml': 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: sub\nspec:\n  template:\n    metadata:\n      labels:\n        cluster: ${CLUSTR}\n',
    };
    assert.deepEqual(await fluxFindings(files), ['flux-substitution-undefined apps/sub/patch.yaml:9:18']);
    const result = await auditFiles({ '.flux-job-guard.yaml': CONTRACT, ...files });
    assert.equal(result.summary.jobs, 3, 'the patch is not a Job resource');
  });

  test('spec.path that does not exist or leaves the repository, and a cycle of kustomizations: findings, no hang', async () => {
    const findings = await fluxFindings({
      'flux/a.yaml': kustomization('a', './nowhere'),
      'flux/b.yaml': kustomization('b', '../outside'),
      'flux/c.yaml': kustomization('c', './loop/one'),
      'loop/one/kustomization.yaml': 'resources:\n  - ../two\n',
      'loop/two/kustomization.yaml': 'resources:\n  - ../one\n',
      'jobs/job.yaml': job('j', 'echo hi'),
    });
    assert.deepEqual(findings, ['kustomize-reference flux/a.yaml:8:9', 'kustomize-reference flux/b.yaml:8:9', 'kustomize-reference loop/two/kustomization.yaml:2:5']);
  });
});

describe('where variables come from', () => {
  test('inline substitute and an in-repository substituteFrom ConfigMap define names; a Secret stringData too', async () => {
    const files = {
      'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD + '    substituteFrom:\n      - kind: ConfigMap\n        name: settings\n      - kind: Secret\n        name: secrets\n'),
      'flux/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: flux-system\ndata:\n  DOMAIN: example.org\n',
      'flux/secrets.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: secrets\nstringData:\n  TOKEN: s3cr3t\n',
      'apps/job.yaml': job('j', 'echo ${CLUSTER} ${DOMAIN} ${TOKEN} ${MISSING}'),
    };
    assert.deepEqual(await fluxFindings(files), ['flux-substitution-undefined apps/job.yaml:18:50']);
  });

  test('a substituteFrom object outside the repository: one info on the source naming the unknown names, none per use; flux.variables declares them', async () => {
    const files = (contract: string) => ({
      '.flux-job-guard.yaml': contract,
      'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD + '    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n'),
      'apps/job.yaml': job('j', 'echo ${MAYBE} ${MAYBE} ${CLUSTER} ${ALSO:=x}'),
    });
    const result = await auditFiles(files(CONTRACT));
    assert.deepEqual(result.findings.filter((f) => f.rule.startsWith('flux-')).map(brief), ['flux-variables-unknown flux/apps.yaml:15:9']);
    const info = result.findings.find((f) => f.rule === 'flux-variables-unknown')!;
    assert.equal(info.severity, 'info');
    assert.match(info.message, /Secret cluster-secrets .*: no Secret cluster-secrets is in the repository\. 1 Kustomization takes it, and its files use 1 name .*\(MAYBE\)/);
    assert.deepEqual(info.fixes?.[0].edits[0].newText.split('\n').slice(-4), [
      '  variables:',
      '    - from: { kind: Secret, name: cluster-secrets, namespace: flux-system }',
      '      names: [MAYBE]',
      '      reason: TODO say where this comes from',
    ]);
    // Declared in the contract: no info; the set of names is known again, so the shell's default is Flux's (as anywhere else).
    const declared = await auditFiles(files(contractWith('  variables:\n    - { name: MAYBE, reason: from the password manager }\n')));
    assert.deepEqual(declared.findings.filter((f) => f.rule.startsWith('flux-')).map(brief), ['flux-substitution-default apps/job.yaml:18:49']);
    const other = await auditFiles(files(contractWith('  variables:\n    - { name: OTHER, reason: from the password manager }\n')));
    assert.deepEqual(other.findings.filter((f) => f.rule.startsWith('flux-') || f.rule === 'contract-stale').map(brief), [
      'contract-stale .flux-job-guard.yaml:6:15',
      'flux-substitution-undefined apps/job.yaml:18:20',
      'flux-substitution-undefined apps/job.yaml:18:29',
      'flux-substitution-default apps/job.yaml:18:49',
    ]);
  });

  test('a parent Kustomization patches postBuild into its children, by name and by label selector', async () => {
    const parentPatches = `  patches:
    - target: {kind: Kustomization, labelSelector: "substitution.flux.home/enabled=true"}
      patch: |
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: not-used
        spec:
          postBuild:
            substitute:
              CLUSTER: home
`;
    const child = (name: string, path: string, labelled: boolean) =>
      kustomization(name, path).replace('  namespace: flux-system\n', `  namespace: flux-system\n${labelled ? '  labels:\n    substitution.flux.home/enabled: "true"\n' : ''}`);
    const files = {
      'flux/cluster.yaml': kustomization('cluster-apps', './children', parentPatches),
      'children/a.yaml': child('a', './app-a', true),
      'children/b.yaml': child('b', './app-b', false),
      'app-a/job.yaml': job('a', 'echo ${CLUSTER} ${NOPE}'),
      'app-b/script.yaml': scriptMap('b', 'echo ${CLUSTER} $${HOME}'),
    };
    // a: substituted (CLUSTER defined, NOPE not); b: no postBuild, so the $$ of its mounted script is a needless escape.
    assert.deepEqual(await fluxFindings(files), ['flux-substitution-undefined app-a/job.yaml:18:31', 'flux-substitution-needless-escape app-b/script.yaml:7:21']);
  });

  test("a substituteFrom key Flux rejects ('app.conf') is a build failure on that key", async () => {
    const findings = await fluxFindings({
      'flux/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: files\n'),
      'flux/files.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: files\ndata:\n  app.conf: x\n',
      'apps/job.yaml': job('j', 'echo ok'),
    });
    assert.deepEqual(findings, ['flux-substitution-syntax flux/files.yaml:6:3']);
  });
});

describe('substitution rules', () => {
  const substituted = (script: string, contract = CONTRACT) =>
    auditFiles({ '.flux-job-guard.yaml': contract, 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/job.yaml': job('j', script) }).then((r) =>
      r.findings.filter((f) => f.rule.startsWith('flux-')).map((f) => `${f.rule}@${f.range.start.character}-${f.range.end.character}`),
    );
  const col = 14; // where the script starts on its line

  const cases: Array<[string, string[]]> = [
    ['echo ${CLUSTER}', []],
    ['echo $${HOME}', []],
    ['echo ${HOME}', [`flux-substitution-undefined@${col + 5}-${col + 12}`]],
    // A Job's command: Flux, then the kubelet, each turn $$ into $.
    ['echo $$$$$$$$', []],
    ['echo $$$$', [`flux-substitution-pid@${col + 7}-${col + 9}`]],
    ['kill $$', [`flux-substitution-pid@${col + 5}-${col + 7}`]],
    ['echo $$? $$1 $$@', []],
    ['for x in ${arr[@]}; do :; done', [`flux-substitution-syntax@${col + 9}-${col + 15}`]],
    ['echo ${VAR-def}', [`flux-substitution-syntax@${col + 5}-${col + 11}`]],
    ['echo ${CLUSTER:-x} ${OTHER:-y}', [`flux-substitution-default@${col + 19}-${col + 30}`]],
    ['echo ${CLUSTER:+alt}', [`flux-substitution-default@${col + 5}-${col + 20}`]],
    ['echo $HOME $1 $(date) $((1+2))', []],
    ['echo ${UNSET:-${CLUSTER}}', [`flux-substitution-default@${col + 5}-${col + 25}`]],
    ['echo ${CLUSTER:-${NESTED}}', [`flux-substitution-undefined@${col + 16}-${col + 25}`]],
  ];
  for (const [script, expected] of cases) {
    test(`${JSON.stringify(script)} → ${expected.join(', ') || 'nothing'}`, async () => {
      assert.deepEqual(await substituted(script), expected);
    });
  }

  test('YAML comments are not substituted, keys are, and so are quoted scalars (exact ranges)', async () => {
    const files = {
      'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD),
      'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c # ${IN_COMMENT}\ndata:\n  ${KEY}: "x ${DQ}"\n  other: \'${SQ}\'\n  plain: a ${PLAIN}\n',
    };
    assert.deepEqual(await fluxFindings(files), [
      'flux-substitution-undefined apps/cm.yaml:6:3',
      'flux-substitution-undefined apps/cm.yaml:6:14',
      'flux-substitution-undefined apps/cm.yaml:7:11',
      'flux-substitution-undefined apps/cm.yaml:8:12',
    ]);
  });

  test('the opt-out label or annotation (exactly "disabled") turns substitution off for that resource only', async () => {
    const optOut = (how: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-${how}\n  ${how}:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  a: \${X}\n`;
    // Two names: one build may hold each resource once (kustomize fails on a duplicate id).
    assert.deepEqual(await fluxFindings({ 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/a.yaml': optOut('annotations'), 'apps/b.yaml': optOut('labels') }), []);
    const control = optOut('annotations').replace('disabled', 'Disabled');
    assert.deepEqual(await fluxFindings({ 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/a.yaml': control }), ['flux-substitution-undefined apps/a.yaml:8:6']);
  });

  test('no variable resolves: Flux substitutes nothing, unless substituteStrategy is Always', async () => {
    const empty = '  postBuild:\n    substitute: {}\n';
    assert.deepEqual(await fluxFindings({ 'flux/apps.yaml': kustomization('apps', './apps', empty), 'apps/job.yaml': job('j', 'echo ${X}') }), []);
    const always = '  postBuild:\n    substituteStrategy: Always\n    substitute: {}\n';
    assert.deepEqual(await fluxFindings({ 'flux/apps.yaml': kustomization('apps', './apps', always), 'apps/job.yaml': job('j', 'echo ${X}') }), ['flux-substitution-undefined apps/job.yaml:18:20']);
  });

  test('files no Flux Kustomization builds are not checked; flux.substitution: always checks them, never silences all', async () => {
    assert.deepEqual(await fluxFindings({ 'apps/job.yaml': job('j', 'echo ${X} $${Y}') }), []);
    const always = contractWith('  substitution: always\n');
    assert.deepEqual(await substituted('echo ${X}', always), [`flux-substitution-undefined@${col + 5}-${col + 9}`]);
    const never = contractWith('  substitution: never\n');
    assert.deepEqual(await substituted('echo ${X}', never), []);
  });

  test('strict: false says the value becomes empty; strict (default) says the reconcile fails', async () => {
    const message = async (contract: string) =>
      (await auditFiles({ '.flux-job-guard.yaml': contract, 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/job.yaml': job('j', 'echo ${X}') })).findings.find(
        (f) => f.rule === 'flux-substitution-undefined',
      )!.message;
    assert.match(await message(CONTRACT), /fails the reconcile/);
    assert.match(await message(contractWith('  strict: false\n')), /empty string/);
  });

  test('needless escape: $${X} and $$(cmd) where nothing substitutes; a real PID ($$ ) is left alone', async () => {
    const files = (script: string) => ({ 'flux/apps.yaml': kustomization('apps', './apps'), 'apps/script.yaml': scriptMap('s', script) });
    assert.deepEqual(await fluxFindings(files('echo $${HOME} $$(date) $$')), ['flux-substitution-needless-escape apps/script.yaml:7:10', 'flux-substitution-needless-escape apps/script.yaml:7:19']);
    assert.deepEqual(await fluxFindings(files('echo ${HOME} $(date) $$')), []);
  });

  test("needless escape: in a container's command the kubelet turns $$ into $, so $${X} and $$(cmd) are right there", async () => {
    const files = (script: string) => ({ 'flux/apps.yaml': kustomization('apps', './apps'), 'apps/job.yaml': job('j', script) });
    assert.deepEqual(await fluxFindings(files('echo $${HOME} $$(date)')), []);
    // The kubelet leaves the text of a $(…) it does not know as it is: a $$ inside it reaches the shell.
    assert.deepEqual(await fluxFindings(files('echo $(echo $${HOME})')), ['flux-substitution-needless-escape apps/job.yaml:18:27']);
  });

  test('bare-dollar is off by default and reports every lone $ when turned on', async () => {
    assert.deepEqual(await substituted('echo $HOME'), []);
    assert.deepEqual(await substituted('echo $HOME', CONTRACT + '  flux-substitution-bare-dollar: warning\n'), [`flux-substitution-bare-dollar@${col + 5}-${col + 6}`]);
  });

  test('the escape fix turns ${HOME} into $${HOME}, and the fixed text has no finding', async () => {
    const result = await auditFiles({ '.flux-job-guard.yaml': CONTRACT, 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/job.yaml': job('j', 'echo ${HOME}') });
    const fix = result.findings.find((f) => f.rule === 'flux-substitution-undefined')!.fixes![0];
    assert.deepEqual(fix.edits, [{ file: 'apps/job.yaml', range: { start: { line: 17, character: 19 }, end: { line: 17, character: 19 } }, newText: '$' }]);
    assert.deepEqual(await substituted('echo $${HOME}'), []);
  });
});
