// `audit --changed-since REV` (issue 22) as a user runs it: the bin in a child
// process, over real git repositories made here (git init, a commit, a change).
// Each case checks that the findings reported are exactly the full audit's
// findings on the files the change can affect (listed by hand from the spec:
// the changed files, every file of a Kustomization whose definition, built
// files or variable sources changed, the Jobs whose contract entries changed),
// and a negative control: a file with findings that the change cannot reach
// is not reported.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { JsonFinding, JsonReport } from '../server/src/cli/formats';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempDir, tempRepo } from './helpers/temp-repo';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

after(removeTempRepos);

/** A Job of one container; `ttl` is the lines under spec before the template (indented by 2), '' for none. */
function job(name: string, ttl: string, command: string): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${ttl}  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: alpine:3.20
          command: ["sh", "-c", ${JSON.stringify(command)}]
`;
}

const TTL = '  # converges: it writes the same report again\n  ttlSecondsAfterFinished: 86400\n';
const TTL_600 = '  # converges: it writes the same report again\n  ttlSecondsAfterFinished: 600\n';

/** The ConfigMap apps substitutes from, with `data` lines (indented by 2). */
function settings(data: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-settings\n  namespace: flux-system\ndata:\n${data}`;
}

function contract(value: number): string {
  return `ttl:\n  required: 86400\n  otherFinishTimeout:\n    - file: tools/job-u.yaml\n      job: job-u\n      value: ${value}\n      reason: Its log is read within ten minutes of the run.\n`;
}

/**
 * Two Kustomizations under flux-system: `apps` (postBuild from ConfigMap app-settings) builds
 * apps/, `tools` (no postBuild) builds tools/. Every Job file has a finding of its own.
 */
const BASE: Record<string, string> = {
  '.flux-job-guard.yaml': contract(600),
  'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
  'clusters/home/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: app-settings}\n'),
  'clusters/home/tools.yaml': kustomization('tools', './tools', '', '10m'),
  'clusters/home/settings.yaml': settings('  GREETING: hello\n'),
  // Uses ${GREETING} (defined), and sets no TTL.
  'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING}'),
  'apps/job-b.yaml': job('job-b', '', 'date'),
  'tools/job-t.yaml': job('job-t', '', 'date'),
  'tools/job-u.yaml': job('job-u', TTL_600, 'date'),
};

/** The `git` of the repository in `dir`, with an identity of its own (no global config is read for it). */
function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=fjg test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], { encoding: 'utf8', stdio: 'pipe' });
}

/** Edits the working tree of `dir`: each path gets its text, or is deleted (null). */
function writeChange(dir: string, change: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(change)) {
    if (text === null) rmSync(join(dir, path));
    else {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }
}

/** BASE committed in a new repository; `change` then edits the working tree (a text, or null to delete). */
function changedRepo(change: Record<string, string | null>, base: Record<string, string> = BASE): string {
  const dir = tempRepo('fjg-changed-', base);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  writeChange(dir, change);
  return dir;
}

function cli(args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'audit', ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function report(dir: string, ...extra: string[]): { status: number | null; json: JsonReport } {
  const run = cli([dir, '--format', 'json', ...extra]);
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return { status: run.status, json: JSON.parse(run.stdout) as JsonReport };
}

const filesOf = (findings: JsonFinding[]) => [...new Set(findings.map((f) => f.file))].sort();

/**
 * Runs the full audit and the one since HEAD; checks the second is exactly the first on `affected`,
 * that `mustShow` (an affected file that did not change itself) has findings there, and that
 * `control` has findings in the full audit and none in the restricted one.
 */
function check(dir: string, affected: string[], mustShow: string, control: string): void {
  const full = report(dir).json.findings;
  const since = report(dir, '--changed-since', 'HEAD');
  assert.deepEqual(
    since.json.findings,
    full.filter((f) => affected.includes(f.file)),
  );
  assert.ok(filesOf(since.json.findings).includes(mustShow), `${mustShow} is affected and has findings: ${filesOf(since.json.findings).join(', ')}`);
  assert.ok(filesOf(full).includes(control), `the control ${control} has findings in the full audit`);
  assert.ok(!filesOf(since.json.findings).includes(control), `${control} cannot be affected, yet it is reported`);
  const errors = since.json.findings.filter((f) => f.severity === 'error').length;
  assert.equal(since.json.summary.errors, errors);
  assert.equal(since.status, errors > 0 ? 1 : 0);
}

const APPS = ['apps/job-a.yaml', 'apps/job-b.yaml', 'clusters/home/apps.yaml'];
const TOOLS = ['tools/job-t.yaml', 'tools/job-u.yaml', 'clusters/home/tools.yaml'];
/** What flux-system builds: the cluster folder. */
const CLUSTER = ['clusters/home/flux-system/gotk-sync.yaml', 'clusters/home/apps.yaml', 'clusters/home/tools.yaml', 'clusters/home/settings.yaml'];

describe('audit --changed-since REV', () => {
  test("a changed Job file: its Kustomization's files, not another Kustomization's", () => {
    const dir = changedRepo({ 'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING} ${MISSING}') });
    check(dir, APPS, 'apps/job-b.yaml', 'tools/job-t.yaml');
  });

  test('an untracked file counts as changed', () => {
    const dir = changedRepo({ 'tools/job-new.yaml': job('job-new', '', 'date') });
    check(dir, [...TOOLS, 'tools/job-new.yaml'], 'tools/job-t.yaml', 'apps/job-b.yaml');
  });

  test('a changed Kustomization: every file it builds (and what builds its definition)', () => {
    const dir = changedRepo({ 'clusters/home/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: app-settings}\n', '2h') });
    check(dir, [...APPS, ...CLUSTER, '.flux-job-guard.yaml'], 'apps/job-b.yaml', 'tools/job-t.yaml');
  });

  test('in worker threads (the files read and summarised there): the same report as in one thread', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    const [one, two] = [cli([dir, '--format', 'json', '--changed-since', 'HEAD', '--threads', '1']), cli([dir, '--format', 'json', '--changed-since', 'HEAD', '--threads', '2'])];
    assert.equal(two.stderr, '', 'no worker failed');
    assert.equal(two.stdout, one.stdout);
    assert.equal(two.status, one.status);
    assert.ok((JSON.parse(two.stdout) as JsonReport).findings.length >= 3, `findings to compare: ${two.stdout}`);
    // the control: the workers did the reading (the first, made to exit, hands its files back to the main thread)
    const crashed = spawnSync(
      process.execPath,
      ['--require', join(__dirname, 'helpers', 'crash-first-worker.js'), CLI, 'audit', dir, '--format', 'json', '--changed-since', 'HEAD', '--threads', '2'],
      { encoding: 'utf8' },
    );
    assert.match(crashed.stderr, /audit worker 0 failed/);
    assert.equal(crashed.stdout, one.stdout);
  });

  test('a changed variable source ConfigMap: the files of the Kustomizations that substitute from it', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    const since = report(dir, '--changed-since', 'HEAD').json.findings;
    // The name job-a used is gone from the source: the new finding is reported in the file that did not change.
    assert.ok(
      since.some((f) => f.file === 'apps/job-a.yaml' && f.rule === 'flux-substitution-undefined'),
      JSON.stringify(since),
    );
    check(dir, [...APPS, ...CLUSTER, '.flux-job-guard.yaml'], 'apps/job-b.yaml', 'tools/job-t.yaml');
  });

  test('a name a sibling now defines reaches the files built without substitution that write it', () => {
    // tools substitutes nothing: ${OTHER} in a ConfigMap value reaches the cluster as written once apps defines OTHER.
    const sibling = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tool-mode\ndata:\n  mode: ${OTHER}\n';
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  GREETING: hello\n  OTHER: x\n') }, { ...BASE, 'tools/mode.yaml': sibling });
    const since = report(dir, '--changed-since', 'HEAD').json.findings;
    assert.ok(
      since.some((f) => f.file === 'tools/mode.yaml' && f.rule === 'flux-substitution-no-postbuild'),
      JSON.stringify(since),
    );
    check(dir, [...APPS, ...CLUSTER, '.flux-job-guard.yaml', 'tools/mode.yaml'], 'tools/mode.yaml', 'tools/job-t.yaml');
  });

  test('a changed contract entry: the contract file and the Job it names, not the other Jobs', () => {
    const dir = changedRepo({ '.flux-job-guard.yaml': contract(300) });
    check(dir, ['.flux-job-guard.yaml', 'tools/job-u.yaml'], 'tools/job-u.yaml', 'tools/job-t.yaml');
  });

  test('a deleted file: the other files of the Kustomization that built it', () => {
    const dir = changedRepo({ 'apps/job-b.yaml': null });
    check(dir, APPS, 'apps/job-a.yaml', 'tools/job-t.yaml');
  });

  test('nothing changed: no finding, exit 0, though the full audit fails', () => {
    const dir = changedRepo({});
    assert.equal(cli([dir, '--format', 'json']).status, 1);
    const since = report(dir, '--changed-since', 'HEAD');
    assert.deepEqual(since.json.findings, []);
    assert.equal(since.status, 0);
  });

  test('a clean change exits 0 even where other files have errors', () => {
    const dir = changedRepo({ 'tools/job-t.yaml': job('job-t', TTL, 'date'), 'tools/job-u.yaml': job('job-u', TTL, 'date'), '.flux-job-guard.yaml': 'ttl:\n  required: 86400\n' });
    const since = report(dir, '--changed-since', 'HEAD');
    assert.deepEqual(since.json.findings, [], JSON.stringify(since.json.findings));
    assert.equal(since.status, 0);
  });

  test("a revision git cannot resolve: exit 2, naming it and git's message", () => {
    const dir = changedRepo({});
    const run = cli([dir, '--changed-since', 'no-such-branch']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /"no-such-branch"/);
    assert.match(run.stderr, /git: fatal: /);
    assert.equal(run.stdout, '');
  });

  test('a revision that looks like an option is not read as one', () => {
    const run = cli([changedRepo({}), '--changed-since=--output=/dev/null']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /"--output=\/dev\/null"/);
  });

  test('not a git repository: exit 2 and says so', () => {
    const dir = tempDir('fjg-not-git-');
    writeFileSync(join(dir, 'job.yaml'), job('x', '', 'date'));
    const run = cli([dir, '--changed-since', 'HEAD']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /needs a git repository/);
  });
});

describe('audit --staged (the pre-commit hook)', () => {
  /** BASE committed; `staged` written and added to the index; `unstaged` written after (a text, or null to delete), not added. */
  function stagedRepo(staged: Record<string, string>, unstaged: Record<string, string | null>): string {
    const dir = changedRepo(staged);
    git(dir, 'add', '-A');
    writeChange(dir, unstaged);
    return dir;
  }

  /** The full audit of what the index holds: a copy of the repository with its unstaged edits and untracked files dropped. */
  function indexAudit(dir: string): JsonFinding[] {
    const copy = tempDir('fjg-index-');
    cpSync(dir, copy, { recursive: true });
    git(copy, 'checkout', '--', '.');
    git(copy, 'clean', '-fdq');
    return report(copy).json.findings;
  }

  test("the index's changes, as the commit will hold them: unstaged edits and untracked files are not what is audited", () => {
    const dir = stagedRepo(
      { 'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING} ${MISSING}') },
      // unstaged: job-b's TTL is set in the working tree only; an untracked Job in tools/; job-u deleted from the working tree only
      { 'apps/job-b.yaml': job('job-b', TTL, 'date'), 'tools/job-new.yaml': job('job-new', '', 'date'), 'tools/job-u.yaml': null },
    );
    const staged = report(dir, '--staged');
    assert.deepEqual(
      staged.json.findings,
      indexAudit(dir).filter((f) => APPS.includes(f.file)),
    );
    // job-b keeps the finding the index's text has; the working tree's fix is not committed
    assert.ok(
      staged.json.findings.some((f) => f.file === 'apps/job-b.yaml' && f.rule === 'ttl-missing'),
      'job-b as the index holds it',
    );
    assert.ok(filesOf(staged.json.findings).includes('apps/job-a.yaml'));
    assert.ok(!filesOf(staged.json.findings).some((file) => file.startsWith('tools/')), 'nothing of tools/ is staged');
    // negative control: --changed-since HEAD audits the working tree (job-b fixed, the untracked Job reported)
    const since = report(dir, '--changed-since', 'HEAD').json.findings;
    assert.ok(!since.some((f) => f.file === 'apps/job-b.yaml' && f.rule === 'ttl-missing'));
    assert.ok(filesOf(since).includes('tools/job-new.yaml'));
  });

  test("a file read from the index is decoded as the disk's files are: a byte order mark is not text (ranges on the first line)", () => {
    // One line, so its findings are on the line the mark would shift.
    const oneLine = '\ufeff{apiVersion: batch/v1, kind: Job, metadata: {name: job-c}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: main, image: alpine:3.20}]}}}}\n';
    const dir = stagedRepo({ 'apps/job-c.yaml': oneLine }, { 'apps/job-c.yaml': `${oneLine}# an unstaged comment\n` });
    const staged = report(dir, '--staged').json.findings.filter((f) => f.file === 'apps/job-c.yaml');
    assert.ok(
      staged.some((f) => f.line === 1 && f.column > 1),
      JSON.stringify(staged),
    );
    assert.deepEqual(
      staged,
      indexAudit(dir).filter((f) => f.file === 'apps/job-c.yaml'),
    );
  });

  test('nothing staged: no finding, exit 0, whatever the working tree holds', () => {
    const dir = stagedRepo({}, { 'apps/job-a.yaml': job('job-a', '', 'echo ${MISSING}') });
    const staged = report(dir, '--staged');
    assert.deepEqual(staged.json.findings, []);
    assert.equal(staged.status, 0);
  });

  test('with --changed-since: a usage error; outside git: exit 2 and says so', () => {
    const both = cli([changedRepo({}), '--staged', '--changed-since', 'HEAD']);
    assert.equal(both.status, 2);
    assert.match(both.stderr, /--staged and --changed-since cannot be combined/);
    const dir = tempDir('fjg-not-git-');
    writeFileSync(join(dir, 'job.yaml'), job('x', '', 'date'));
    const outside = cli([dir, '--staged']);
    assert.equal(outside.status, 2);
    assert.match(outside.stderr, /--staged needs a git repository/);
  });
});

describe('audit --changed-since with --cache (summaries kept between runs)', () => {
  const CACHE = join('.flux-job-guard-cache', 'summaries-1.bin');
  const since = (dir: string, ...extra: string[]) => cli([dir, '--format', 'json', '--changed-since', 'HEAD', ...extra]);

  test('cold and warm, in one thread and in workers: the report of a run without it; the cache is ignored by git', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    const plain = since(dir);
    assert.ok((JSON.parse(plain.stdout) as JsonReport).findings.length >= 3, plain.stdout);
    for (const extra of [
      ['--threads', '1'],
      ['--threads', '2'],
      ['--threads', '1'],
      ['--threads', '2'],
    ]) {
      const cached = since(dir, '--cache', ...extra);
      assert.equal(cached.stderr, '', `no worker failed, the cache was written (${extra.join(' ')})`);
      assert.equal(cached.stdout, plain.stdout, extra.join(' '));
      assert.equal(cached.status, plain.status);
    }
    assert.ok(existsSync(join(dir, CACHE)), 'the cache is written in the audited folder');
    assert.equal(git(dir, 'status', '--porcelain', '--untracked-files=all'), ' M clusters/home/settings.yaml\n', 'the cache folder is ignored');
  });

  test('a warm run makes no summary (the cache is not rewritten); a file changed since is summarised again', () => {
    const dir = changedRepo({ 'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING} ${MISSING}') });
    since(dir, '--cache');
    const written = statSync(join(dir, CACHE)).mtimeMs;
    const bytes = readFileSync(join(dir, CACHE));
    const warm = since(dir, '--cache');
    assert.equal(warm.stderr, '');
    assert.ok(readFileSync(join(dir, CACHE)).equals(bytes) && statSync(join(dir, CACHE)).mtimeMs === written, 'every summary came from the cache');
    const undefinedInJobA = (run: { stdout: string }) => (JSON.parse(run.stdout) as JsonReport).findings.some((f) => f.file === 'apps/job-a.yaml' && f.rule === 'flux-substitution-undefined');
    assert.ok(undefinedInJobA(warm), `apps substitutes: \${MISSING} is undefined in job-a: ${warm.stdout}`);
    // apps no longer substitutes: a summary of the old apps.yaml would keep \${MISSING} undefined in job-a.
    writeChange(dir, { 'clusters/home/apps.yaml': kustomization('apps', './apps', '') });
    const fresh = since(dir, '--cache', '--threads', '2');
    assert.equal(fresh.stdout, since(dir).stdout);
    assert.ok(!undefinedInJobA(fresh), `job-a as the new apps.yaml builds it: ${fresh.stdout}`);
    assert.ok(!readFileSync(join(dir, CACHE)).equals(bytes), 'the new summary is kept');
  });

  test('a damaged cache gives the report of a run without it, and is written again', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    since(dir, '--cache');
    const bytes = readFileSync(join(dir, CACHE));
    bytes.fill(0xff, 4 + bytes.readUInt32LE(0)); // every summary's bytes, the header whole
    writeFileSync(join(dir, CACHE), bytes);
    for (const threads of ['1', '2']) {
      const run = since(dir, '--cache', '--threads', threads);
      assert.equal(run.stderr, '');
      assert.equal(run.stdout, since(dir).stdout);
    }
    assert.ok(!readFileSync(join(dir, CACHE)).equals(bytes), 'the summaries were made again and kept');
  });

  test('a cache folder that came with the repository (committed) or is a symbolic link is neither read nor written', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    since(dir, '--cache');
    git(dir, 'add', '-f', '.flux-job-guard-cache');
    git(dir, 'commit', '-q', '-m', 'a cache committed');
    const bytes = readFileSync(join(dir, CACHE));
    const committed = since(dir, '--cache');
    assert.equal(
      committed.stderr,
      `flux-job-guard: git tracks files in the cache folder ${join(dir, '.flux-job-guard-cache')} (they came with the repository, not from an earlier run): the cache is neither read nor written\n`,
    );
    assert.equal(committed.stdout, since(dir).stdout);
    assert.ok(readFileSync(join(dir, CACHE)).equals(bytes), 'the committed file is left as it is');

    const linked = changedRepo({ 'apps/job-b.yaml': null });
    const target = tempDir('fjg-cache-target-');
    symlinkSync(target, join(linked, '.flux-job-guard-cache'));
    const run = since(linked, '--cache');
    assert.match(run.stderr, /^flux-job-guard: the cache folder .* is a symbolic link: the cache is neither read nor written\n$/);
    assert.equal(run.stdout, since(linked).stdout);
    assert.deepEqual(readdirSync(target), [], 'nothing written where the link points');
  });

  test('--staged with it: the report of a run without it, cold and warm', () => {
    const dir = changedRepo({ 'clusters/home/settings.yaml': settings('  OTHER: x\n') });
    git(dir, 'add', '-A');
    writeChange(dir, { 'apps/job-b.yaml': job('job-b', TTL, 'date') }); // unstaged: not what is audited
    const plain = cli([dir, '--format', 'json', '--staged']);
    assert.ok((JSON.parse(plain.stdout) as JsonReport).findings.length >= 3, plain.stdout);
    for (const run of ['cold', 'warm']) assert.equal(cli([dir, '--format', 'json', '--staged', '--cache']).stdout, plain.stdout, run);
    assert.ok(existsSync(join(dir, CACHE)));
  });

  test('--cache-location puts it elsewhere (and implies --cache); the whole audit neither reads nor writes it', () => {
    const dir = changedRepo({ 'apps/job-b.yaml': null });
    const elsewhere = join(tempDir('fjg-cache-'), 'kept');
    assert.equal(since(dir, `--cache-location=${elsewhere}`).stdout, since(dir).stdout);
    assert.ok(existsSync(join(elsewhere, 'summaries-1.bin')));
    assert.ok(!existsSync(join(dir, '.flux-job-guard-cache')));
    const whole = cli([dir, '--cache']);
    assert.equal(whole.status, 1);
    assert.equal(whole.stderr, 'flux-job-guard: --cache applies to --changed-since and --staged; the whole audit neither reads nor writes it\n');
    assert.ok(!existsSync(join(dir, '.flux-job-guard-cache')), 'the whole audit wrote a cache');
    const empty = cli([dir, '--cache-location=']);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /--cache-location needs a folder/);
  });

  test('a fresh clone with the cache copied in (a CI job that restores it) is warm: nothing is summarised again, the report is the same', () => {
    const dir = changedRepo({ 'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING} ${MISSING}') });
    git(dir, 'commit', '-q', '-am', 'the pull request');
    since(dir, '--cache'); // HEAD: nothing changed
    const ran = cli([dir, '--format', 'json', '--changed-since', 'HEAD~1', '--cache']);
    const clone = join(tempDir('fjg-clone-'), 'repo');
    execFileSync('git', ['clone', '-q', dir, clone]);
    cpSync(join(dir, '.flux-job-guard-cache'), join(clone, '.flux-job-guard-cache'), { recursive: true });
    const bytes = readFileSync(join(clone, CACHE));
    const warm = cli([clone, '--format', 'json', '--changed-since', 'HEAD~1', '--cache']);
    assert.equal(warm.stderr, '');
    assert.equal(warm.stdout, cli([clone, '--format', 'json', '--changed-since', 'HEAD~1']).stdout);
    assert.equal(warm.stdout, ran.stdout, 'the clone reports what the folder that wrote the cache reported');
    assert.ok(readFileSync(join(clone, CACHE)).equals(bytes), 'every summary came from the cache: it is not rewritten');
  });

  // The cache's keys are git's blob ids: a file git reports unchanged is not read where the cache
  // holds its blob's summary. Where the working tree's bytes may not be the blob's, it must be read.
  describe('a file git reports unchanged whose bytes are not its blob is read', () => {
    /** job-a uses ${GREETING}: the settings as committed define it, the working tree's do not. */
    const warmedUp = () => {
      const dir = changedRepo({ 'apps/job-a.yaml': job('job-a', '', 'echo ${GREETING} and more') });
      since(dir, '--cache'); // the settings' summary kept under their blob id
      return dir;
    };
    const greetingUndefined = (stdout: string) => (JSON.parse(stdout) as JsonReport).findings.some((f) => f.file === 'apps/job-a.yaml' && f.rule === 'flux-substitution-undefined');
    const sameAsUncached = (dir: string) => {
      assert.equal(git(dir, 'diff', '--name-only', 'HEAD', '--', 'clusters/home/settings.yaml'), '', 'git reports the settings unchanged');
      const plain = since(dir);
      assert.ok(greetingUndefined(plain.stdout), `the control: the working tree's settings leave GREETING undefined: ${plain.stdout}`);
      for (const threads of ['1', '2']) assert.equal(since(dir, '--cache', '--threads', threads).stdout, plain.stdout, `threads ${threads}`);
    };

    test('a clean/smudge filter rewrites it on checkout', () => {
      const dir = warmedUp();
      git(dir, 'config', 'filter.rename.smudge', 'sed s/GREETING/SALUTE/');
      git(dir, 'config', 'filter.rename.clean', 'sed s/SALUTE/GREETING/');
      writeFileSync(join(dir, '.git', 'info', 'attributes'), 'clusters/home/settings.yaml filter=rename\n');
      rmSync(join(dir, 'clusters/home/settings.yaml'));
      git(dir, 'checkout', '--', 'clusters/home/settings.yaml');
      assert.match(readFileSync(join(dir, 'clusters/home/settings.yaml'), 'utf8'), /SALUTE/);
      sameAsUncached(dir);
    });

    test('git is told to assume it unchanged', () => {
      const dir = warmedUp();
      git(dir, 'update-index', '--assume-unchanged', 'clusters/home/settings.yaml');
      writeChange(dir, { 'clusters/home/settings.yaml': settings('  SALUTE: hello\n') });
      sameAsUncached(dir);
    });
  });

  test('a cache that cannot be written is said once, and the report is still whole', () => {
    const dir = changedRepo({ 'apps/job-b.yaml': null });
    const blocked = join(tempDir('fjg-cache-'), 'file');
    writeFileSync(blocked, 'not a folder');
    const run = since(dir, '--cache-location', join(blocked, 'cache'));
    assert.equal(run.stdout, since(dir).stdout);
    assert.match(run.stderr, /^flux-job-guard: cannot write the cache .*; the next run summarises every file again\n$/);
  });
});
