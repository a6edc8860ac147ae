// The lens on every Job (its cycle in words, and the explanation behind it),
// the resources of a multi-document file, and the Jobs and Flux
// Kustomizations of the repository as workspace symbols, over the fixture of
// symbols-fixture.ts. Negative controls: a Job nothing applies says so, a
// single-resource file has no outline of its own, a Job template nothing
// applies is no workspace symbol.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hoverAt } from '../server/src/engine/editor/hover';
import { plainLink } from '../server/src/engine/editor/link';
import { jobCycleExplanation, jobLenses, NO_FLUX, NOT_APPLIED } from '../server/src/engine/editor/job-lens';
import { ChunkCache, MAY_BE_JOB, resourcesIn } from '../server/src/engine/editor/resource-facts';
import { JobSymbols, kustomizationSymbols, matchesQuery } from '../server/src/engine/editor/workspace-symbols';
import { kustomization } from './helpers/flux-fixtures';
import { ARCHIVED, GOTK_SYNC, JOB, moreApps, repo, Repo } from './helpers/symbols-fixture';

const JOB_PATH = 'apps/job.yaml';

function lenses(r: Repo, file: string, text = r.files[file]) {
  return jobLenses(r.index, r.contract, file, new ChunkCache(resourcesIn, (chunk) => MAY_BE_JOB.test(chunk)).of(text));
}

/** Places as `file:line`, the way the lens's message shows them. */
const LINK = plainLink(() => undefined);

const NO_TTL = JOB.replace(/ {2}# converges.*\n {2}ttlSecondsAfterFinished: 86400\n/, '');

describe('the lens on every Job', () => {
  test('a Job with a TTL: re-created about TTL (rounded up to the interval) after it finishes, by which Kustomization, how often', async () => {
    const r = await repo();
    assert.deepEqual(
      lenses(r, JOB_PATH).map((lens) => [lens.span, lens.title]),
      [[[0, JOB.length - 1], 're-created about 24 h after it finishes — Kustomization apps, every 1h']],
    );
    const hourly = await repo({ [JOB_PATH]: JOB.replace('86400', '1800') });
    assert.equal(lenses(hourly, JOB_PATH)[0].title, 're-created about 1 h after it finishes — Kustomization apps, every 1h', 'a TTL under the interval waits for the next reconcile');
  });

  test('a Job listed in noFinishTimeout keeps its completion; one without a TTL too; one with an invalid TTL', async () => {
    const listed = await repo({ [JOB_PATH]: NO_TTL }, 'ttl:\n  noFinishTimeout:\n    - {file: apps/job.yaml, job: report, reason: The completion is the evidence.}\n');
    assert.equal(lenses(listed, JOB_PATH)[0].title, 'keeps its completion: noFinishTimeout — runs once per new name');
    const bare = await repo({ [JOB_PATH]: NO_TTL });
    assert.equal(lenses(bare, JOB_PATH)[0].title, 'keeps its completion (no ttlSecondsAfterFinished) — runs once per new name');
    const invalid = await repo({ [JOB_PATH]: JOB.replace('86400', '"86400"') });
    assert.equal(lenses(invalid, JOB_PATH)[0].title, 'ttlSecondsAfterFinished is not a number of seconds: Kubernetes rejects the Job');
  });

  test('every Job of a file gets one, on its own document; other resources none', async () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n${JOB}---\n${NO_TTL.replace('name: report', 'name: second')}`;
    const r = await repo({ [JOB_PATH]: text });
    const found = lenses(r, JOB_PATH);
    assert.deepEqual(
      found.map((lens) => [lens.name, text.slice(lens.span[0], lens.span[0] + 20)]),
      [
        ['report', 'apiVersion: batch/v1'],
        ['second', 'apiVersion: batch/v1'],
      ],
    );
    assert.deepEqual(
      found.map((lens) => lens.ttlKeySpan && text.slice(...lens.ttlKeySpan)),
      ['ttlSecondsAfterFinished', null],
    );
  });

  test('up to three Kustomizations are named; ten are counted, and the lens lists where each is written', async () => {
    const three = lenses(await repo(moreApps(3, '30m')), JOB_PATH)[0];
    assert.deepEqual([three.title, three.listed], ['re-created about 24 h after it finishes — Kustomizations apps, every 1h; apps-2, every 30m; apps-3, every 30m', null]);
    const ten = lenses(await repo(moreApps(10)), JOB_PATH)[0];
    assert.equal(ten.title, 're-created about 24 h after it finishes — 10 Kustomizations, every 1h');
    // at each one's `kind`, where its findings and its workspace symbol point
    const kindLine = { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } };
    // by file, as a references list shows them (`apps-10.yaml` < `apps-2.yaml` < … < `apps.yaml`)
    assert.deepEqual(
      ten.listed,
      ['apps-10', 'apps-2', 'apps-3', 'apps-4', 'apps-5', 'apps-6', 'apps-7', 'apps-8', 'apps-9', 'apps'].map((name) => ({ file: `clusters/home/${name}.yaml`, range: kindLine })),
    );
    // intervals that differ are not said in a counted title
    const mixed = lenses(await repo({ ...moreApps(10), 'clusters/home/apps-10.yaml': kustomization('apps-10', './apps', '', '10m') }), JOB_PATH)[0];
    assert.equal(mixed.title, 're-created about 24 h after it finishes — 10 Kustomizations');
    assert.equal(mixed.listed?.length, 10);
    // negative control: a counted Job without a TTL has no names in its title to list
    assert.equal(lenses(await repo({ ...moreApps(10), [JOB_PATH]: NO_TTL }), JOB_PATH)[0].listed, null);
  });

  test('a Job nothing applies: said so (negative control)', async () => {
    const r = await repo();
    assert.deepEqual(
      lenses(r, 'archive/job.yaml').map((lens) => lens.title),
      [NOT_APPLIED],
    );
  });

  test('a repository without Flux: the lens and its explanation say that whatever applies the Job decides, not that nothing does', async () => {
    // Only the Job (kubectl, Argo CD or a script applies it): no Flux Kustomization is written anywhere.
    const alone = await repo({}, undefined, { [JOB_PATH]: JOB });
    const [lens] = lenses(alone, JOB_PATH);
    assert.equal(lens.title, `deleted 24 h after it finishes — ${NO_FLUX}`);
    const explained = jobCycleExplanation(alone.index, alone.contract, JOB_PATH, JOB, lens, LINK);
    assert.match(explained, /No Flux Kustomization is written in this repository: the TTL controller deletes the finished Job, and whatever applies it/);
    assert.doesNotMatch(explained, /nothing re-creates it/);
    const bare = await repo({}, undefined, { [JOB_PATH]: NO_TTL });
    assert.equal(lenses(bare, JOB_PATH)[0].title, 'keeps its completion (no ttlSecondsAfterFinished) — runs once per new name');
    assert.match(jobCycleExplanation(bare.index, bare.contract, JOB_PATH, NO_TTL, lenses(bare, JOB_PATH)[0], LINK), /whatever applies apps\/job\.yaml \(kubectl, Argo CD, a script\) decides/);
    // negative control: with Flux in the repository, a Job none of its Kustomizations applies is dead
    assert.equal(lenses(await repo(), 'archive/job.yaml')[0].title, NOT_APPLIED);
  });

  test("the explanation: the TTL hover's text where there is a TTL, else why the Job is not re-created", async () => {
    const r = await repo();
    const explained = jobCycleExplanation(r.index, r.contract, JOB_PATH, JOB, lenses(r, JOB_PATH)[0], LINK);
    assert.equal(explained, hoverAt(r.index, r.contract, JOB_PATH, JOB, JOB.indexOf('ttlSecondsAfterFinished'), LINK)!.markdown, "exactly the TTL hover's text");
    assert.match(explained, /Applied by Flux Kustomization `apps` \(clusters\/home\/apps\.yaml:2\), interval 1h, prune true\./);
    const bare = await repo({ [JOB_PATH]: NO_TTL });
    assert.match(
      jobCycleExplanation(bare.index, bare.contract, JOB_PATH, NO_TTL, lenses(bare, JOB_PATH)[0], LINK),
      /It sets no ttlSecondsAfterFinished\. The finished Job stays.*Applied by Kustomization `apps` \(clusters\/home\/apps\.yaml:2\), interval 1h\.$/s,
    );
    const unapplied = jobCycleExplanation(r.index, r.contract, 'archive/job.yaml', ARCHIVED, lenses(r, 'archive/job.yaml')[0], LINK);
    assert.equal(unapplied, hoverAt(r.index, r.contract, 'archive/job.yaml', ARCHIVED, ARCHIVED.indexOf('ttlSecondsAfterFinished'), LINK)!.markdown);
    assert.match(unapplied, /No Flux Kustomization in this repository applies this Job/);
    const archived = ARCHIVED.replace(/ {2}# converges.*\n {2}ttlSecondsAfterFinished: 86400\n/, '');
    const dead = await repo({ 'archive/job.yaml': archived });
    assert.match(
      jobCycleExplanation(dead.index, dead.contract, 'archive/job.yaml', archived, lenses(dead, 'archive/job.yaml')[0], LINK),
      /^\*\*Job old-report\*\*: no Flux Kustomization applies this Job\.\n\nNo live Flux Kustomization in this repository applies archive\/job\.yaml/,
    );
  });
});

describe('resources of a file (the outline)', () => {
  test('one per document: kind, name, apiVersion, the document and its name; comments and `---` left out', () => {
    const found = resourcesIn(GOTK_SYNC);
    assert.deepEqual(
      found.map((resource) => [resource.kind, resource.name, resource.apiVersion, resource.span, GOTK_SYNC.slice(...resource.selectionSpan), resource.job]),
      [
        ['GitRepository', 'flux-system', 'source.toolkit.fluxcd.io/v1', [0, GOTK_SYNC.indexOf('\n---')], 'flux-system', null],
        ['Kustomization', 'flux-system', 'kustomize.toolkit.fluxcd.io/v1', [GOTK_SYNC.indexOf('---') + 4, GOTK_SYNC.length - 1], 'flux-system', null],
      ],
    );
  });

  test('a document without metadata.name selects its kind; one without kind is no resource', () => {
    const text = 'kind: Namespace\n---\n# only a comment\nfoo: bar\n';
    assert.deepEqual(
      resourcesIn(text).map((resource) => [resource.kind, resource.name, text.slice(...resource.selectionSpan)]),
      [['Namespace', null, 'Namespace']],
    );
  });

  test('the cache computes only the documents that changed, and shifts the rest into place', () => {
    let computed = 0;
    const cache = new ChunkCache((text) => {
      computed++;
      return resourcesIn(text);
    });
    const before = `${JOB}---\n${JOB.replace('report', 'second')}`;
    assert.equal(cache.of(before).length, 2);
    assert.equal(computed, 2);
    const after = before.replace('name: report\n', 'name: reporter\n');
    const found = cache.of(after);
    assert.equal(computed, 3, 'the second document is only moved');
    assert.deepEqual(
      found.map((resource) => after.slice(...resource.selectionSpan)),
      ['reporter', 'second'],
    );
  });
});

describe('workspace symbols', () => {
  test('a query matches the letters of a name in order, any case', () => {
    assert.equal(matchesQuery('infra-report', 'IRP'), true);
    assert.equal(matchesQuery('report', 'rpe'), false);
    assert.equal(matchesQuery('anything', ''), true);
  });

  test('every Flux Kustomization (one not applied says so), at its `kind` (where its findings point)', async () => {
    const r = await repo({ 'archive/ks.yaml': kustomization('old-apps', './archive/old', '') });
    assert.deepEqual(
      kustomizationSymbols(r.index, '').map((item) => [item.name, item.file, r.files[item.file].slice(...item.span), item.container]),
      [
        ['old-apps', 'archive/ks.yaml', 'kind', 'Flux Kustomization → ./archive/old (not applied)'],
        ['apps', 'clusters/home/apps.yaml', 'kind', 'Flux Kustomization → ./apps'],
        ['flux-system', 'clusters/home/flux-system/gotk-sync.yaml', 'kind', 'Flux Kustomization → ./clusters/home'],
        ['infra', 'clusters/home/infra.yaml', 'kind', 'Flux Kustomization → ./infra'],
      ],
    );
  });

  test('the Jobs Flux applies, at their names; the archived template is none (negative control); a changed file is read again', async () => {
    const r = await repo();
    const jobs = new JobSymbols();
    let reads = 0;
    const read = (path: string) => {
      reads++;
      return r.read(path);
    };
    const brief = async (query: string) =>
      (await jobs.find(r.index, r.contract, query, read)).map(
        (item) => `${item.name} ${item.file} ${item.range!.start.line}:${item.range!.start.character}-${item.range!.end.character} ${item.container}`,
      );
    assert.deepEqual(await brief('rep'), ['report apps/job.yaml 3:8-14 Job ← Kustomization apps', 'infra-report infra/job.yaml 3:8-20 Job ← Kustomization infra']);
    const first = reads;
    assert.deepEqual(await brief('infra'), ['infra-report infra/job.yaml 3:8-20 Job ← Kustomization infra']);
    assert.equal(reads, first, 'nothing changed: nothing read again');
    r.files[JOB_PATH] = JOB.replace('name: report', 'name: summary');
    r.index.update(JOB_PATH, r.files[JOB_PATH]);
    assert.deepEqual(await brief('sum'), ['summary apps/job.yaml 3:8-15 Job ← Kustomization apps']);
    assert.equal(reads, first + 1, 'only the changed file');
  });
});
