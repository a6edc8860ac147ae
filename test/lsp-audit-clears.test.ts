// A whole audit leaves no closed file of its folder showing findings it did not find, whoever
// published them. A file analysed from disk (a watcher event) while an earlier audit ran is in no
// audit's list of files: that audit, finishing, replaced the list, and the next whole audit cleared
// only what was listed, so a finding the repository no longer had stayed in the Problems panel (the
// shape of an e2e run's stale `kustomize-reference` in outside.e2e.ts). The server's own classes,
// over a repository in memory, with a connection that records what is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection, PublishDiagnosticsParams } from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import { Workspace } from '../server/src/lsp/workspace';
import { Diagnostics } from '../server/src/lsp/features/diagnostics';
import { auditFolder } from '../server/src/lsp/features/audit';
import type { Finding } from '../server/src/engine/base/types';
import { memoryFs } from './helpers/memory-fs';
import { job } from './helpers/flux-fixtures';

const ROOT = URI.parse('file:///repo');
const OTHER = URI.parse('file:///other');

/** A finding as a file analysed from an older index would have it. */
function staleFinding(file: string): Finding {
  return { rule: 'kustomize-reference', severity: 'error', file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 4 } }, message: './b does not exist', job: null };
}

function setUp() {
  const sent = new Map<string, PublishDiagnosticsParams['diagnostics']>();
  const logged: string[] = [];
  const connection = {
    console: { log: (line: string) => void logged.push(line) },
    sendDiagnostics: (params: PublishDiagnosticsParams) => void sent.set(params.uri, params.diagnostics),
  } as unknown as Connection;
  const files = { 'jobs/job.yaml': job('report', 'it writes the same report again', '          command: ["true"]\n') };
  const workspace = new Workspace(connection, { repoFs: () => memoryFs(files) }, (work) => work);
  workspace.folders = [ROOT, OTHER];
  const diagnostics = new Diagnostics(
    workspace,
    () => undefined,
    () => undefined,
  );
  return { sent, logged, workspace, diagnostics };
}

test('a whole audit clears a closed file that shows findings it did not find, though no audit listed the file', async () => {
  const { sent, workspace, diagnostics } = setUp();
  const stale = `${ROOT.toString()}/clusters/ks.yaml`;
  diagnostics.publish(stale, [staleFinding('clusters/ks.yaml')]);
  assert.equal(sent.get(stale)?.length, 1, 'the stale finding is shown');
  assert.equal(diagnostics.audited.get(ROOT.toString())?.has(stale) ?? false, false, 'and no audit lists the file');
  await auditFolder(workspace, diagnostics, ROOT.toString());
  assert.deepEqual(sent.get(stale), [], 'the audit found nothing there: cleared');
});

test('control: a closed file of another folder keeps what it shows (that folder was not audited)', async () => {
  const { sent, workspace, diagnostics } = setUp();
  const elsewhere = `${OTHER.toString()}/clusters/ks.yaml`;
  diagnostics.publish(elsewhere, [staleFinding('clusters/ks.yaml')]);
  await auditFolder(workspace, diagnostics, ROOT.toString());
  assert.equal(sent.get(elsewhere)?.length, 1);
});

test("an audit of the changed files alone clears it too: its result is the whole folder's", async () => {
  const { sent, logged, workspace, diagnostics } = setUp();
  await auditFolder(workspace, diagnostics, ROOT.toString());
  const stale = `${ROOT.toString()}/clusters/ks.yaml`;
  diagnostics.publish(stale, [staleFinding('clusters/ks.yaml')]);
  await auditFolder(workspace, diagnostics, ROOT.toString(), ['jobs/job.yaml']);
  assert.match(logged[logged.length - 1], /1 file\(s\) audited again/, 'the audit was of the changed file alone');
  assert.deepEqual(sent.get(stale), [], 'cleared by the audit of one changed file');
});
