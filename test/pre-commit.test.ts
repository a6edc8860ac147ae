// The pre-commit hooks, run by pre-commit itself (Debian's `pre-commit`) on a
// fixture repository: red on a Job without a TTL, green on a clean one.
//   - the CLI package's hook (a mirror: a git repository made from the unpacked
//     package, `language: node`): pre-commit installs it with the machine's node
//     and npm, offline (npm_config_offline=true proves no registry is asked);
//   - this repository's own hook (.pre-commit-hooks.yaml, `language: system`),
//     with the installed CLI on PATH.
// Without pre-commit on the machine the tests say why and are skipped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { describeRun, installCli, packCli, ROOT, run } from './helpers/cli-package';
import { removeTempRepos, tempDir, tempRepo } from './helpers/temp-repo';

const PRE_COMMIT = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
const missing = PRE_COMMIT.error || PRE_COMMIT.status !== 0 ? 'pre-commit is not installed (apt-get install -y pre-commit; .ci/run installs it)' : undefined;

const JOB = (ttl: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-report
  namespace: reports
spec:
${ttl}  template:
    spec:
      restartPolicy: Never
      containers:
        - name: report
          image: docker.io/library/busybox:1.36
          command: ["sh", "-c", "date"]
`;
/** The keys of a .pre-commit-hooks.yaml entry these tests read. */
interface Hook {
  id: string;
  entry: string;
  language: string;
  pass_filenames: boolean;
}

const FIXTURES = {
  clean: JOB('  # converges: the report is rebuilt from the same data; a second run overwrites it\n  ttlSecondsAfterFinished: 86400\n'),
  broken: JOB(''),
};

const git = (cwd: string, ...args: string[]) => {
  const result = run('git', ['-c', 'user.name=fjg test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], { cwd });
  assert.equal(result.status, 0, describeRun(`git ${args.join(' ')}`, result));
  return result.stdout.trim();
};

/** A git repository of `dir` as it is, committed; its revision. */
function commitAll(dir: string): string {
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'hook repository');
  return git(dir, 'rev-parse', 'HEAD');
}

/** A fixture repository whose .pre-commit-config.yaml uses the hook of `hookRepo` at `rev` (files staged, as pre-commit wants). */
function fixtureRepo(job: string, hookRepo: string, rev: string): string {
  const config = `repos:\n  - repo: ${hookRepo}\n    rev: ${rev}\n    hooks:\n      - id: flux-job-guard\n`;
  const dir = tempRepo('fjg-pre-commit-repo-', { 'apps/report/job.yaml': job, '.pre-commit-config.yaml': config });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  return dir;
}

function preCommit(repo: string, home: string, env: NodeJS.ProcessEnv = {}) {
  return run('pre-commit', ['run', '--all-files', '--color', 'never'], { cwd: repo, env: { ...process.env, PRE_COMMIT_HOME: home, ...env } });
}

after(removeTempRepos);

describe('the CLI package as a pre-commit hook repository (language: node)', { skip: missing }, () => {
  let mirror: string;
  let rev: string;
  let home: string;

  before(() => {
    const staged = join(tempDir('fjg-pre-commit-mirror-'), 'flux-job-guard');
    packCli([`--keep-staging=${staged}`]);
    mirror = staged;
    rev = commitAll(mirror);
    home = tempDir('fjg-pre-commit-home-');
  });

  test('the hook file: id flux-job-guard, the audit, pass_filenames false', () => {
    const [hook] = parse(readFileSync(join(mirror, '.pre-commit-hooks.yaml'), 'utf8')) as Hook[];
    assert.deepEqual([hook.id, hook.entry, hook.language, hook.pass_filenames], ['flux-job-guard', 'flux-job-guard audit', 'node', false]);
  });

  for (const [name, job] of Object.entries(FIXTURES)) {
    test(`pre-commit run --all-files on the ${name} fixture: ${name === 'clean' ? 'passes' : 'fails with the audit'} (installed offline)`, () => {
      const result = preCommit(fixtureRepo(job, mirror, rev), home, { npm_config_offline: 'true' });
      if (name === 'clean') {
        assert.equal(result.status, 0, describeRun('pre-commit', result));
        assert.match(result.stdout, /flux-job-guard audit\.+Passed/);
      } else {
        assert.equal(result.status, 1, describeRun('pre-commit', result));
        assert.match(result.stdout, /flux-job-guard audit\.+Failed/);
        assert.match(result.stdout, /apps\/report\/job\.yaml:6:1: error ttl-missing/);
        assert.match(result.stdout, /FAIL: 1 error\(s\), 0 warning\(s\) in 1 Job\(s\) in 1 file\(s\)/);
      }
    });
  }
});

describe("this repository's hook (language: system, the CLI on PATH)", { skip: missing }, () => {
  let hookRepo: string;
  let rev: string;
  let home: string;
  let binDir: string;

  before(() => {
    // the hook repository as pre-commit sees it: this repository's .pre-commit-hooks.yaml at a revision
    hookRepo = tempDir('fjg-pre-commit-root-');
    copyFileSync(join(ROOT, '.pre-commit-hooks.yaml'), join(hookRepo, '.pre-commit-hooks.yaml'));
    rev = commitAll(hookRepo);
    home = tempDir('fjg-pre-commit-home-');
    binDir = dirname(installCli(packCli().tarball));
  });

  test('the hook file: id flux-job-guard, the audit, pass_filenames false', () => {
    const [hook] = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as Hook[];
    assert.deepEqual([hook.id, hook.entry, hook.language, hook.pass_filenames], ['flux-job-guard', 'flux-job-guard audit', 'system', false]);
  });

  for (const [name, job] of Object.entries(FIXTURES)) {
    test(`pre-commit run --all-files on the ${name} fixture: ${name === 'clean' ? 'passes' : 'fails'}`, () => {
      const result = preCommit(fixtureRepo(job, hookRepo, rev), home, { PATH: `${binDir}${delimiter}${process.env.PATH}` });
      assert.equal(result.status, name === 'clean' ? 0 : 1, describeRun('pre-commit', result));
      assert.match(result.stdout, name === 'clean' ? /flux-job-guard audit\.+Passed/ : /ttl-missing[\s\S]*FAIL: 1 error\(s\)/);
    });
  }

  test('without the CLI on PATH the hook fails and says so', () => {
    const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'flux-job-guard')));
    const result = preCommit(fixtureRepo(FIXTURES.clean, hookRepo, rev), home, { PATH: path.join(delimiter) });
    assert.notEqual(result.status, 0, describeRun('pre-commit', result));
    assert.match(result.stdout + result.stderr, /flux-job-guard/);
  });
});
