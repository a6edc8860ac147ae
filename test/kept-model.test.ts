// The model a changed-only run keeps for the next (--cache; pipeline/kept-model.ts). Two truths:
// what the audit of any file reads of a kept model, written and read back, is what it reads of the
// live model (on every file of real repositories); and a run that takes the kept model reports
// exactly what a run without it reports, on every edit of real repositories, and takes it only
// where it is the model of the revision and of the files now (each refusal with its control).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { revisionModel } from '../server/src/engine/pipeline/affected';
import { auditChanged, type ChangedAudit } from '../server/src/engine/pipeline/audit-changed';
import { auditOneFile } from '../server/src/engine/pipeline/audit-one';
import { liveAuditModel } from '../server/src/engine/pipeline/file-model';
import { keptAuditModel, keptModelOf, keptView, NotKept, type KeptModelData, type KeptModelSource, type ModelStore } from '../server/src/engine/pipeline/kept-model';
import type { RepoFs } from '../server/src/engine/base/repo-fs';
import type { Finding } from '../server/src/engine/base/types';
import { readModelFile, writeModelFile } from '../server/src/node/model-file';
import { textKey } from '../server/src/node/git-blob-keys';
import { filesOf, memoryFs } from './helpers/memory-fs';
import { sampledEdits } from './helpers/edits';

const ROOT = join(__dirname, '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const EXAMPLE = join(ROOT, 'examples', 'flux-repo');
const ENGINE = 'the engine of this test';
const SETTING = JSON.stringify([null, null]);

type Files = Record<string, string>;

const folder = mkdtempSync(join(tmpdir(), 'fjg-kept-model-'));
after(() => rmSync(folder, { recursive: true, force: true }));
let made = 0;

const full = (finding: Finding) => JSON.stringify(finding);

/**
 * A store as the CLI's: git's keys of the files that did not change since the revision (presumed:
 * here, the keys of their texts), the model read from one file (`keptFile`) and written to another,
 * so every run of a test starts from the same kept model.
 */
class TestStore implements ModelStore {
  readonly keyOf = textKey;
  presumed = new Map<string, string>();
  /** How often a run kept a model: a run that took the kept one keeps none. */
  kept = 0;
  readonly written = join(folder, `written-${made++}.bin`);

  constructor(public keptFile: string = join(folder, `kept-${made++}.bin`)) {}

  presumedKey(path: string): string | undefined {
    return this.presumed.get(path);
  }
  keptModel(setting: string): KeptModelSource | undefined {
    return readModelFile(this.keptFile, ENGINE, setting);
  }
  keepModel(model: KeptModelData): void {
    this.kept++;
    writeModelFile(this.written, ENGINE, model);
  }
}

/** The paths that differ between two states (added, removed, changed). */
function differing(before: Files, now: Files): Set<string> {
  return new Set([...Object.keys(before), ...Object.keys(now)].filter((path) => before[path] !== now[path]));
}

/**
 * auditChanged from `rev` to `now`, as the CLI runs it (git-changes.ts repositoryAt: the files that
 * did not change are read from `now`, the changed ones from the revision).
 */
function changedRun(rev: Files, now: Files, store?: TestStore): Promise<ChangedAudit | null> {
  const changed = differing(rev, now);
  if (store) store.presumed = new Map(Object.keys(now).flatMap((path): Array<[string, string]> => (changed.has(path) ? [] : [[path, textKey(now[path])]])));
  const before = (current: RepoFs) => {
    const old = memoryFs(rev);
    const files = [...Object.keys(now).filter((path) => !changed.has(path)), ...[...changed].filter((path) => path in rev)].sort();
    return Promise.resolve({ fs: { listFiles: () => Promise.resolve([...files]), read: (path: string) => (changed.has(path) ? old.read(path) : current.read(path)) }, files });
  };
  return auditChanged({ fs: memoryFs(now), files: Object.keys(now).sort() }, changed, before, store ? { modelStore: store } : {});
}

/** A store holding the model of `state` (kept by a run that found nothing changed). */
async function storeOf(state: Files): Promise<TestStore> {
  const filling = new TestStore();
  await changedRun(state, state, filling);
  assert.equal(filling.kept, 1, 'the first run keeps its model');
  writeFileSync(filling.keptFile, readFileSync(filling.written));
  return filling;
}

function assertSameReport(actual: ChangedAudit | null, expected: ChangedAudit | null, what: string): void {
  if (expected === null || actual === null) return assert.equal(actual, expected, what);
  assert.deepEqual(actual.findings.map(full), expected.findings.map(full), what);
  assert.deepEqual(actual.summary, expected.summary, what);
  assert.deepEqual(new Map(actual.jobs), new Map(expected.jobs), what);
  assert.deepEqual([...actual.affected].sort(), [...expected.affected].sort(), what);
}

/** Runs `rev` → `now` with the kept model of `kept` and without any, and compares; returns whether the kept model was taken. */
async function compared(kept: TestStore, rev: Files, now: Files, what: string): Promise<boolean> {
  const runs = kept.kept;
  const withKept = await changedRun(rev, now, kept);
  assertSameReport(withKept, await changedRun(rev, now), what);
  return kept.kept === runs;
}

const REPOSITORIES: Array<[string, string, number]> = [
  ['examples/flux-repo', EXAMPLE, Infinity],
  ['tyriis__home-ops', join(CORPUS, 'tyriis__home-ops'), 8],
  ['controlplaneio-fluxcd__d2-fleet', join(CORPUS, 'controlplaneio-fluxcd__d2-fleet'), 8],
  ['giantswarm__gitops-template', join(CORPUS, 'giantswarm__gitops-template'), 8],
  ['damacus__home-ops', join(CORPUS, 'damacus__home-ops'), 8],
  ['equinor__radix-flux', join(CORPUS, 'equinor__radix-flux'), 8],
  ['aws-samples__eks-multi-cluster-gitops', join(CORPUS, 'aws-samples__eks-multi-cluster-gitops'), 8],
  ['toboshii__home-ops', join(CORPUS, 'toboshii__home-ops'), 8],
];

describe('a kept model, written and read back, is what the audit of each file reads of the live model', () => {
  for (const [name, dir] of REPOSITORIES) {
    test(`${name}: every file's audit, and the view`, { skip: existsSync(dir) ? false : `${dir} is not here` }, async () => {
      const files = filesOf(dir);
      const paths = Object.keys(files).sort();
      const fs = memoryFs(files);
      const model = await revisionModel(fs, paths, {});
      const file = join(folder, `round-trip-${made++}.bin`);
      writeModelFile(file, ENGINE, keptModelOf(model, paths, new Map([['a state', { jobs: [], contractFile: undefined }]]), SETTING));
      const source = readModelFile(file, ENGINE, SETTING)!;
      const core = source.core()!;
      const kept = keptAuditModel(source, core);
      const live = liveAuditModel(model.index, model.contract);
      let contexts = 0;
      for (const path of paths) {
        assert.deepEqual(kept.file(path), live.file(path), path);
        if (live.file(path).context?.flux) contexts++;
        if (path === model.contract.path) continue; // its findings check the whole model: never audited from a kept one
        assert.deepEqual(await auditOneFile(fs, model.contract, kept, path), await auditOneFile(fs, model.contract, live, path), path);
      }
      assert.ok(contexts > 0, 'files with a Flux context were compared');
      const view = keptView(core);
      const plain = (builders: typeof view.builders) =>
        [...builders].map(([key, { definition, world, builds, sources, substitutes, defines }]) => [key, { definition, world, builds, sources, substitutes, defines }]);
      assert.deepEqual(plain(view.builders), plain(model.view.builders));
      assert.deepEqual([view.uses, view.accounts, view.problems], [model.view.uses, model.view.accounts, model.view.problems]);
      assert.deepEqual(kept.outsideSources(), model.index.outsideSources());
      assert.deepEqual(kept.declaredAccounts(), model.index.declaredAccounts());
    });
  }
  test('builders shared by files stay shared, as in the live model', async () => {
    const files = filesOf(EXAMPLE);
    const paths = Object.keys(files).sort();
    const model = await revisionModel(memoryFs(files), paths, {});
    const file = join(folder, `shared-${made++}.bin`);
    writeModelFile(file, ENGINE, keptModelOf(model, paths, new Map([['a state', { jobs: [], contractFile: undefined }]]), SETTING));
    const source = readModelFile(file, ENGINE, SETTING)!;
    const kept = keptAuditModel(source, source.core()!);
    const builders = (path: string) => kept.file(path).context?.flux?.entries.map((entry) => entry.builder) ?? [];
    const [first, second] = ['kubernetes/apps/backup/prune.yaml', 'kubernetes/apps/backup/snapshot.yaml'].map(builders);
    assert.ok(first.length > 0 && first.some((builder) => second.includes(builder)), 'one builder object for both files');
  });
});

describe('a run takes the kept model only where it is the model of the revision and of the files now', () => {
  const counts = { taken: 0, refused: 0 };
  for (const [name, dir, limit] of REPOSITORIES) {
    test(`${name}: every edit, with the kept model, reports what a run without it reports`, { skip: existsSync(dir) ? false : `${dir} is not here` }, async () => {
      const state = filesOf(dir);
      const store = await storeOf(state);
      for (const { path, what, text } of sampledEdits(state, limit, ['a comment added at the end', 'the first digit changed'])) {
        if (await compared(store, state, { ...state, [path]: text }, `${path}, ${what}`)) counts.taken++;
        else counts.refused++;
      }
    });
  }
  test('the property is not vacuous: the kept model was both taken and refused', (t) => {
    t.diagnostic(`taken ${counts.taken} times, refused ${counts.refused} times`);
    assert.ok(counts.taken >= 50, `taken ${counts.taken} times`);
    assert.ok(counts.refused >= 20, `refused ${counts.refused} times`);
  });

  const example = () => filesOf(EXAMPLE);
  const JOB = 'kubernetes/apps/backup/snapshot.yaml';
  const withTtl = (files: Files, path: string) => {
    const text = files[path].replace(/ttlSecondsAfterFinished: \d+/, 'ttlSecondsAfterFinished: 7');
    assert.notEqual(text, files[path], `${path} sets a TTL`);
    return { ...files, [path]: text };
  };

  test("a Job's TTL changed: taken, and the report is a run's without it", async () => {
    const state = example();
    assert.ok(await compared(await storeOf(state), state, withTtl(state, JOB), 'TTL'));
  });
  test("a run whose model is the revision's keeps it for both states: the next run against the same base, and the next against the files now, take it", async () => {
    const state = example();
    // The first change removes a TTL: the Jobs counted with a TTL differ between the two states.
    const first = { ...state, [JOB]: state[JOB].replace(/\n\s*ttlSecondsAfterFinished: \d+[^\n]*/, '') };
    assert.notEqual(first[JOB], state[JOB]);
    const store = new TestStore();
    await changedRun(state, first, store);
    assert.equal(store.kept, 1);
    writeFileSync(store.keptFile, readFileSync(store.written));
    // The pull request's next commit undoes the first change and makes another: the first file's Jobs are counted from the kept base.
    const elsewhere = 'kubernetes/infrastructure/node-tuning/job.yaml'; // built by another Kustomization than the first file
    assert.ok(await compared(store, state, withTtl(state, elsewhere), 'the same base, the first change undone, a second one'));
    assert.ok(await compared(store, first, withTtl(first, elsewhere), 'the files of the first run as the base'));
    // Control: where the first change alters the model, only the files now are kept.
    const settings = 'kubernetes/flux/cluster-settings.yaml';
    const altered = { ...first, [settings]: state[settings].replace(/: "?([^"\n]+)"?\n/, ': "changed"\n') };
    const other = new TestStore();
    await changedRun(state, altered, other);
    writeFileSync(other.keptFile, readFileSync(other.written));
    assert.equal(await compared(other, state, withTtl(altered, 'kubernetes/apps/backup/restic-check.yaml'), 'the base of a change that altered the model'), false);
    assert.ok(await compared(other, altered, withTtl(altered, 'kubernetes/apps/backup/restic-check.yaml'), 'its files now'));
  });
  test('a kept model of another state is not taken (a variable source changed since it was kept)', async () => {
    const state = example();
    const other = { ...state, 'kubernetes/flux/cluster-settings.yaml': state['kubernetes/flux/cluster-settings.yaml'].replace(/: "?([^"\n]+)"?\n/, ': "changed"\n') };
    assert.notEqual(other['kubernetes/flux/cluster-settings.yaml'], state['kubernetes/flux/cluster-settings.yaml']);
    const store = await storeOf(other);
    assert.equal(await compared(store, state, withTtl(state, JOB), 'another state'), false);
    // Control: the same run with the model of its own state takes it.
    assert.ok(await compared(await storeOf(state), state, withTtl(state, JOB), 'its own state'));
  });
  test('a change that reaches the contract file: its kept findings, unless a file an entry names changed', async () => {
    const state = example();
    const store = await storeOf(state);
    // A pod that runs as a ServiceAccount: the contract's external accounts are checked against it.
    const accounts = withTtl(state, 'kubernetes/apps/bake/kernel-bake.yaml');
    assert.ok(await compared(store, state, accounts, 'a file with a ServiceAccount'));
    assert.ok((await changedRun(state, accounts, store))!.affected.has('.flux-job-guard.yaml'), 'the contract file is affected');
    // A Job the contract's otherFinishTimeout names.
    assert.equal(await compared(store, state, withTtl(state, 'kubernetes/apps/db/migrate.yaml'), 'an entry names it'), false);
  });
  test('a file added, deleted, or one the index reads whole changed; the contract changed: refused', async () => {
    const state = example();
    const store = await storeOf(state);
    const { [JOB]: _deleted, ...deleted } = state;
    const changes: Record<string, Files> = {
      'a file deleted': deleted,
      'a file added': { ...state, 'kubernetes/apps/backup/new.yaml': state[JOB] },
      'a patch file changed': { ...state, 'kubernetes/apps/photos/reindex-resources-patch.yaml': `${state['kubernetes/apps/photos/reindex-resources-patch.yaml']}# edited\n` },
      'the contract changed': { ...state, '.flux-job-guard.yaml': `${state['.flux-job-guard.yaml']}# edited\n` },
    };
    for (const [what, now] of Object.entries(changes)) assert.equal(await compared(store, state, now, what), false, what);
  });
  test('a kept model that cannot be read, or lacks a part the audit asks for, is not taken', async () => {
    const state = example();
    const store = await storeOf(state);
    const bytes = readFileSync(store.keptFile);
    // Cut right after the header: the core is not there.
    const cut = new TestStore();
    writeFileSync(cut.keptFile, bytes.subarray(0, 4 + bytes.readUInt32LE(0) + 10));
    assert.equal(await compared(cut, state, withTtl(state, JOB), 'cut short'), false);
    const other = new TestStore();
    writeFileSync(other.keptFile, bytes);
    assert.equal(other.keptModel('another setting'), undefined, 'another contract path or settings');
    assert.equal(readModelFile(other.keptFile, 'another engine', SETTING), undefined, 'another engine');
    const source = other.keptModel(SETTING)!;
    assert.throws(() => keptAuditModel({ ...source, file: () => undefined }, source.core()!).file(JOB), NotKept);
  });
});
