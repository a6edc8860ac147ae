// The keys of the --cache's summaries are git's blob ids (server/src/node/git-blob-keys.ts): a file
// git reports unchanged is not read where the cache holds the summary of its blob. These tests hold
// the two halves to git itself: a text's key is `git hash-object` of its file, and the keys git is
// trusted for leave out every file whose bytes may not be the blob's. The CLI's reports with such
// a cache are compared with uncached ones in changed-since.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { blobKeysAt, textKey, unchangedSince } from '../server/src/node/git-blob-keys';
import { SummaryCache } from '../server/src/node/summary-cache';
import { auditChanged, type ChangedAudit } from '../server/src/engine/pipeline/audit-changed';
import { memoryFs } from './helpers/memory-fs';
import { removeTempRepos, tempDir, tempRepo } from './helpers/temp-repo';
import type { RepoFs } from '../server/src/engine/base/repo-fs';

after(removeTempRepos);

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=fjg test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], { encoding: 'utf8', stdio: 'pipe' });
}

/** A new repository with `files` committed. */
function committed(files: Record<string, string>): string {
  const dir = tempRepo('fjg-blob-', files);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

describe('textKey', () => {
  test("is git's blob id of the file that holds the text", () => {
    const dir = tempDir('fjg-key-');
    for (const text of ['', 'a: 1\n', 'name: café — ünïcode ✓\r\nnext: 😀\n', 'no newline at the end']) {
      writeFileSync(join(dir, 'f'), text);
      assert.equal(textKey(text), git(dir, 'hash-object', '--no-filters', 'f').trim(), JSON.stringify(text));
    }
  });

  test('a text that no file reads back as (a byte order mark left at its start, NUL bytes where reading looks) gets a key no blob id equals', () => {
    const dir = tempDir('fjg-key-');
    for (const text of ['\ufeffa: 1\n', 'a: 1\n\0b\n']) {
      writeFileSync(join(dir, 'f'), text);
      const key = textKey(text);
      assert.notEqual(key, git(dir, 'hash-object', '--no-filters', 'f').trim());
      assert.match(key, /^sha256:/);
      assert.equal(key, textKey(text), 'the same text, the same key');
    }
    assert.equal(textKey(`${'x'.repeat(9000)}\0`).startsWith('sha256:'), false, 'a NUL past the bytes reading looks at is text');
  });
});

/** The keys the CLI trusts: those of the files below `root` that did not change since `rev` (none of `differ`). */
async function unchangedBlobKeys(root: string, rev: string, differ: ReadonlySet<string>, maxFileSize: number, platform?: NodeJS.Platform): Promise<Map<string, string>> {
  const at = await blobKeysAt(root, rev, maxFileSize, platform);
  return unchangedSince(at, at?.revision ?? '', differ);
}

describe('blobKeysAt and unchangedSince', () => {
  const FILES = {
    'plain.yaml': 'a: 1\n',
    'sub/deep.yaml': 'b: 2\n',
    'changed.yaml': 'c: 3\n',
    'assumed.yaml': 'd: 4\n',
    'filtered.yaml': 'e: 5\n',
    'crlf.yaml': 'f: 6\n',
    'ident.yaml': 'g: $Id$\n',
    'big.yaml': `h: ${'x'.repeat(200)}\n`,
  };

  test('every file git knows is its blob, and none other: not one that changed, hides a change, converts on checkout, is a link or is too large', async () => {
    const dir = committed(FILES);
    symlinkSync('plain.yaml', join(dir, 'link.yaml'));
    git(dir, 'add', 'link.yaml');
    git(dir, 'commit', '-q', '-m', 'a link');
    git(dir, 'update-index', '--assume-unchanged', 'assumed.yaml');
    mkdirSync(join(dir, '.git', 'info'), { recursive: true });
    writeFileSync(join(dir, '.git', 'info', 'attributes'), 'filtered.yaml filter=swap\ncrlf.yaml eol=crlf\nident.yaml ident\n');
    const keys = await unchangedBlobKeys(dir, git(dir, 'rev-parse', 'HEAD').trim(), new Set(['changed.yaml']), 100);
    assert.deepEqual([...keys.keys()].sort(), ['plain.yaml', 'sub/deep.yaml']);
    assert.equal(keys.get('plain.yaml'), textKey(FILES['plain.yaml']));
    assert.equal(keys.get('sub/deep.yaml'), git(dir, 'rev-parse', 'HEAD:sub/deep.yaml').trim());

    // Below a subfolder: its paths, relative to it.
    assert.deepEqual([...(await unchangedBlobKeys(join(dir, 'sub'), 'HEAD', new Set(), 100)).keys()], ['deep.yaml']);
  });

  test('none where git converts every checkout (core.autocrlf, core.eol=crlf), or cannot resolve the revision', async () => {
    const dir = committed(FILES);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    assert.ok((await unchangedBlobKeys(dir, head, new Set(), 1000)).size > 0, 'the control: keys without the setting');
    for (const [name, value] of [
      ['core.autocrlf', 'true'],
      ['core.eol', 'crlf'],
    ]) {
      git(dir, 'config', name, value);
      assert.equal((await unchangedBlobKeys(dir, head, new Set(), 1000)).size, 0, `${name}=${value}`);
      git(dir, 'config', '--unset', name);
    }
    git(dir, 'config', 'core.autocrlf', 'input'); // converts on commit only
    assert.ok((await unchangedBlobKeys(dir, head, new Set(), 1000)).size > 0, 'core.autocrlf=input');
    assert.equal((await unchangedBlobKeys(dir, 'no-such-revision', new Set(), 1000)).size, 0);
  });
  test('asked before the changes are known: the keys count only for the revision the changes were worked out against', async () => {
    const dir = committed({ 'a.yaml': 'a: 1\n', 'b.yaml': 'b: 1\n' });
    const first = git(dir, 'rev-parse', 'HEAD').trim();
    const at = await blobKeysAt(dir, 'HEAD', 1000);
    assert.equal(at?.revision, first);
    assert.deepEqual([...unchangedSince(at, first, ['b.yaml']).keys()], ['a.yaml']);
    writeFileSync(join(dir, 'a.yaml'), 'a: 2\n');
    git(dir, 'commit', '-q', '-am', 'a commit made meanwhile');
    const second = git(dir, 'rev-parse', 'HEAD').trim();
    assert.equal(unchangedSince(at, second, []).size, 0, "the keys of HEAD before the commit are not the new HEAD's");
    assert.equal(await blobKeysAt(dir, 'no-such-revision', 1000), null);
  });

  test("a `text` attribute converts where git's native line ending is CRLF (Windows), unless core.eol=lf", async () => {
    const dir = committed({ 'a.yaml': 'a: 1\n', 'b.yaml': 'b: 1\n' });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(join(dir, '.git', 'info', 'attributes'), 'a.yaml text\n');
    const keysOn = async (platform: NodeJS.Platform) => [...(await unchangedBlobKeys(dir, head, new Set(), 1000, platform)).keys()].sort();
    assert.deepEqual(await keysOn('linux'), ['a.yaml', 'b.yaml']);
    assert.deepEqual(await keysOn('win32'), ['b.yaml']);
    git(dir, 'config', 'core.eol', 'lf');
    assert.deepEqual(await keysOn('win32'), ['a.yaml', 'b.yaml']);
  });
});

describe('the changed-only audit with summaries kept by blob id', () => {
  const job = (name: string, ttl: string) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n${ttl}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: alpine:3.20\n          command: ["date"]\n`;
  const BEFORE: Record<string, string> = {
    'apps/job.yaml': job('job', ''),
    'apps/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  A: b\n',
    'apps/other-job.yaml': job('other', '  # converges: it only reads\n  ttlSecondsAfterFinished: 86400\n'),
    // Nothing applies it: its Job is not counted.
    'apps/unlisted-job.yaml': job('unlisted', ''),
    'apps/kustomization.yaml': 'resources:\n  - job.yaml\n  - other-job.yaml\n  - config.yaml\n',
  };
  const NOW = { ...BEFORE, 'apps/job.yaml': job('job', '  # converges: it writes the same report again\n  ttlSecondsAfterFinished: 86400\n') };

  /** `files` as a repository whose reads are counted, by path. */
  function counted(files: Record<string, string>): { fs: RepoFs; reads: Map<string, number> } {
    const inner = memoryFs(files);
    const reads = new Map<string, number>();
    return {
      reads,
      fs: {
        listFiles: () => inner.listFiles(),
        read: (path) => {
          reads.set(path, (reads.get(path) ?? 0) + 1);
          return inner.read(path);
        },
      },
    };
  }

  const run = (fs: RepoFs, store?: SummaryCache) =>
    auditChanged({ fs, files: Object.keys(NOW).sort() }, new Set(['apps/job.yaml']), () => Promise.resolve({ fs: memoryFs(BEFORE), files: Object.keys(BEFORE).sort() }), { summaryStore: store });

  test('a file whose kept summary is its blob is not read, nor a Job file the change cannot affect; the report is the one without the cache', async () => {
    const folder = join(tempDir('fjg-blob-cache-'), 'cache');
    const plain = await run(memoryFs(NOW));
    const cold = SummaryCache.open(folder, 'test-engine');
    const first = counted(NOW);
    assert.deepEqual(await run(first.fs, cold), plain);
    cold.save();
    assert.ok(first.reads.has('apps/config.yaml'), 'the control: a run that does not know the blob reads the file');
    assert.ok(first.reads.has('apps/other-job.yaml'), 'and reads a Job file to count its Jobs');
    assert.deepEqual(plain?.summary.jobs, 2, 'the Jobs applied are counted, the unlisted one is not');

    const warm = SummaryCache.open(folder, 'test-engine');
    const unchanged = new Map(Object.entries(NOW).flatMap(([path, text]): Array<[string, string]> => (path === 'apps/job.yaml' ? [] : [[path, textKey(text)]])));
    warm.presume(unchanged);
    const second = counted(NOW);
    assert.deepEqual(await run(second.fs, warm), plain);
    assert.equal(second.reads.get('apps/config.yaml'), undefined, 'the ConfigMap, unchanged, is not read');
    assert.equal(second.reads.get('apps/other-job.yaml'), undefined, 'the other Job file: its Jobs are counted from the records kept with its summary');
    assert.ok(second.reads.has('apps/job.yaml'), 'the changed Job is');

    // A presumed key that is not the kept summary's (the file is another blob now): read.
    const other = SummaryCache.open(folder, 'test-engine');
    other.presume(new Map([['apps/config.yaml', textKey('another text\n')]]));
    const third = counted(NOW);
    assert.deepEqual(await run(third.fs, other), plain);
    assert.ok(third.reads.has('apps/config.yaml'));
  });

  // Two Kustomizations take a Secret the repository does not hold; the info on it (in the first
  // file) names what their files use, apps/uses.yaml's names included.
  const fluxKustomization = (name: string, interval: string) =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: ${interval}\n  path: ./${name}\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substituteFrom:\n      - {kind: Secret, name: cluster-settings}\n`;
  const usesName = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: uses\ndata:\n  URL: https://\${${name}}/\n`;
  const TAKERS: Record<string, string> = {
    'flux/a-infra.yaml': fluxKustomization('infra', '10m'),
    'flux/apps.yaml': fluxKustomization('apps', '10m'),
    'infra/kustomization.yaml': 'resources:\n  - settings.yaml\n',
    'infra/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  A: b\n',
    'apps/kustomization.yaml': 'resources:\n  - uses.yaml\n',
    'apps/uses.yaml': usesName('CLUSTER_DOMAIN'),
  };

  /**
   * The change from TAKERS to `now` (one file changed), audited without a cache and then with a
   * cache of `now` whose every other file git says is unchanged: the same report; the paths the
   * cached run read.
   */
  async function takersChanged(changed: string, now: Record<string, string>): Promise<{ plain: ChangedAudit | null; reads: Map<string, number> }> {
    const runOn = (fs: RepoFs, store?: SummaryCache) =>
      auditChanged({ fs, files: Object.keys(now).sort() }, new Set([changed]), () => Promise.resolve({ fs: memoryFs(TAKERS), files: Object.keys(TAKERS).sort() }), { summaryStore: store });
    const plain = await runOn(memoryFs(now));
    const folder = join(tempDir('fjg-blob-cache-'), 'cache');
    const cold = SummaryCache.open(folder, 'test-engine');
    await runOn(memoryFs(now), cold);
    cold.save();
    const warm = SummaryCache.open(folder, 'test-engine');
    warm.presume(new Map(Object.entries(now).flatMap(([path, text]): Array<[string, string]> => (path === changed ? [] : [[path, textKey(text)]]))));
    const cached = counted(now);
    assert.deepEqual(await runOn(cached.fs, warm), plain);
    return { plain, reads: cached.reads };
  }

  const unknownInfo = (audit: ChangedAudit | null) => audit?.findings.find((finding) => finding.rule === 'flux-variables-unknown')?.message ?? '';

  test("the names a file uses are kept with its summary: an outside source's info names them, the file not read", async () => {
    const { plain, reads } = await takersChanged('flux/a-infra.yaml', { ...TAKERS, 'flux/a-infra.yaml': fluxKustomization('infra', '5m') });
    assert.match(unknownInfo(plain), /\(CLUSTER_DOMAIN\)/, 'the control: the report names what apps/uses.yaml uses');
    assert.ok(!plain?.affected.has('apps/uses.yaml'));
    assert.equal(reads.get('apps/uses.yaml'), undefined);
  });

  test('names kept for a text now are not taken for the revision: a file that uses another name', async () => {
    const { plain } = await takersChanged('apps/uses.yaml', { ...TAKERS, 'apps/uses.yaml': usesName('CLUSTER_NAME') });
    // The info changed with the name, so the file it is in is affected: the revision's model read the name the file used then.
    assert.match(unknownInfo(plain), /\(CLUSTER_NAME\)/);
  });
});
