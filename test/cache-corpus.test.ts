// `--changed-since --cache` on a real repository (the largest of ../shared/corpus, made a git
// repository here): with the cache written before a change, the report after it, in workers and in
// one thread, is the report without the cache, byte for byte. A change that tells the model nothing
// new (a comment) is audited from the kept model: nothing is summarised or rewritten. One that alters
// it builds the model: the first run keeps the changed files' new summaries and the new model, and
// the next leaves the cache as it was.
// changed-since.test.ts holds the cache to the same on small repositories built to show each case;
// this is its check on what nobody here wrote.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempRepos, tempDir } from './helpers/temp-repo';

after(removeTempRepos);

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const CACHE = join('.flux-job-guard-cache', 'summaries-1.bin');
const MODEL = join('.flux-job-guard-cache', 'model-1.bin');

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=fjg test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], { encoding: 'utf8', stdio: 'pipe' });
}

function since(dir: string, ...extra: string[]): string {
  const run = spawnSync(process.execPath, [CLI, 'audit', dir, '--format', 'json', '--changed-since', 'HEAD', ...extra], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  assert.equal(run.stderr, '');
  return run.stdout;
}

/** The first tracked file (sorted) whose text `matches`. */
function firstFile(dir: string, matches: RegExp): string | undefined {
  return git(dir, 'ls-files', '*.yaml')
    .split('\n')
    .filter((path) => path !== '')
    .sort()
    .find((path) => matches.test(readFileSync(join(dir, path), 'utf8')));
}

/** Changes made to the working tree of a repository (returns what it changed), and whether the model before it stands. */
const CHANGES: Record<string, [(dir: string) => string[], boolean]> = {
  'a comment added to a Job': [
    (dir) => {
      const job = firstFile(dir, /^kind: Job\s*$/m);
      if (!job) return [];
      writeFileSync(join(dir, job), `${readFileSync(join(dir, job), 'utf8')}# a comment added\n`);
      return [job];
    },
    true,
  ],
  "a Flux Kustomization's path moved and a Job deleted": [
    (dir) => {
      const ks = firstFile(dir, /kustomize\.toolkit\.fluxcd\.io\/[\s\S]*^\s*path:\s*\S+/m);
      const job = firstFile(dir, /^kind: Job\s*$/m);
      if (!ks || !job) return [];
      writeFileSync(join(dir, ks), readFileSync(join(dir, ks), 'utf8').replace(/^(\s*path:\s*)(\S+)/m, '$1$2-moved'));
      rmSync(join(dir, job));
      return [ks, job];
    },
    false,
  ],
};

describe('audit --changed-since --cache on a real repository', () => {
  const name = 'sulibot__home-ops';
  const source = join(CORPUS, name);
  for (const [what, [change, modelStands]] of Object.entries(CHANGES)) {
    test(`${name}: ${what}`, { skip: existsSync(source) ? false : `${source} is not here` }, () => {
      const dir = join(tempDir('fjg-cache-corpus-'), name);
      cpSync(source, dir, { recursive: true });
      git(dir, 'init', '-q');
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', 'base');
      since(dir, '--cache'); // the summaries and the model of the repository before the change
      const kept = () => [readFileSync(join(dir, CACHE)), readFileSync(join(dir, MODEL))];
      const before = kept();
      assert.ok(change(dir).length > 0, `${name} has what the change needs`);
      const plain = since(dir);
      assert.ok((JSON.parse(plain) as { findings: unknown[] }).findings.length > 0, `findings to compare: ${plain.slice(0, 500)}`);
      assert.equal(since(dir, '--cache', '--threads', '2'), plain, 'warm, two threads');
      const after = kept();
      if (modelStands) assert.ok(after[0].equals(before[0]) && after[1].equals(before[1]), 'the kept model was taken: nothing summarised, nothing rewritten');
      else assert.ok(!after[0].equals(before[0]) && !after[1].equals(before[1]), "the changed files' new summaries and the new model are kept");
      assert.equal(since(dir, '--cache', '--threads', '1'), plain, 'warm, one thread');
      const last = kept();
      assert.ok(last[0].equals(after[0]) && last[1].equals(after[1]), 'then the cache holds the same bytes: every summary came from it, and the model kept is the one kept before');
    });
  }
});
