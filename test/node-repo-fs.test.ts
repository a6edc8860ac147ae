// NodeRepoFs never reads outside its root, whether it resolves every path at
// every read (the server) or each folder once (one audit: the CLI, workers).
// Both modes must answer every read alike, over links that stay inside, lead
// outside, dangle or loop.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { NodeRepoFs } from '../server/src/node/node-repo-fs';

const work = mkdtempSync(join(tmpdir(), 'fjg-repofs-'));
after(() => rmSync(work, { recursive: true, force: true }));

const repo = join(work, 'repo');
const outside = join(work, 'outside');
mkdirSync(join(repo, 'apps'), { recursive: true });
mkdirSync(join(repo, 'links'));
mkdirSync(outside);
writeFileSync(join(repo, 'apps', 'job.yaml'), 'kind: Job\n');
writeFileSync(join(outside, 'secret.yaml'), 'password: hunter2\n');
symlinkSync(outside, join(repo, 'links', 'outside-dir'));
symlinkSync(join(outside, 'secret.yaml'), join(repo, 'links', 'outside.yaml'));
symlinkSync('../apps', join(repo, 'links', 'apps-dir'));
symlinkSync('../apps/job.yaml', join(repo, 'links', 'job.yaml'));
symlinkSync('missing.yaml', join(repo, 'links', 'dangling.yaml'));
symlinkSync('loop.yaml', join(repo, 'links', 'loop.yaml'));
mkdirSync(join(repo, 'apps', 'deep'));
writeFileSync(join(repo, 'apps', 'deep', 'job.yaml'), 'kind: Job\n');
mkdirSync(join(outside, 'deep'));
writeFileSync(join(outside, 'deep', 'secret.yaml'), 'password: hunter2\n');
// A named pipe: a read that opened it and waited for a writer would never end.
const fifo = spawnSync('mkfifo', [join(repo, 'apps', 'pipe.yaml')]).status === 0;

const EXPECTED: Record<string, string> = {
  'apps/job.yaml': 'text',
  'links/apps-dir/job.yaml': 'text',
  'links/job.yaml': 'text',
  'links/outside-dir/secret.yaml': 'skipped',
  'links/outside.yaml': 'skipped',
  'links/dangling.yaml': 'missing',
  'links/loop.yaml': 'missing',
  '../outside/secret.yaml': 'missing',
  'apps/none.yaml': 'missing',
  'apps/deep/job.yaml': 'text',
  'links/apps-dir/deep/job.yaml': 'text',
  'links/outside-dir/deep/secret.yaml': 'skipped',
  'apps/deep': 'missing',
  'apps/job.yaml/x.yaml': 'missing',
  ...(fifo ? { 'apps/pipe.yaml': 'missing' } : {}),
};

for (const stableFolders of [false, true]) {
  test(`reads ${stableFolders ? 'with each folder resolved once' : 'resolving every path'}: inside links followed, nothing outside read, no wait on a named pipe`, async (t) => {
    if (!fifo) t.diagnostic('mkfifo is not available here: the named pipe is not checked');
    const fs = new NodeRepoFs(repo, undefined, stableFolders);
    const kinds: Record<string, string> = {};
    for (const path of Object.keys(EXPECTED)) {
      const read = await fs.read(path);
      kinds[path] = read.kind;
      if (read.kind === 'text') assert.equal(read.text, 'kind: Job\n', path);
    }
    assert.deepEqual(kinds, EXPECTED);
  });
}
