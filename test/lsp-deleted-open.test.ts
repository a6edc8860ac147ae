// A document the workbench still holds open after its file was deleted on disk
// (an editor closed, the model kept alive by a reference): it is no longer in
// the repository, so it shows nothing, however often the open documents are
// analysed again, until it is edited or its file comes back. Found by the e2e
// suites: the dependsOn suite deletes the files it added, and a later contract
// save re-analysed its still-open Kustomization, which then reported its own
// spec.path missing in the next suite's Problems panel.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileUri, TestLspClient } from './helpers/lsp-client';
import { kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

after(removeTempRepos);

const GOTK = `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://example.com/home-ops\n---\n${kustomization('flux-system', './clusters/home')}`;
const INFRA = kustomization('infra', './deps/infra');
const CONFIG = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  a: b\n';

/** `event`: what the watcher reports, the whole folder (and the files in it) or only the files beside the open one. */
async function afterDeletion(event: 'folder deleted' | 'only its neighbours', thenEdit = false): Promise<string[]> {
  const root = tempRepo('fjg-deleted-open-', {
    'clusters/home/flux-system/gotk-sync.yaml': GOTK,
    'clusters/home/deps.yaml': kustomization('deps', './deps/flux'),
    'deps/flux/infra.yaml': INFRA,
    'deps/infra/config.yaml': CONFIG,
  });
  const client = new TestLspClient();
  try {
    await client.initialize(root);
    const infra = fileUri(join(root, 'deps/flux/infra.yaml'));
    client.open(infra, INFRA);
    await client.waitForDiagnostics(infra, (d) => d.length === 0);
    rmSync(join(root, 'deps'), { recursive: true });
    // (the Kustomization that applies it reported gone too would make it dead, and dead files say nothing)
    const deleted = event === 'folder deleted' ? ['deps', 'deps/infra/config.yaml'] : ['deps/infra/config.yaml'];
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: deleted.map((path) => ({ uri: fileUri(join(root, path)), type: 3 })) });
    // Something makes the server analyse the open documents again: a contract written on disk. Its
    // diagnostics are published after the open documents are analysed again (contractChanged).
    const contract = fileUri(join(root, '.flux-job-guard.yaml'));
    writeFileSync(join(root, '.flux-job-guard.yaml'), 'ttl:\n  required: 86400\n');
    client.clearDiagnostics(contract);
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: contract, type: 1 }] });
    await client.waitForDiagnostics(contract, () => true);
    if (thenEdit) {
      client.change(infra, INFRA.replace('interval: 1h', 'interval: 2h'));
      return (await client.waitForDiagnostics(infra, (d) => d.length > 0)).map((d) => String(d.code));
    }
    return (client.latest(infra) ?? []).map((d) => String(d.code));
  } finally {
    await client.shutdown();
  }
}

test('deleted on disk while open: nothing is shown for it, though the open documents are analysed again', async () => {
  assert.deepEqual(await afterDeletion('folder deleted'), []);
});

test('negative controls: its own file not reported deleted, the open text is analysed (the folder it builds is gone); edited after the deletion, it is analysed again', async () => {
  assert.deepEqual(await afterDeletion('only its neighbours'), ['kustomize-reference']);
  assert.deepEqual(await afterDeletion('folder deleted', true), ['kustomize-reference']);
});

test('a folder deleted on disk, reported as the folder alone: its closed files show nothing and leave the model', async () => {
  const JOB =
    'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: once\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: alpine:3.20\n';
  const JOBS = kustomization('jobs', './jobs');
  const root = tempRepo('fjg-deleted-folder-', { 'clusters/home/flux-system/gotk-sync.yaml': GOTK, 'clusters/home/jobs.yaml': JOBS, 'jobs/once.yaml': JOB });
  const client = new TestLspClient();
  try {
    await client.initialize(root);
    await client.connection.sendRequest('fluxJobGuard/audit');
    const job = fileUri(join(root, 'jobs/once.yaml'));
    await client.waitForDiagnostics(job, (d) => d.some((diagnostic) => diagnostic.code === 'ttl-missing'));
    const builder = fileUri(join(root, 'clusters/home/jobs.yaml'));
    client.open(builder, JOBS);
    await client.waitForDiagnostics(builder, (d) => d.length === 0);
    rmSync(join(root, 'jobs'), { recursive: true });
    // The watcher may report only the folder (VS Code's does for a recursive delete on some platforms).
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(root, 'jobs')), type: 3 }] });
    await client.waitForDiagnostics(job, (d) => d.length === 0);
    // The model no longer holds its files: the open Kustomization's path names nothing now.
    await client.waitForDiagnostics(builder, (d) => d.some((diagnostic) => diagnostic.code === 'kustomize-reference'));
  } finally {
    await client.shutdown();
  }
});
