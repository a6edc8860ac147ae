// The Job's code lens over `flux-job-guard lsp --stdio` when many Flux
// Kustomizations apply the Job: the title counts them (a lens is one short
// line), and resolving it gives the client command that lists them where
// references are listed, with the place of each. Negative control: three are
// named in the title, and the lens explains the cycle as before.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { CodeLens } from 'vscode-languageserver-protocol';
import { SHOW_JOB_CYCLE, SHOW_REFERENCES } from '../server/src/shared/settings';
import { fileUri, TestLspClient } from './helpers/lsp-client';
import { FILES, JOB, moreApps } from './helpers/symbols-fixture';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

after(removeTempRepos);

/** The resolved lens of apps/job.yaml, and the URI of a file of the repository. */
async function resolvedLens(files: Record<string, string>): Promise<{ lens: CodeLens; uri: (path: string) => string }> {
  const root = tempRepo('fjg-lens-', files);
  const uri = (path: string) => fileUri(join(root, path));
  const client = new TestLspClient();
  try {
    await client.initialize(root);
    client.open(uri('apps/job.yaml'), JOB);
    await client.waitForDiagnostics(uri('apps/job.yaml'), (d) => d.some((x) => x.code === 'flux-substitution-undefined'));
    const [lens, ...others] = await client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: uri('apps/job.yaml') } });
    assert.deepEqual(others, [], 'one Job, one lens');
    return { lens: await client.connection.sendRequest<CodeLens>('codeLens/resolve', lens), uri };
  } finally {
    await client.shutdown();
  }
}

test('a Job ten Kustomizations apply: "10 Kustomizations" in the title, and the command lists all ten at their places', async () => {
  const { lens, uri } = await resolvedLens({ ...FILES, ...moreApps(10) });
  assert.deepEqual(lens.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  assert.equal(lens.command!.title, 're-created about 24 h after it finishes — 10 Kustomizations, every 1h');
  assert.equal(lens.command!.command, SHOW_REFERENCES);
  const kind = { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } };
  assert.deepEqual(lens.command!.arguments, [
    {
      uri: uri('apps/job.yaml'),
      position: { line: 0, character: 0 },
      // by file, as a references list shows them
      locations: ['apps-10', 'apps-2', 'apps-3', 'apps-4', 'apps-5', 'apps-6', 'apps-7', 'apps-8', 'apps-9', 'apps'].map((name) => ({ uri: uri(`clusters/home/${name}.yaml`), range: kind })),
    },
  ]);
});

test('(negative control) three Kustomizations are named in the title, and the lens explains the cycle', async () => {
  const { lens } = await resolvedLens({ ...FILES, ...moreApps(3) });
  // in the order the server's index holds them (the files' paths)
  assert.equal(lens.command!.title, 're-created about 24 h after it finishes — Kustomizations apps-2, every 1h; apps-3, every 1h; apps, every 1h');
  assert.equal(lens.command!.command, SHOW_JOB_CYCLE);
});
