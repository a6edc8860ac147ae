// The CLI (cli.md) as a user runs it: `node dist/cli.js audit ...` in a child
// process, over the example repository and over small repositories written to
// temporary folders. The expected findings of the example were worked out by
// hand from the spec (rules.md, contract.md, flux-substitution.md), not copied
// from the tool's output: see EXAMPLE_FINDINGS.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { RULE_IDS } from '../server/src/engine/rules/registry';
import type { JsonReport } from '../server/src/cli/formats';
import { lines } from './helpers/table';
import { removeTempRepos, tempDir, tempRepo } from './helpers/temp-repo';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const EXAMPLE = join(ROOT, 'examples', 'flux-repo');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd = ROOT): Run {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

after(removeTempRepos);

/** A repository in a new temporary folder. */
function repo(files: Record<string, string>): string {
  return tempRepo('fjg-cli-', files);
}

type JsonOutput = JsonReport;

/** The part of the SARIF log these tests read. */
interface SarifOutput {
  version: string;
  runs: Array<{
    tool: { driver: { name: string; rules: Array<{ id: string }> } };
    results: Array<{
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: unknown };
      locations: Array<{
        physicalLocation: {
          artifactLocation: { uri: string };
          region: { startLine: number; startColumn: number; endLine: number; endColumn: number };
        };
      }>;
    }>;
  }>;
}

const TEXT_LINE = /^(.+?):(\d+):(\d+): (error|warning|info) (\S+) (.+)$/;

// ---------------------------------------------------------------------------------------------
// The example repository, by hand. Its contract (include kubernetes/**, required 86400) and files:
// ---------------------------------------------------------------------------------------------
const EXAMPLE_FINDINGS: Array<[rule: string, file: string, line: number, column: number, severity: string]> = [
  // .flux-job-guard.yaml: entry [1] (seed-library, file-wide) while the Job sets 86400 -> stale, on file: (12:13)
  ['contract-stale', '.flux-job-guard.yaml', 12, 13, 'error'],
  // entry [2] names kubernetes/apps/removed/old-import.yaml, which does not exist (14:13)
  ['contract-file-missing', '.flux-job-guard.yaml', 14, 13, 'error'],
  // entry [3] repeats entry [0] (repository-bootstrap-v1) -> duplicate, on its job: (17:12)
  ['contract-duplicate', '.flux-job-guard.yaml', 17, 12, 'error'],
  // otherFinishTimeout [1] names a ConfigMap file (24:13)
  ['contract-no-job', '.flux-job-guard.yaml', 24, 13, 'error'],
  // otherFinishTimeout [2] allows 600 but db-migrate sets 3600, on value: (29:14)
  ['contract-stale', '.flux-job-guard.yaml', 29, 14, 'error'],
  // ... and its reason is "" (30:15)
  ['contract-reason-missing', '.flux-job-guard.yaml', 30, 15, 'error'],
  // serviceAccounts.external[0] lists argocd-redis-secret-init/argocd, which the argocd manifest now declares (33:13)
  ['contract-stale', '.flux-job-guard.yaml', 33, 13, 'error'],
  // `rulez:` is not a key of the schema (38:1)
  ['contract-invalid', '.flux-job-guard.yaml', 38, 1, 'error'],
  // restic-prune: no TTL, not listed -> on `spec` (6:1)
  ['ttl-missing', 'kubernetes/apps/backup/prune.yaml', 6, 1, 'error'],
  // volume-snapshot, built by Kustomization "apps" (postBuild: CLUSTER_NAME, TIMEZONE + ConfigMap cluster-settings:
  // BACKUP_BUCKET, DOMAIN), strict: ${SNAPSHOT_DIR} is undefined (21:20) ...
  ['flux-substitution-undefined', 'kubernetes/apps/backup/snapshot.yaml', 21, 20, 'error'],
  // ... ${RETENTION:-7}: a default on an undefined name (22:21) ...
  ['flux-substitution-default', 'kubernetes/apps/backup/snapshot.yaml', 22, 21, 'warning'],
  // ... ${volumes[@]}: `[` after a name is a lexer error (23:29) ...
  ['flux-substitution-syntax', 'kubernetes/apps/backup/snapshot.yaml', 23, 29, 'error'],
  // ... `$$)`: a PID that reaches the shell as a lone $ (24:57; `$$volume` and `$$dir` are fine)
  ['flux-substitution-pid', 'kubernetes/apps/backup/snapshot.yaml', 24, 57, 'warning'],
  // kernel-bake-r6 (built by "apps", interval 1h): TTL 600 is neither 86400 nor allowed (10:28) ...
  ['ttl-unexpected-value', 'kubernetes/apps/bake/kernel-bake.yaml', 10, 28, 'error'],
  // ... and shorter than the interval, with no otherFinishTimeout entry (10:28) ...
  ['ttl-shorter-than-interval', 'kubernetes/apps/bake/kernel-bake.yaml', 10, 28, 'warning'],
  // ... it runs as ServiceAccount kernel-baker, which nothing declares in bake and the contract does not list (15:27) ...
  ['pod-service-account-undeclared', 'kubernetes/apps/bake/kernel-bake.yaml', 15, 27, 'warning'],
  // ... three containers use /tmp/snapshot-id with no shared volume (reported where the second container reads it, 22:47) ...
  ['pod-tmp-handoff', 'kubernetes/apps/bake/kernel-bake.yaml', 22, 47, 'warning'],
  // ... and passes {{workflow.parameters.cluster}} (22:80); ${KERNEL_TAG} is defined by "apps", `$$(cat` is `$(`
  ['job-argo-template', 'kubernetes/apps/bake/kernel-bake.yaml', 22, 80, 'error'],
  // values.yaml: `retries: 3` followed by a more-indented `timeout:` (3:12)
  ['yaml-syntax', 'kubernetes/apps/broken/values.yaml', 3, 12, 'error'],
  // cache-flush: TTL written "86400" (8:28)
  ['ttl-invalid', 'kubernetes/apps/cache/flush.yaml', 8, 28, 'error'],
  // cache-warmup: TTL under spec.template.spec, none under spec (6:1 and 10:7)
  ['ttl-missing', 'kubernetes/apps/cache/warmup.yaml', 6, 1, 'error'],
  ['ttl-misplaced', 'kubernetes/apps/cache/warmup.yaml', 10, 7, 'error'],
  // db-migrate: 3600, its entry allows 600 (7:28)
  ['ttl-unexpected-value', 'kubernetes/apps/db/migrate.yaml', 7, 28, 'error'],
  // seed-library: listed in noFinishTimeout, sets a TTL (8:3)
  ['ttl-forbidden', 'kubernetes/apps/media/seed-library.yaml', 8, 3, 'error'],
  // photos-reindex: 86400 without a converges: comment (7:3)
  ['ttl-convergence-note', 'kubernetes/apps/photos/reindex.yaml', 7, 3, 'warning'],
  // node-sysctl-check, built by Kustomization "infrastructure" (no postBuild): in the mounted script `$${HOME}` stays `$$` (8:34) ...
  ['flux-substitution-needless-escape', 'kubernetes/infrastructure/node-tuning/job.yaml', 8, 34, 'warning'],
  // ... and in the Job's inline command the kubelet turns the PID `$$` into a lone `$` (24:55)
  ['pod-kubelet-dollar', 'kubernetes/infrastructure/node-tuning/job.yaml', 24, 55, 'warning'],
  // Not findings: restic-check and argocd-redis-secret-init (60, allowed) are clean; repository-bootstrap-v1 keeps
  // none with a reason; the photos patch, the CronJob and the Helm chart template are not Job resources.
];
// Jobs: restic-prune, restic-check, volume-snapshot, kernel-bake-r6, cache-flush, cache-warmup, db-migrate,
// repository-bootstrap-v1, seed-library, photos-reindex, argocd-redis-secret-init, node-sysctl-check: 12, one per file.
// With a TTL (any value, under spec): restic-check, volume-snapshot, kernel-bake-r6, cache-flush, db-migrate,
// seed-library, photos-reindex, argocd-redis-secret-init, node-sysctl-check: 9. Keep none with a reason:
// repository-bootstrap-v1. Errors and warnings: counted from the table above.
const EXAMPLE_SUMMARY = { files: 12, jobs: 12, withTtl: 9, keepNone: 1, errors: 19, warnings: 8 };
const EXAMPLE_SUMMARY_LINE = 'FAIL: 19 error(s), 8 warning(s) in 12 Job(s) in 12 file(s)';

test('the hand-made table agrees with the hand-made counts', () => {
  assert.equal(EXAMPLE_FINDINGS.filter((f) => f[4] === 'error').length, EXAMPLE_SUMMARY.errors);
  assert.equal(EXAMPLE_FINDINGS.filter((f) => f[4] === 'warning').length, EXAMPLE_SUMMARY.warnings);
});

const key = (rule: string, file: string, line: number, column: number) => `${file}:${line}:${column} ${rule}`;
const EXPECTED_KEYS = EXAMPLE_FINDINGS.map(([rule, file, line, column]) => key(rule, file, line, column)).sort();

function sortedByFileLineColumnRule(findings: Array<{ file: string; line: number; column: number; rule: string }>): boolean {
  for (let i = 1; i < findings.length; i++) {
    const a = findings[i - 1];
    const b = findings[i];
    const order = a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
    if (order > 0) return false;
  }
  return true;
}

describe('audit of the example repository', () => {
  test('text: one line per finding, the exact summary line last, exit 1', () => {
    const run = cli(['audit', 'examples/flux-repo']);
    assert.equal(run.status, 1, run.stderr);
    assert.equal(run.stderr, '');
    assert.ok(run.stdout.endsWith('\n'));
    const out = run.stdout.slice(0, -1).split('\n');
    assert.equal(out[out.length - 1], EXAMPLE_SUMMARY_LINE);
    const findings = out.slice(0, -1).map((line) => {
      const match = TEXT_LINE.exec(line);
      assert.ok(match, `not a finding line: ${line}`);
      return { file: match[1], line: Number(match[2]), column: Number(match[3]), severity: match[4], rule: match[5], message: match[6] };
    });
    assert.deepEqual(findings.map((f) => key(f.rule, f.file, f.line, f.column)).sort(), EXPECTED_KEYS);
    assert.ok(sortedByFileLineColumnRule(findings), 'sorted by file, line, column, rule');
    for (const [rule, file, line, column, severity] of EXAMPLE_FINDINGS) {
      assert.equal(findings.find((f) => key(f.rule, f.file, f.line, f.column) === key(rule, file, line, column))!.severity, severity, `${rule} ${file}`);
    }
  });

  test('json: version 1, the exact summary counts and findings, sorted', () => {
    const run = cli(['audit', 'examples/flux-repo', '--format', 'json']);
    assert.equal(run.status, 1, run.stderr);
    const json = JSON.parse(run.stdout) as JsonOutput;
    assert.equal(json.version, 1);
    assert.deepEqual(json.summary, EXAMPLE_SUMMARY);
    assert.deepEqual(json.findings.map((f) => key(f.rule, f.file, f.line, f.column)).sort(), EXPECTED_KEYS);
    assert.ok(sortedByFileLineColumnRule(json.findings), 'sorted by file, line, column, rule');
    assert.equal(json.findings.filter((f) => f.severity === 'error').length, json.summary.errors);
    assert.equal(json.findings.filter((f) => f.severity === 'warning').length, json.summary.warnings);
    for (const f of json.findings) {
      assert.deepEqual(Object.keys(f).sort(), ['column', 'endColumn', 'endLine', 'file', 'job', 'line', 'message', 'rule', 'severity']);
      assert.ok(f.endLine > f.line || (f.endLine === f.line && f.endColumn >= f.column), `${f.rule}: the end is not before the start`);
      assert.ok(f.message.length > 20);
    }
    const byKey = (rule: string, file: string) => json.findings.find((f) => f.rule === rule && f.file === file)!;
    // Ranges and Jobs of a few findings, by hand.
    const invalid = byKey('ttl-invalid', 'kubernetes/apps/cache/flush.yaml');
    assert.deepEqual([invalid.line, invalid.column, invalid.endLine, invalid.endColumn, invalid.job], [8, 28, 8, 35, 'cache-flush']); // "86400" is 7 characters
    const missing = byKey('ttl-missing', 'kubernetes/apps/backup/prune.yaml');
    assert.deepEqual([missing.line, missing.column, missing.endLine, missing.endColumn, missing.job], [6, 1, 6, 5, 'restic-prune']); // `spec`
    const forbidden = byKey('ttl-forbidden', 'kubernetes/apps/media/seed-library.yaml');
    assert.deepEqual([forbidden.endLine, forbidden.endColumn, forbidden.job], [8, 26, 'seed-library']); // the key
    const undefinedVar = byKey('flux-substitution-undefined', 'kubernetes/apps/backup/snapshot.yaml');
    assert.deepEqual([undefinedVar.endLine, undefinedVar.endColumn], [21, 35]); // `${SNAPSHOT_DIR}` from its $ to its }
    const invalidKey = byKey('contract-invalid', '.flux-job-guard.yaml');
    assert.deepEqual([invalidKey.endLine, invalidKey.endColumn], [38, 6]); // `rulez`
  });

  test('sarif: 2.1.0, one run, the driver, one descriptor per rule id, results with ruleId, level and region', () => {
    const run = cli(['audit', 'examples/flux-repo', '--format', 'sarif']);
    assert.equal(run.status, 1, run.stderr);
    const sarif = JSON.parse(run.stdout) as SarifOutput;
    assert.equal(sarif.version, '2.1.0');
    assert.equal(sarif.runs.length, 1);
    const [only] = sarif.runs;
    assert.equal(only.tool.driver.name, 'flux-job-guard');
    const ids: string[] = only.tool.driver.rules.map((rule) => rule.id);
    assert.equal(new Set(ids).size, ids.length, 'one descriptor per rule id');
    for (const id of RULE_IDS) assert.ok(ids.includes(id), `a descriptor for ${id}`);
    const json = JSON.parse(cli(['audit', 'examples/flux-repo', '--format', 'json']).stdout) as JsonOutput;
    assert.equal(only.results.length, json.findings.length);
    const level = { error: 'error', warning: 'warning', info: 'note' } as Record<string, string>;
    only.results.forEach((result, i) => {
      const f = json.findings[i];
      assert.equal(result.ruleId, f.rule);
      assert.equal(ids[result.ruleIndex], result.ruleId, 'ruleIndex points at the descriptor');
      assert.equal(result.level, level[f.severity]);
      assert.equal(typeof result.message.text, 'string');
      const location = result.locations[0].physicalLocation;
      assert.equal(location.artifactLocation.uri, f.file);
      assert.deepEqual(location.region, { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn });
    });
    assert.deepEqual(
      only.results
        .map((r) => key(r.ruleId, r.locations[0].physicalLocation.artifactLocation.uri, r.locations[0].physicalLocation.region.startLine, r.locations[0].physicalLocation.region.startColumn))
        .sort(),
      EXPECTED_KEYS,
    );
  });

  test('--quiet shows only the errors, and the same summary line', () => {
    const run = cli(['audit', 'examples/flux-repo', '--quiet']);
    assert.equal(run.status, 1);
    const out = run.stdout.trimEnd().split('\n');
    assert.equal(out[out.length - 1], EXAMPLE_SUMMARY_LINE);
    const shown = out.slice(0, -1).map((line) => TEXT_LINE.exec(line)!);
    assert.deepEqual(
      shown.map((m) => key(m[5], m[1], Number(m[2]), Number(m[3]))).sort(),
      EXAMPLE_FINDINGS.filter((f) => f[4] === 'error')
        .map(([r, f, l, c]) => key(r, f, l, c))
        .sort(),
    );
  });

  test('paths are relative to DIR with /, whatever the working directory and however DIR is written', () => {
    const fromRepo = cli(['audit', '--format', 'json'], EXAMPLE); // DIR defaults to the current directory
    const absolute = cli(['audit', EXAMPLE, '--format=json'], tmpdir());
    const dotted = cli(['audit', './examples/flux-repo/', '--format', 'json']);
    for (const run of [fromRepo, absolute, dotted]) {
      assert.equal(run.status, 1, run.stderr);
      const json = JSON.parse(run.stdout) as JsonOutput;
      assert.deepEqual(json.findings.map((f) => key(f.rule, f.file, f.line, f.column)).sort(), EXPECTED_KEYS);
      for (const f of json.findings) assert.ok(!f.file.startsWith('/') && !f.file.startsWith('./') && !f.file.includes('\\'), f.file);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Small repositories
// ---------------------------------------------------------------------------------------------

const GOOD_JOB = lines(
  'apiVersion: batch/v1',
  'kind: Job',
  'metadata:',
  '  name: nightly',
  'spec:',
  "  # converges: the report overwrites yesterday's",
  '  ttlSecondsAfterFinished: 86400',
  '  template:',
  '    spec:',
  '      restartPolicy: Never',
  '      containers:',
  '        - name: report',
  '          image: app:1',
);
const KEPT_JOB = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: import-v1', 'spec:', '  backoffLimit: 1');
const JOB_3600 = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: hourly', 'spec:', '  # converges: idempotent', '  ttlSecondsAfterFinished: 3600');

describe('exit status and summary line on small repositories', () => {
  test('a clean repository exits 0 with the ok line', () => {
    const run = cli(['audit', repo({ 'jobs/nightly.yaml': GOOD_JOB })]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(run.stdout, 'ok: 1 Job(s) in 1 file(s) — 1 with a finish timeout, 0 that keep none with a written reason\n');
  });

  test('the ok line counts the Jobs that keep none with a reason', () => {
    const dir = repo({
      'jobs/nightly.yaml': GOOD_JOB,
      'jobs/import.yaml': KEPT_JOB,
      '.flux-job-guard.yaml': lines('ttl:', '  noFinishTimeout:', '    - file: jobs/import.yaml', '      reason: Its completion is the record of the import.'),
    });
    const run = cli(['audit', dir]);
    assert.equal(run.status, 0, run.stdout);
    assert.equal(run.stdout, 'ok: 2 Job(s) in 2 file(s) — 1 with a finish timeout, 1 that keep none with a written reason\n');
  });

  test('warnings alone exit 0', () => {
    const run = cli(['audit', repo({ 'job.yaml': GOOD_JOB.replace("  # converges: the report overwrites yesterday's\n", '') }), '--format', 'json']);
    assert.equal(run.status, 0);
    const json = JSON.parse(run.stdout) as JsonOutput;
    assert.deepEqual(
      json.findings.map((f) => [f.rule, f.severity]),
      [['ttl-convergence-note', 'warning']],
    );
    assert.deepEqual([json.summary.errors, json.summary.warnings], [0, 1]);
  });

  test('one error exits 1 with the FAIL line (negative control of the clean repository)', () => {
    const run = cli(['audit', repo({ 'jobs/nightly.yaml': GOOD_JOB, 'jobs/import.yaml': KEPT_JOB })]);
    assert.equal(run.status, 1);
    const out = run.stdout.trimEnd().split('\n');
    assert.equal(out.length, 2);
    assert.match(out[0], /^jobs\/import\.yaml:5:1: error ttl-missing Job "import-v1" sets no spec\.ttlSecondsAfterFinished/);
    assert.equal(out[1], 'FAIL: 1 error(s), 0 warning(s) in 2 Job(s) in 2 file(s)');
  });

  test('zero Jobs with a contract file exits 1 with contract-no-jobs on its first line; without one, ok: 0 Job(s)', () => {
    const config = lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: c');
    const run = cli(['audit', repo({ 'config.yaml': config, '.flux-job-guard.yaml': lines('# the contract', 'ttl:', '  required: 86400') })]);
    assert.equal(run.status, 1);
    const out = run.stdout.trimEnd().split('\n');
    assert.match(out[0], /^\.flux-job-guard\.yaml:1:1: error contract-no-jobs /);
    assert.equal(out[1], 'FAIL: 1 error(s), 0 warning(s) in 0 Job(s) in 0 file(s)');
    assert.equal(out.length, 2);
    // Many Flux repositories hold no Job: without a contract that is no failure, so their substitution checks can run in CI.
    const plain = cli(['audit', repo({ 'config.yaml': config })]);
    assert.equal(plain.status, 0);
    assert.deepEqual(plain.stdout.trimEnd().split('\n'), ['ok: 0 Job(s) in 0 file(s) — 0 with a finish timeout, 0 that keep none with a written reason']);
    const broken = cli(['audit', repo({ 'config.yaml': config.replace('name: c', 'name: c\ndata:\n  a: [') })]);
    assert.equal(broken.status, 1, 'negative control: without a contract, an error finding still decides the exit status');
  });

  test('zero Jobs under jobs.include: contract-no-jobs on jobs.include', () => {
    const dir = repo({ 'jobs/nightly.yaml': GOOD_JOB, '.flux-job-guard.yaml': lines('# where the Jobs are', 'jobs:', '  include:', '    - kubernetes/**') });
    const run = cli(['audit', dir, '--format', 'json']);
    assert.equal(run.status, 1);
    const json = JSON.parse(run.stdout) as JsonOutput;
    assert.deepEqual(
      json.findings.map((f) => [f.rule, f.file, f.line, f.column, f.endLine, f.endColumn]),
      [['contract-no-jobs', '.flux-job-guard.yaml', 3, 3, 3, 10]],
    );
  });
});

describe('options', () => {
  test('--config names another contract file (in DIR): it replaces .flux-job-guard.yaml', () => {
    const dir = repo({ 'jobs/hourly.yaml': JOB_3600, '.flux-job-guard.yaml': lines('ttl:', '  required: 60'), 'strict.yaml': lines('ttl:', '  required: 3600') });
    const plain = cli(['audit', dir, '--format', 'json']);
    assert.equal(plain.status, 1, 'negative control: the default contract requires 60');
    assert.deepEqual(
      (JSON.parse(plain.stdout) as JsonOutput).findings.map((f) => f.rule),
      ['ttl-unexpected-value'],
    );
    const configured = cli(['audit', dir, '--config', join(dir, 'strict.yaml')]);
    assert.equal(configured.status, 0, configured.stdout);
    assert.match(configured.stdout, /^ok: 1 Job\(s\)/);
  });

  test('--config relative to the working directory, outside DIR', () => {
    const dir = repo({ 'jobs/hourly.yaml': JOB_3600 });
    const elsewhere = repo({ 'guard.yaml': lines('ttl:', '  required: 3600') });
    assert.equal(cli(['audit', dir]).status, 1, 'negative control: the default requires 86400');
    const run = cli(['audit', dir, '--config', 'guard.yaml'], elsewhere);
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  test("--config: the contract's own findings are reported under its path relative to DIR", () => {
    const dir = repo({ 'jobs/nightly.yaml': GOOD_JOB, 'ops/guard.yaml': lines('ttl:', '  requird: 3600') });
    const run = cli(['audit', dir, '--config', join(dir, 'ops', 'guard.yaml')]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^ops\/guard\.yaml:2:3: error contract-invalid Unknown key `ttl\.requird` \(did you mean `required`\?\)\.$/m);
  });

  test('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = cli(['--version']);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, `${version}\n`);
  });

  test('--help prints the usage and exits 0', () => {
    const run = cli(['--help']);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /flux-job-guard audit \[DIR\] \[--config FILE\] \[--format text\|json\|sarif\] \[--quiet\]/);
    assert.match(run.stdout, /--version \| --help/);
    assert.equal(run.stderr, '');
  });
});

describe('usage errors exit 2 with the message on stderr', () => {
  const dir = repo({ 'jobs/nightly.yaml': GOOD_JOB });
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown flag', ['audit', dir, '--bogus'], /unknown option --bogus/],
    ['a bad --format', ['audit', dir, '--format', 'xml'], /--format must be text, json or sarif, not "xml"/],
    ['--format without a value', ['audit', dir, '--format'], /--format needs a value/],
    ['a DIR that does not exist', ['audit', join(dir, 'missing')], /cannot read directory .*missing/],
    ['a DIR that is a file', ['audit', join(dir, 'jobs', 'nightly.yaml')], /cannot read directory/],
    ['two DIRs', ['audit', dir, dir], /only one DIR may be given/],
    ['an unreadable --config', ['audit', dir, '--config', join(dir, 'nope.yaml')], /cannot read config .*nope\.yaml/],
    ['a --config that is a folder', ['audit', dir, '--config', join(dir, 'jobs')], /cannot read config/],
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
  ];
  for (const [name, args, message] of cases) {
    test(name, () => {
      const run = cli(args);
      assert.equal(run.status, 2, `${run.stdout}${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }
  test('negative control: the same DIR without the mistakes exits 0', () => assert.equal(cli(['audit', dir, '--format', 'text']).status, 0));
  test('a .flux-job-guard.yaml in DIR that cannot be read (a folder) is not silently ignored', () => {
    const broken = repo({ 'jobs/nightly.yaml': GOOD_JOB, '.flux-job-guard.yaml/README': 'a folder, not a file' });
    const run = cli(['audit', broken]);
    assert.equal(run.status, 2, run.stdout);
    assert.match(run.stderr, /cannot read config .*\.flux-job-guard\.yaml/);
    assert.equal(run.stdout, '');
  });
});

describe('file names', () => {
  test('json and text give the path as it is; sarif gives a URI reference with every segment escaped', () => {
    const dir = repo({ 'jobs/a#1 b?.yaml': KEPT_JOB });
    const json = JSON.parse(cli(['audit', dir, '--format', 'json']).stdout) as JsonOutput;
    assert.deepEqual(
      json.findings.map((f) => f.file),
      ['jobs/a#1 b?.yaml'],
    );
    assert.match(cli(['audit', dir]).stdout, /^jobs\/a#1 b\?\.yaml:5:1: error ttl-missing /);
    const sarif = JSON.parse(cli(['audit', dir, '--format', 'sarif']).stdout) as SarifOutput;
    assert.equal(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'jobs/a%231%20b%3F.yaml');
  });
});

describe('file encodings', () => {
  test('a UTF-8 BOM is not a column: a finding on the first line of a file with a BOM', () => {
    const dir = repo({ 'job.yaml': '\uFEFF' + lines('kind: Job', 'apiVersion: batch/v1', 'metadata:', '  name: nospec') });
    const json = JSON.parse(cli(['audit', dir, '--format', 'json']).stdout) as JsonOutput;
    assert.deepEqual(
      json.findings.map((f) => [f.rule, f.line, f.column, f.endLine, f.endColumn]),
      [['ttl-missing', 1, 7, 1, 10]],
    ); // on `Job`
  });
  test('CRLF files: the same lines and columns as LF', () => {
    const text = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: crlf', 'spec:', '  ttlSecondsAfterFinished: "86400"');
    const lf = JSON.parse(cli(['audit', repo({ 'job.yaml': text }), '--format', 'json']).stdout) as JsonOutput;
    const crlf = JSON.parse(cli(['audit', repo({ 'job.yaml': text.replace(/\n/g, '\r\n') }), '--format', 'json']).stdout) as JsonOutput;
    assert.deepEqual(
      lf.findings.map((f) => [f.rule, f.line, f.column, f.endLine, f.endColumn]),
      [['ttl-invalid', 6, 28, 6, 35]],
    );
    assert.deepEqual(crlf.findings, lf.findings);
  });
});

describe('columns count UTF-16 code units', () => {
  // `metadata: {name: "🚀-migrate", ` is 31 UTF-16 units (the emoji is 2; 1 code point; 4 UTF-8 bytes):
  // the misplaced key starts at column 32 and ends at 32 + 23 = 55.
  const text = lines('apiVersion: batch/v1', 'kind: Job', 'metadata: {name: "🚀-migrate", ttlSecondsAfterFinished: 60}', 'spec:', '  # converges: it only reads', '  ttlSecondsAfterFinished: 86400');
  const dir = repo({ 'job.yaml': text });

  test('json', () => {
    const json = JSON.parse(cli(['audit', dir, '--format', 'json']).stdout) as JsonOutput;
    assert.deepEqual(
      json.findings.map((f) => [f.rule, f.file, f.line, f.column, f.endLine, f.endColumn, f.job]),
      [['ttl-misplaced', 'job.yaml', 3, 32, 3, 55, '🚀-migrate']],
    );
  });
  test('text', () => {
    const run = cli(['audit', dir]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^job\.yaml:3:32: error ttl-misplaced /);
  });
  test('sarif', () => {
    const sarif = JSON.parse(cli(['audit', dir, '--format', 'sarif']).stdout) as SarifOutput;
    assert.deepEqual(sarif.runs[0].results[0].locations[0].physicalLocation.region, { startLine: 3, startColumn: 32, endLine: 3, endColumn: 55 });
  });
});

test('the audit gives the same output in worker threads as in one thread (example and a generated repository)', () => {
  const run = (dir: string, threads: string) => spawnSync(process.execPath, [CLI, 'audit', dir, '--format', 'json', '--no-git', '--threads', threads], { encoding: 'utf8' });
  const repo = tempDir('fjg-threads-');
  for (let i = 0; i < 60; i++) {
    mkdirSync(join(repo, `apps/a${i}`), { recursive: true });
    writeFileSync(
      join(repo, `apps/a${i}/job.yaml`),
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j${i}\nspec:\n  ttlSecondsAfterFinished: ${i % 3 === 0 ? 3600 : 86400}\n  template:\n    spec:\n      containers:\n        - name: c\n          command: ["sh", "-c", "echo \${X${i}} $$"]\n`,
    );
    writeFileSync(join(repo, `apps/a${i}/cm.yaml`), i % 7 === 0 ? 'a: b\n c: d\n' : `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\ndata:\n  X${i}: v\n`);
  }
  // One cluster: Kustomization apps defines X1; plain, beside it, has no postBuild (its file's context carries the definers of X1 to the workers).
  mkdirSync(join(repo, 'clusters/home'), { recursive: true });
  writeFileSync(
    join(repo, 'clusters/home/sync.yaml'),
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n---\n' +
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/home\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n',
  );
  writeFileSync(
    join(repo, 'clusters/home/apps.yaml'),
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\nspec:\n  path: ./apps\n  postBuild:\n    substitute:\n      X1: one\n',
  );
  writeFileSync(join(repo, 'clusters/home/plain.yaml'), 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: plain\nspec:\n  path: ./plain\n');
  mkdirSync(join(repo, 'plain'));
  writeFileSync(join(repo, 'plain/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  replicas: ${X1}\n');
  for (const dir of [EXAMPLE, repo]) {
    const one = run(dir, '1');
    const two = run(dir, '2');
    assert.equal(two.status, one.status);
    assert.equal(two.stdout, one.stdout);
    // Every batch ran in a worker: a context that cannot cross threads (a function in it) fell back to the main thread, same output, silently slow.
    assert.equal(two.stderr, '');
    // A worker that dies mid-audit (here on purpose: the preload makes the first one exit) hands its work back to the main thread.
    const crashed = spawnSync(process.execPath, ['--require', join(__dirname, 'helpers', 'crash-first-worker.js'), CLI, 'audit', dir, '--format', 'json', '--no-git', '--threads', '2'], {
      encoding: 'utf8',
    });
    assert.equal(crashed.stdout, one.stdout);
    assert.match(crashed.stderr, /^flux-job-guard: audit worker 0 failed \(audit worker 0 exited \(3\)\); its files are audited in the main thread$/m);
    assert.ok((JSON.parse(one.stdout) as JsonOutput).findings.length > 5, 'the comparison is over real findings');
  }
  assert.ok(
    (JSON.parse(run(repo, '2').stdout) as JsonOutput).findings.some((f) => f.rule === 'flux-substitution-no-postbuild' && f.file === 'plain/cm.yaml'),
    'a rule that reads the definers ran in the workers',
  );
});
