// The server indexes a large folder from reads and summaries made in worker threads (Project's
// Summarizer; on Node the CLI's audit workers). The index must be the one the server builds in its
// own thread, and the workers' reads must be what it reads (not the disk a second time). Then the
// real server over a folder large enough for workers: its log says where the index was made, and
// what the model says reaches an open file.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Project, type Summarizer } from '../server/src/lsp/project';
import { summarizeFiles } from '../server/src/engine/pipeline/audit';
import { revisionView } from '../server/src/engine/pipeline/affected';
import { DEFAULT_SETTINGS } from '../server/src/shared/settings';
import type { RepoFs } from '../server/src/engine/base/repo-fs';
import { filesOf, memoryFs } from './helpers/memory-fs';
import { gotkSync, job, kustomization } from './helpers/flux-fixtures';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

after(removeTempRepos);

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'flux-repo');

/** A RepoFs that counts the reads of each path. */
function counting(fs: RepoFs): { fs: RepoFs; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return { reads, fs: { listFiles: () => fs.listFiles(), read: (path) => (reads.set(path, (reads.get(path) ?? 0) + 1), fs.read(path)) } };
}

test('the index from summaries made elsewhere is the index made here, and the reads made there are not made again', async () => {
  const files = filesOf(EXAMPLE);
  const here = new Project('file:///example', memoryFs(files), DEFAULT_SETTINGS);
  await here.initialize();
  const asked: string[][] = [];
  // What the workers do, in this thread: the same function on the same files.
  const summarizer: Summarizer = async (request) => (asked.push(request.files), summarizeFiles(memoryFs(files), request.files, true));
  const disk = counting(memoryFs(files));
  const elsewhere = new Project('file:///example', disk.fs, DEFAULT_SETTINGS, undefined, summarizer);
  await elsewhere.initialize();
  assert.deepEqual(elsewhere.indexed, { files: asked[0].length, elsewhere: true });
  assert.ok(asked[0].length > 10, `${asked[0].length} files asked for`);
  assert.deepEqual(revisionView(elsewhere.index), revisionView(here.index));
  assert.deepEqual([...elsewhere.index.filePaths()].sort(), [...here.index.filePaths()].sort());
  const readAgain = asked[0].filter((path) => (disk.reads.get(path) ?? 0) > 0 && path !== elsewhere.contract.path);
  // Read again: only what the index reads whole (a patch), a generator input, or a file whose names it read.
  const { index } = elsewhere;
  assert.deepEqual(
    readAgain.filter((path) => !index.readsWhole(path) && !index.isGeneratorInput(path) && index.namesUsedBy(path).length === 0),
    [],
  );
  assert.ok(readAgain.length < asked[0].length / 4, `${readAgain.length} files read again`);
});

test('control: where the summarizer declines (a small folder) or fails, the folder is indexed here', async () => {
  const files = filesOf(EXAMPLE);
  for (const summarizer of [() => Promise.resolve(undefined), () => Promise.reject(new Error('worker gone'))] as Summarizer[]) {
    const project = new Project('file:///example', memoryFs(files), DEFAULT_SETTINGS, undefined, summarizer);
    await project.initialize();
    assert.equal(project.indexed.elsewhere, false);
    assert.ok(project.index.writesFluxKustomizations());
  }
});

/** Enough files that the Node server gives the index to worker threads (more than 2,000: two workers). */
const FILLER = 2100;

test(
  'the server over a large folder: indexed in worker threads, and the model reaches an open file',
  { skip: availableParallelism() < 2 ? 'one core: the server indexes in its own thread' : false },
  async () => {
    const repo: Record<string, string> = {
      'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
      'clusters/home/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substitute:\n      GREETING: hello\n'),
      'apps/kustomization.yaml': 'resources:\n  - job.yaml\n',
      'apps/job.yaml': job('report', 'it writes the same report again', '          command: ["echo", "${GREETING}", "${MISSING}"]\n'),
    };
    for (let i = 0; i < FILLER; i++) repo[`filler/f${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler-${i}\n`;
    const root = tempRepo('fjg-index-elsewhere-', repo);
    const client = new TestLspClient();
    try {
      await client.initialize(root);
      const uri = fileUri(join(root, 'apps/job.yaml'));
      client.open(uri, repo['apps/job.yaml']);
      const diagnostics = await client.waitForDiagnostics(uri, (found) => found.some((d) => d.code === 'flux-substitution-undefined'));
      assert.ok(diagnostics.some((d) => d.code === 'flux-substitution-undefined' && messageText(d).includes('MISSING')));
      assert.ok(!diagnostics.some((d) => messageText(d).includes('GREETING')), 'the name the Kustomization defines is known');
      assert.match(await client.waitForLog(/^index /), new RegExp(`${FILLER + 4} file\\(s\\) in \\d+ ms, read and summarised in worker threads$`));
    } finally {
      await client.shutdown();
    }
  },
);
