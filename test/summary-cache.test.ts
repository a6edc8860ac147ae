// The CLI's --cache store (server/src/node/summary-cache.ts) on its own: what it keeps, what it
// drops, and that a kept summary is the one made, whatever the run does to the object after.
// The CLI's use of it (same reports cold and warm, a changed file summarised again) is tested in
// changed-since.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { after, describe, test } from 'node:test';
import { summarizeFile } from '../server/src/engine/pipeline/file-summary';
import { CACHE_FOLDER, SummaryCache } from '../server/src/node/summary-cache';
import { textKey } from '../server/src/node/git-blob-keys';
import { NodeRepoFs } from '../server/src/node/node-repo-fs';
import { removeTempRepos, tempDir } from './helpers/temp-repo';

after(removeTempRepos);

const KS =
  'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n';

/** A cache in a new folder with one summary kept, saved; the folder. */
function savedCache(engine: string): string {
  const folder = join(tempDir('fjg-store-'), 'cache');
  const cache = SummaryCache.open(folder, engine);
  assert.equal(cache.keyFor('ks.yaml'), undefined);
  cache.set('ks.yaml', textKey(KS), summarizeFile('ks.yaml', KS), false);
  cache.save();
  return folder;
}

describe('SummaryCache', () => {
  test('what it keeps is read back by the same engine, as it was made', () => {
    const folder = savedCache('engine-a');
    const again = SummaryCache.open(folder, 'engine-a');
    assert.equal(again.keyFor('ks.yaml'), textKey(KS));
    assert.deepEqual(again.summaryOf('ks.yaml'), summarizeFile('ks.yaml', KS));
    assert.equal(readFileSync(join(folder, '.gitignore'), 'utf8'), '# written by flux-job-guard --cache\n*\n');
  });

  test('another engine, a broken file: nothing is taken from it', () => {
    const folder = savedCache('engine-a');
    assert.equal(SummaryCache.open(folder, 'engine-b').keyFor('ks.yaml'), undefined);
    const whole = readFileSync(join(folder, 'summaries-1.bin'));
    writeFileSync(join(folder, 'summaries-1.bin'), whole.subarray(0, whole.length - 1));
    assert.equal(SummaryCache.open(folder, 'engine-a').keyFor('ks.yaml'), undefined, 'a file cut short');
    writeFileSync(join(folder, 'summaries-1.bin'), 'not a cache');
    assert.equal(SummaryCache.open(folder, 'engine-a').keyFor('ks.yaml'), undefined);
    assert.equal(SummaryCache.open(join(folder, 'none'), 'engine-a').keyFor('ks.yaml'), undefined);
  });

  test('a summary changed after it was kept is kept as it was made; each read is a copy of its own', () => {
    const folder = join(tempDir('fjg-store-'), 'cache');
    const cache = SummaryCache.open(folder, 'e');
    const summary = summarizeFile('ks.yaml', KS);
    cache.set('ks.yaml', 'k', summary, false);
    summary.facts!.kustomizations.length = 0;
    const read = cache.summaryOf('ks.yaml')!;
    assert.equal(read.facts!.kustomizations.length, 1);
    read.facts!.kustomizations.length = 0;
    assert.equal(cache.summaryOf('ks.yaml')!.facts!.kustomizations.length, 1);
  });

  test('damaged bytes of one summary: no summary is given for it (the caller makes it again)', () => {
    const folder = savedCache('e');
    const file = join(folder, 'summaries-1.bin');
    const bytes = readFileSync(file);
    const summaries = 4 + bytes.readUInt32LE(0);
    bytes.fill(0xff, summaries); // the header stays whole
    writeFileSync(file, bytes);
    const cache = SummaryCache.open(folder, 'e');
    assert.equal(cache.keyFor('ks.yaml'), textKey(KS));
    assert.equal(cache.summaryOf('ks.yaml'), undefined);
    bytes.fill(0, summaries);
    bytes.set(serialize(42), summaries); // bytes that read back as something else
    writeFileSync(file, bytes);
    assert.equal(SummaryCache.open(folder, 'e').summaryOf('ks.yaml'), undefined);
  });

  test('what runs keep of a text beyond its summary (its Jobs, the names it uses) is kept with it, and dropped with it when the text changes', () => {
    const folder = savedCache('e');
    const jobs = [
      { name: 'migrate', ttl: { value: 86400 } },
      { name: null, ttl: null },
    ];
    const first = SummaryCache.open(folder, 'e');
    assert.ok(first.summaryOf('ks.yaml'), 'the caller found the text to be the kept one');
    assert.equal(first.resultOf('jobs', 'ks.yaml'), undefined, 'none kept yet');
    first.keepResult('jobs', 'ks.yaml', jobs);
    first.keepResult('names', 'ks.yaml', ['CLUSTER']);
    first.keepResult('jobs', 'gone.yaml', jobs); // no summary kept for it: nothing to keep them with
    first.save();
    const second = SummaryCache.open(folder, 'e');
    second.summaryOf('ks.yaml');
    assert.deepEqual(second.resultOf('jobs', 'ks.yaml'), jobs);
    assert.deepEqual(second.resultOf('names', 'ks.yaml'), ['CLUSTER']);
    assert.equal(second.resultOf('jobs', 'gone.yaml'), undefined);
    second.resultOf('names', 'ks.yaml')!.push('CHANGED');
    assert.deepEqual(second.resultOf('names', 'ks.yaml'), ['CLUSTER'], 'each read is a copy of its own');
    second.set('ks.yaml', 'another text', summarizeFile('ks.yaml', KS), false);
    assert.equal(second.resultOf('jobs', 'ks.yaml'), undefined, "a new summary's text has no results yet");
  });

  test("a kept result is used only where the run found the file's text to be the kept one", () => {
    const folder = savedCache('e');
    const first = SummaryCache.open(folder, 'e');
    first.summaryOf('ks.yaml');
    first.keepResult('names', 'ks.yaml', ['CLUSTER']);
    first.save();
    const second = SummaryCache.open(folder, 'e');
    assert.equal(second.keyFor('ks.yaml'), textKey(KS));
    assert.equal(second.resultOf('names', 'ks.yaml'), undefined, 'the key alone says nothing of the text the file has now');
    second.keepResult('names', 'ks.yaml', ['OTHER']);
    second.presume(new Map([['ks.yaml', textKey(KS)]]));
    assert.ok(second.unread('ks.yaml'));
    assert.deepEqual(second.resultOf('names', 'ks.yaml'), ['CLUSTER'], 'once git says the file is the kept blob, its results count; the one offered before did not replace them');
  });

  test('results that are not what their makers give are not used', () => {
    const folder = savedCache('e');
    const cache = SummaryCache.open(folder, 'e');
    cache.summaryOf('ks.yaml');
    cache.keepResult('jobs', 'ks.yaml', [{ name: 7, ttl: 'never' } as never]);
    cache.keepResult('names', 'ks.yaml', [1, 2] as never);
    cache.keepResult('input', 'ks.yaml', { env: {}, uses: [], envUses: [] } as never);
    cache.save();
    const again = SummaryCache.open(folder, 'e');
    again.summaryOf('ks.yaml');
    for (const key of ['jobs', 'names', 'input'] as const) assert.equal(again.resultOf(key, 'ks.yaml'), undefined, key);
  });

  test('only the files a run met are written back', () => {
    const folder = join(tempDir('fjg-store-'), 'cache');
    const first = SummaryCache.open(folder, 'e');
    first.set('a.yaml', 'ka', summarizeFile('a.yaml', 'a: 1\n'), false);
    first.set('b.yaml', 'kb', summarizeFile('b.yaml', 'b: 1\n'), false);
    first.save();
    const second = SummaryCache.open(folder, 'e');
    assert.equal(second.keyFor('a.yaml'), 'ka'); // b.yaml is gone from this run
    second.save();
    const third = SummaryCache.open(folder, 'e');
    assert.equal(third.keyFor('a.yaml'), 'ka');
    assert.equal(third.keyFor('b.yaml'), undefined);
  });

  test('the file listing skips the cache folder', async () => {
    const root = tempDir('fjg-store-');
    mkdirSync(join(root, CACHE_FOLDER));
    writeFileSync(join(root, CACHE_FOLDER, 'x.yaml'), 'a: 1\n');
    writeFileSync(join(root, 'y.yaml'), 'a: 1\n');
    assert.deepEqual(await new NodeRepoFs(root).listFiles(), ['y.yaml']);
  });
});
