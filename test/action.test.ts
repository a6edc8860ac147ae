// The GitHub Action (action.yml, a composite action) run here, step by step, the
// way a runner runs it: each `run:` step with `bash --noprofile --norc -eo
// pipefail`, its `env:` with the `${{ inputs.* }}` / `${{ steps.* }}`
// expressions filled in, RUNNER_TEMP, GITHUB_PATH and GITHUB_OUTPUT files,
// `if:` conditions evaluated (a small evaluator for the forms the file uses).
// `uses:` steps (actions/setup-node, github/codeql-action/upload-sarif) are NOT
// run here: the machine's node stands in for setup-node, and for the upload the
// test checks that it would run and with which SARIF file. The CLI comes from
// the tarball of `npm run pack:cli` (input `package`), installed offline.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { describeRun, EXAMPLE, packCli, ROOT, run } from './helpers/cli-package';
import { removeTempRepos, tempDir, tempRepo } from './helpers/temp-repo';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}
interface Action {
  runs: { using: string; steps: Step[] };
  inputs: Record<string, { default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** The part of a SARIF log these tests read. */
interface SarifLog {
  version: string;
  runs: Array<{ results: Array<{ level: string }> }>;
}

interface Context {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
}

/** The value of `inputs.x` or `steps.id.outputs.x` (an unknown name is a test failure: the file uses something this runner does not know). */
function lookup(name: string, context: Context): string {
  let match = /^inputs\.([\w-]+)$/.exec(name);
  if (match) {
    assert.ok(match[1] in context.inputs, `action.yml uses an undeclared input ${match[1]}`);
    return context.inputs[match[1]];
  }
  match = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(name);
  if (match) return context.steps[match[1]]?.outputs[match[2]] ?? '';
  throw new Error(`expression ${name} is not supported by this test's runner`);
}

function substitute(text: string, context: Context): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => lookup(name, context));
}

/** `if:` as GitHub evaluates the forms used here: terms joined by &&, each always(), or a name ==/!= a quoted string. */
function condition(expression: string | undefined, context: Context, failed: boolean): boolean {
  if (expression === undefined) return !failed; // success()
  const terms = expression
    .replace(/^\$\{\{\s*|\s*\}\}$/g, '')
    .split('&&')
    .map((term) => term.trim());
  const always = terms.includes('always()');
  const rest = terms.filter((term) => term !== 'always()');
  return (
    (always || !failed) &&
    rest.every((term) => {
      const match = /^([\w.-]+)\s*(==|!=)\s*'([^']*)'$/.exec(term);
      assert.ok(match, `if: term ${term} is not supported by this test's runner`);
      const equal = lookup(match[1], context) === match[3];
      return match[2] === '==' ? equal : !equal;
    })
  );
}

interface StepRun {
  step: string;
  ran: boolean;
  status?: number | null;
  output?: string;
  /** For `uses:` steps that would run: their `with:` as the runner would pass it. */
  with?: Record<string, string>;
}

/** Runs the action's steps in `workspace` with `given` inputs; what each step did. */
function runAction(workspace: string, given: Record<string, string>): { steps: StepRun[]; failed: boolean; context: Context } {
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, given[name] ?? input.default ?? '']));
  const context: Context = { inputs, steps: {} };
  const runnerTemp = tempDir('fjg-action-runner-');
  const githubPath = join(runnerTemp, 'github_path');
  writeFileSync(githubPath, '');
  let failed = false;
  const steps: StepRun[] = [];
  for (const [index, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${index}`;
    if (!condition(step.if, context, failed)) {
      steps.push({ step: name, ran: false });
      continue;
    }
    if (step.uses) {
      // not run here (see the header): recorded with its inputs
      steps.push({ step: name, ran: false, with: Object.fromEntries(Object.entries(step.with ?? {}).map(([key, value]) => [key, substitute(String(value), context)])) });
      continue;
    }
    assert.equal(step.shell, 'bash', `${name}: a composite run step names its shell`);
    const githubOutput = join(runnerTemp, `github_output_${index}`);
    writeFileSync(githubOutput, '');
    const added = readFileSync(githubPath, 'utf8').split('\n').filter(Boolean).reverse();
    const env = {
      ...process.env,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, substitute(String(value), context)])),
      RUNNER_TEMP: runnerTemp,
      GITHUB_WORKSPACE: workspace,
      GITHUB_PATH: githubPath,
      GITHUB_OUTPUT: githubOutput,
      PATH: [...added, process.env.PATH].join(delimiter),
      NO_COLOR: '1',
      npm_config_offline: 'true', // the tarball needs no registry
    };
    const result = run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', substitute(step.run!, context)], { cwd: workspace, env });
    const outputs = Object.fromEntries(
      readFileSync(githubOutput, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    if (step.id) context.steps[step.id] = { outputs };
    steps.push({ step: name, ran: true, status: result.status, output: describeRun(name, result) });
    if (result.status !== 0) failed = true;
  }
  return { steps, failed, context };
}

const stepNamed = (steps: StepRun[], name: string) => steps.find((step) => step.step === name)!;

let tarball: string;

before(() => {
  tarball = packCli().tarball;
});

after(removeTempRepos);

describe('action.yml', () => {
  test('is a composite action whose default CLI is this version, and whose run steps take inputs only through env', () => {
    assert.equal(action.runs.using, 'composite');
    assert.equal(action.inputs.package.default, `flux-job-guard@${version}`);
    assert.deepEqual(Object.keys(action.inputs).sort(), ['args', 'node-version', 'package', 'path', 'sarif', 'sarif-file']);
    for (const step of action.runs.steps.filter((s) => s.run)) {
      assert.doesNotMatch(step.run!, /\$\{\{/, `${step.name}: no expression inside the script (script injection); inputs come through env`);
    }
    const uses = action.runs.steps.filter((s) => s.uses).map((s) => s.uses!.replace(/@.*/, ''));
    assert.deepEqual(uses, ['actions/setup-node', 'github/codeql-action/upload-sarif']);
    console.log(
      `not run by this test (uses: steps): ${action.runs.steps
        .filter((s) => s.uses)
        .map((s) => s.uses)
        .join(', ')}`,
    );
  });

  test('on the example repository with sarif: the SARIF is written and would be uploaded, the audit fails the job', () => {
    const workspace = tempDir('fjg-action-ws-');
    cpSync(EXAMPLE, join(workspace, 'repo'), { recursive: true });
    const { steps, failed, context } = runAction(workspace, { package: tarball, path: 'repo', sarif: 'true' });
    const report = steps.map((s) => s.output ?? `${s.step}: ${s.ran ? 'ran' : 'not run'}`).join('\n');
    assert.equal(stepNamed(steps, 'Install the flux-job-guard CLI').status, 0, report);
    assert.match(stepNamed(steps, 'Install the flux-job-guard CLI').output!, new RegExp(`^${version.replace(/\./g, '\\.')}$`, 'm'), 'the installed CLI says its version');
    assert.equal(stepNamed(steps, 'Audit as SARIF').status, 0, report);
    const sarifFile = join(workspace, 'flux-job-guard.sarif');
    assert.equal(context.steps.sarif.outputs.file, 'flux-job-guard.sarif');
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8')) as SarifLog;
    assert.equal(sarif.version, '2.1.0');
    assert.ok(
      sarif.runs[0].results.some((result) => result.level === 'error'),
      'error results in the SARIF',
    );
    assert.deepEqual(stepNamed(steps, 'Upload SARIF to code scanning').with, { sarif_file: 'flux-job-guard.sarif', category: 'flux-job-guard' });
    const audit = stepNamed(steps, 'Audit');
    assert.equal(audit.status, 1, report);
    assert.match(audit.output!, /FAIL: \d+ error\(s\)/);
    assert.ok(failed, 'the job fails');
  });

  test('on a clean repository: every step passes, the SARIF holds no error', () => {
    const workspace = tempRepo('fjg-action-ws-', {
      '.flux-job-guard.yaml': 'ttl:\n  required: 86400\n',
      'apps/job.yaml': [
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: nightly-report',
        'spec:',
        '  # converges: the report is rebuilt from the same data; a second run overwrites it',
        '  ttlSecondsAfterFinished: 86400',
        '  template:',
        '    spec:',
        '      restartPolicy: Never',
        '      containers:',
        '        - name: report',
        '          image: busybox:1.36',
        '',
      ].join('\n'),
    });
    const { steps, failed } = runAction(workspace, { package: tarball, sarif: 'true', 'sarif-file': 'out.sarif' });
    const report = steps.map((s) => s.output ?? `${s.step}: ${s.ran ? 'ran' : 'not run'}`).join('\n');
    assert.ok(!failed, report);
    assert.match(stepNamed(steps, 'Audit').output!, /^ok: 1 Job\(s\) in 1 file\(s\)/m);
    const sarif = JSON.parse(readFileSync(join(workspace, 'out.sarif'), 'utf8')) as SarifLog;
    assert.deepEqual(
      sarif.runs[0].results.filter((result) => result.level === 'error'),
      [],
    );
  });

  test('without sarif (the default) no SARIF step runs and nothing would be uploaded; args reach the audit', () => {
    const workspace = tempDir('fjg-action-ws-');
    cpSync(EXAMPLE, join(workspace, 'repo'), { recursive: true });
    const { steps, failed } = runAction(workspace, { package: tarball, path: 'repo', args: '--quiet --no-git' });
    assert.deepEqual(
      steps.filter((s) => s.ran).map((s) => s.step),
      ['Install the flux-job-guard CLI', 'Audit'],
    );
    assert.ok(!stepNamed(steps, 'Upload SARIF to code scanning').with, 'no upload');
    assert.ok(!existsSync(join(workspace, 'flux-job-guard.sarif')));
    const audit = stepNamed(steps, 'Audit');
    assert.equal(audit.status, 1);
    assert.doesNotMatch(audit.output!, /: warning /, '--quiet lists errors only');
    assert.ok(failed);
  });
});
