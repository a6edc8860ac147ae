// Files that arrive on disk while the server runs (a checkout, a generator, a
// test writing fixtures): whatever order the watcher reports them in, and when
// it reports a new folder and not the files written into it, the server's index
// ends where a fresh read would, and the declare fix of the outside source is
// offered with every name used from it. Written while chasing an e2e run
// (outside.e2e.ts) where the editor offered the fix with too few names; none of
// these cases reproduces that, so they pin the property, not that flake.
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import type { CodeAction } from 'vscode-languageserver-protocol';
import { fileUri, TestLspClient } from './helpers/lsp-client';
import { TWO_CLUSTERS } from './helpers/outside-fixture';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

after(removeTempRepos);

const USERS = ['apps/job.yaml', 'infra/job.yaml', 'media/job.yaml'];
const TAKERS = ['clusters/a/apps.yaml', 'clusters/a/infra.yaml', 'clusters/b/apps.yaml', 'clusters/b/media.yaml'];
const DECLARE = "Declare Secret cluster-secrets (namespace flux-system) in the contract's flux.variables with the 4 names used from it";

/** The preferred fixes offered after `order`'s files arrive on disk, each reported (or, with `reported`, only those paths: a watcher may report a new folder and not its files). */
async function declareTitleAfter(order: string[], reported = order): Promise<string[]> {
  const initial = Object.fromEntries(Object.entries(TWO_CLUSTERS).filter(([path]) => !order.includes(path)));
  const root = tempRepo('fjg-watched-', initial);
  const client = new TestLspClient();
  try {
    await client.initialize(root);
    for (const path of order) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), TWO_CLUSTERS[path]);
    }
    // one event per path, each after the files are on disk, as a watcher reports them
    for (const path of reported) await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(root, path)), type: 1 }] });
    const secretsUri = fileUri(join(root, 'clusters/a/secrets.yaml'));
    client.open(secretsUri, TWO_CLUSTERS['clusters/a/secrets.yaml']);
    const [unknown] = await client.waitForDiagnostics(secretsUri, (d) => d.some((x) => x.code === 'flux-variables-unknown'));
    const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: secretsUri },
      range: unknown.range,
      context: { diagnostics: [unknown] },
    });
    return actions.filter((action) => action.isPreferred).map((action) => action.title);
  } finally {
    await client.shutdown();
  }
}

test('files that use the names first, then the Kustomizations that take the source: the fix declares every name', async () => {
  assert.deepEqual(await declareTitleAfter([...USERS, ...TAKERS]), [DECLARE]);
});

test('the other order: the Kustomizations first, then the files', async () => {
  assert.deepEqual(await declareTitleAfter([...TAKERS, ...USERS]), [DECLARE]);
});

test('a new folder reported alone (not its files), or after its files: the files below it are read, and the folder is no file', async () => {
  assert.deepEqual(await declareTitleAfter(['media/job.yaml'], ['media']), [DECLARE]);
  assert.deepEqual(await declareTitleAfter(['media/job.yaml'], ['media/job.yaml', 'media']), [DECLARE]);
});
