// The real language server over stdio under the conditions an editor creates:
// bursts of changes, cancelled requests, documents closed or deleted while
// analysed, the contract file deleted, broken and restored, settings changed
// during an audit, and a long session of edits (memory bounded). Every wait
// is for a state ("the diagnostics say X"), never for a time.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CancellationTokenSource, ResponseError } from 'vscode-languageserver-protocol/node';
import type { CodeAction, Diagnostic, TextDocumentEdit } from 'vscode-languageserver-protocol';
import { analyzeFile } from '../server/src/engine/pipeline/analyze';
import { defaultContract } from '../server/src/engine/contract/load';
import { applyLspEdits } from './helpers/arbitraries';
import { fileUri, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';
import { applyDirectives } from '../server/src/engine/pipeline/directives';
import { RULE_IDS } from '../server/src/engine/rules/registry';

/** The test client, plus every publish in order and the server's log (an analysis that throws is logged there). */
class RecordingClient extends TestLspClient {
  readonly history = new Map<string, Diagnostic[][]>();
  readonly log: string[] = [];
  constructor() {
    super();
    const inner = this as unknown as { diagnostics: Map<string, Diagnostic[]>; waiters: Array<() => void> };
    this.connection.onNotification('textDocument/publishDiagnostics', (params: { uri: string; diagnostics: Diagnostic[] }) => {
      this.history.set(params.uri, [...(this.history.get(params.uri) ?? []), params.diagnostics]);
      inner.diagnostics.set(params.uri, params.diagnostics);
      for (const wake of inner.waiters.splice(0)) wake();
    });
    this.connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.log.push(params.message);
    });
  }

  /** A round trip that the server answers only after handling everything sent before it. */
  async barrier(root: string): Promise<void> {
    const uri = fileUri(join(root, `barrier-${Math.random().toString(36).slice(2)}.yaml`));
    this.open(uri, JOB('barrier'));
    await this.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'ttl-missing'));
    this.close(uri);
  }

  crashes(): string[] {
    return this.log.filter((line) => /could not|Error:|exception|\n\s+at /i.test(line));
  }
}

const JOB = (name: string, extra = '') =>
  `${extra}apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n  backoffLimit: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: busybox:1.36\n`;

function repoWith(files: Record<string, string>): string {
  return tempRepo('fjg-lsp-robust-', files);
}

after(removeTempRepos);

async function session<T>(root: string, body: (client: RecordingClient) => Promise<T>, settings: Record<string, unknown> = {}): Promise<T> {
  const client = new RecordingClient();
  client.settings = settings;
  try {
    await client.initialize(root);
    const result = await body(client);
    assert.deepEqual(client.crashes(), [], 'the server logged no failed analysis');
    assert.equal(client.process.exitCode, null, 'the server is still running');
    return result;
  } finally {
    await client.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
}

const codes = (diagnostics: Diagnostic[] | undefined) => (diagnostics ?? []).map((d) => d.code);
const messageOf = (diagnostic: Diagnostic | undefined) => (typeof diagnostic?.message === 'string' ? diagnostic.message : (diagnostic?.message.value ?? ''));
const nameIn = (diagnostics: Diagnostic[]) => /Job "([^"]+)"/.exec(messageOf(diagnostics.find((d) => d.code === 'ttl-missing')))?.[1] ?? null;

test('100 changes in a burst: the last diagnostics match the last text, no stale publish after a fresh one, every code action fits its version', async () => {
  const root = repoWith({ 'apps/job.yaml': JOB('burst-0') });
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'apps/job.yaml'));
    const texts = new Map<number, string>([[1, JOB('burst-0')]]);
    client.open(uri, texts.get(1)!);
    await client.waitForDiagnostics(uri, (d) => nameIn(d) === 'burst-0');
    const actions: Array<Promise<CodeAction[] | null>> = [];
    for (let i = 1; i <= 100; i++) {
      // Each version moves `spec` down by a different number of comment lines.
      const text = JOB(`burst-${i}`, '# comment\n'.repeat(i % 7));
      texts.set(client.change(uri, text), text);
      if (i % 10 === 0) {
        const line = 4 + (i % 7);
        actions.push(
          client.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: { start: { line, character: 0 }, end: { line, character: 4 } }, context: { diagnostics: [] } }),
        );
      }
    }
    const last = await client.waitForDiagnostics(uri, (d) => nameIn(d) === 'burst-100');
    assert.deepEqual(last.find((d) => d.code === 'ttl-missing')!.range.start, { line: 4 + (100 % 7), character: 0 });
    await client.barrier(root);
    assert.equal(nameIn(client.latest(uri)!), 'burst-100', 'still the last text after everything settled');
    // Publishes follow the versions: once burst-N was shown, nothing older comes back.
    const seen = client.history
      .get(uri)!
      .map(nameIn)
      .filter((name): name is string => name !== null)
      .map((name) => Number(name.split('-')[1]));
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], `publish order ${seen.join(',')}`);
    // Every code action's edits, applied to the text of the version they name, do what they say.
    let checked = 0;
    for (const result of await Promise.all(actions)) {
      for (const action of result ?? []) {
        const change = (action.edit?.documentChanges ?? []).find((c): c is TextDocumentEdit => 'textDocument' in c && c.textDocument.uri === uri);
        if (!change) continue;
        assert.notEqual(change.textDocument.version, null, 'an open document is edited at a known version');
        const base = texts.get(change.textDocument.version!)!;
        const fixed = applyLspEdits(base, change.edits as Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }>);
        // As every face shows them: directives (a "Disable … for this line" fix writes one) applied.
        const after = applyDirectives(
          'apps/job.yaml',
          fixed,
          analyzeFile({ file: 'apps/job.yaml', text: fixed, role: 'resource', contract: defaultContract('.flux-job-guard.yaml') }).findings,
          RULE_IDS,
        );
        assert.ok(!after.some((f) => f.rule === 'ttl-missing' || f.rule === 'yaml-syntax'), `"${action.title}" at version ${change.textDocument.version} leaves ${after.map((f) => f.rule).join(',')}`);
        checked++;
      }
    }
    assert.ok(checked > 0, 'some code actions were answered with edits');
  });
});

test('$/cancelRequest on a code action: cancelled or answered, and the server answers the next one', async () => {
  const root = repoWith({ 'job.yaml': JOB('cancel-me') });
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'job.yaml'));
    client.open(uri, JOB('cancel-me'));
    const [missing] = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'ttl-missing'));
    const params = { textDocument: { uri }, range: missing.range, context: { diagnostics: [missing] } };
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const source = new CancellationTokenSource();
      const request = client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', params, source.token);
      if (i % 2 === 1) client.change(uri, JOB('cancel-me', `# edit ${i}\n`)); // a stale request: the text moved on
      source.cancel();
      try {
        const actions = await request;
        assert.ok(Array.isArray(actions));
        outcomes.push('answered');
      } catch (error) {
        assert.ok(error instanceof ResponseError && error.code === -32800, `only RequestCancelled, not ${String(error)}`);
        outcomes.push('cancelled');
      }
    }
    assert.equal(outcomes.length, 20);
    client.change(uri, JOB('cancel-me'));
    const [fresh] = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'ttl-missing' && x.range.start.line === 4));
    const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { ...params, range: fresh.range, context: { diagnostics: [fresh] } });
    assert.ok(
      actions.some((a) => a.isPreferred),
      'the server still answers with the insert-TTL fix',
    );
  });
});

test('didClose while the document is being analysed: its diagnostics end empty and stay so', async () => {
  const big = Array.from({ length: 400 }, (_, i) => JOB(`big-${i}`)).join('---\n');
  const root = repoWith({ 'big.yaml': big });
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'big.yaml'));
    for (let round = 0; round < 5; round++) {
      client.open(uri, big);
      client.change(uri, big.replace('big-0', `big-x${round}`));
      client.close(uri);
      await client.barrier(root);
      assert.deepEqual(client.latest(uri) ?? [], [], `round ${round}: a closed file that no audit covers shows nothing`);
    }
  });
});

test('a file deleted while open: its text speaks until it closes, then the contract sees it gone', async () => {
  const root = repoWith({
    '.flux-job-guard.yaml': 'ttl:\n  noFinishTimeout:\n    - file: apps/job.yaml\n      reason: the completions are the evidence\n',
    'apps/job.yaml': JOB('evidence'),
  });
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'apps/job.yaml'));
    const contractUri = fileUri(join(root, '.flux-job-guard.yaml'));
    client.open(uri, JOB('evidence'));
    await client.waitForDiagnostics(uri, (d) => d.length === 0);
    await client.waitForDiagnostics(contractUri, (d) => d.length === 0);
    unlinkSync(join(root, 'apps/job.yaml'));
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 3 }] });
    await client.barrier(root);
    assert.deepEqual(codes(client.latest(contractUri)), [], 'open: the editor text is the truth');
    client.close(uri);
    await client.waitForDiagnostics(contractUri, (d) => codes(d).includes('contract-file-missing'));
    await client.waitForDiagnostics(uri, (d) => d.length === 0);
  });
});

test('the contract file deleted, made invalid and restored: diagnostics follow each step', async () => {
  const contract = 'ttl:\n  noFinishTimeout:\n    - file: apps/job.yaml\n      reason: the completions are the evidence\n';
  const root = repoWith({ '.flux-job-guard.yaml': contract, 'apps/job.yaml': JOB('evidence') });
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'apps/job.yaml'));
    const contractPath = join(root, '.flux-job-guard.yaml');
    const contractUri = fileUri(contractPath);
    const watched = (type: number) => client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: contractUri, type }] });
    client.open(uri, JOB('evidence'));
    await client.waitForDiagnostics(uri, (d) => d.length === 0);

    unlinkSync(contractPath);
    await watched(3);
    await client.waitForDiagnostics(uri, (d) => codes(d).includes('ttl-missing'));

    writeFileSync(contractPath, 'ttl: [unclosed\n');
    await watched(1);
    await client.waitForDiagnostics(contractUri, (d) => codes(d).includes('contract-invalid'));
    assert.ok(codes(client.latest(uri)).includes('ttl-missing'));

    writeFileSync(contractPath, contract);
    await watched(2);
    await client.waitForDiagnostics(contractUri, (d) => d.length === 0);
    await client.waitForDiagnostics(uri, (d) => !codes(d).includes('ttl-missing'));

    // The same in the editor: the open contract broken and repaired by typing.
    client.open(contractUri, contract);
    client.change(contractUri, contract.replace('noFinishTimeout:', 'noFinishTimeout: [oops'));
    await client.waitForDiagnostics(contractUri, (d) => codes(d).includes('contract-invalid'));
    await client.waitForDiagnostics(uri, (d) => codes(d).includes('ttl-missing'));
    client.change(contractUri, contract);
    await client.waitForDiagnostics(contractUri, (d) => d.length === 0);
    await client.waitForDiagnostics(uri, (d) => d.length === 0);
    assert.equal(readFileSync(contractPath, 'utf8'), contract, 'the server never wrote the file');
  });
});

test('a configuration change in the middle of an audit: the audit answers, and the new settings apply', async () => {
  const files: Record<string, string> = { 'open.yaml': JOB('open').replace('  backoffLimit: 2\n', '  # converges: nothing to redo\n  ttlSecondsAfterFinished: 86400\n  backoffLimit: 2\n') };
  for (let i = 0; i < 300; i++) files[`apps/job-${i}.yaml`] = JOB(`job-${i}`);
  const root = repoWith(files);
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'open.yaml'));
    client.open(uri, files['open.yaml']);
    await client.waitForDiagnostics(uri, (d) => d.length === 0);
    const audits = [client.connection.sendRequest<{ folders: Array<{ jobs: number; errors: number }> }>('fluxJobGuard/audit')];
    client.settings = { ttl: { required: 3600 } };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    audits.push(client.connection.sendRequest<{ folders: Array<{ jobs: number; errors: number }> }>('fluxJobGuard/audit'));
    for (const result of await Promise.all(audits)) {
      assert.equal(result.folders.length, 1);
      assert.equal(result.folders[0].jobs, 301, 'both audits, whichever settings they ran with, saw every Job');
    }
    // The server pulls the new settings asynchronously: once the open file shows them, every audit does.
    await client.waitForDiagnostics(uri, (d) => codes(d).includes('ttl-unexpected-value'));
    const after = await client.connection.sendRequest<{ folders: Array<{ errors: number }> }>('fluxJobGuard/audit');
    assert.equal(after.folders[0].errors, 301, 'the audit holds every Job to 3600 (300 without a TTL, one with 86400)');
  });
});

test('10,000 edits in one session: the server answers throughout and its memory stays bounded', async () => {
  const root = repoWith({ 'apps/job.yaml': JOB('edit-0') });
  const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  await session(root, async (client) => {
    const uri = fileUri(join(root, 'apps/job.yaml'));
    const pid = client.process.pid!;
    client.open(uri, JOB('edit-0'));
    await client.waitForDiagnostics(uri, (d) => nameIn(d) === 'edit-0');
    let name = 'edit-0';
    let baseline = 0;
    const samples: number[] = [];
    for (let edit = 1; edit <= 10_000; edit++) {
      // Incremental edits: rename the Job (line 3), and every other edit adds or removes a comment line at the end.
      const next = `edit-${edit}`;
      const changes: Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }> = [
        { range: { start: { line: 3, character: 8 }, end: { line: 3, character: 8 + name.length } }, text: next },
      ];
      if (edit % 2 === 1) changes.push({ range: { start: { line: 12, character: 0 }, end: { line: 12, character: 0 } }, text: `# note ${edit}\n` });
      else changes.push({ range: { start: { line: 12, character: 0 }, end: { line: 13, character: 0 } }, text: '' });
      client.change(uri, changes);
      name = next;
      if (edit % 250 === 0) {
        await client.waitForDiagnostics(uri, (d) => nameIn(d) === name, 30_000);
        // Warm-up: the first 2,000 edits (the JIT, caches, the heap's first growth); the bound is on growth after it.
        if (edit >= 1000 && edit <= 2000) baseline = Math.max(baseline, rss(pid));
        if (edit > 2000) samples.push(rss(pid));
      }
    }
    const growth = Math.max(...samples) - baseline;
    console.log(
      `server RSS at most ${(baseline / 1024 / 1024).toFixed(1)} MB over edits 1,000-2,000, largest growth over the next 8,000: ${(growth / 1024 / 1024).toFixed(1)} MB; samples ${samples.map((x) => (x / 1024 / 1024).toFixed(0)).join(',')}`,
    );
    assert.ok(
      growth < 60 * 1024 * 1024,
      `server RSS grew by ${(growth / 1024 / 1024).toFixed(1)} MB after warm-up (bound 60 MB); samples ${samples.map((x) => (x / 1024 / 1024).toFixed(0)).join(',')} MB`,
    );
    const [missing] = (await client.waitForDiagnostics(uri, (d) => nameIn(d) === 'edit-10000')).filter((d) => d.code === 'ttl-missing');
    assert.deepEqual(missing.range.start, { line: 4, character: 0 }, 'the last text, analysed correctly');
  });
});

test('an open document over maxFileSize: one file-skipped finding instead of a parse at every keystroke', async () => {
  const huge = JOB('huge') + `# ${'x'.repeat(98)}\n`.repeat(2000); // 200 KB
  const root = repoWith({ 'huge.yaml': huge });
  await session(
    root,
    async (client) => {
      const uri = fileUri(join(root, 'huge.yaml'));
      client.open(uri, huge);
      const [skipped] = await client.waitForDiagnostics(uri, (d) => d.length > 0);
      assert.equal(skipped.code, 'file-skipped');
      assert.match(messageOf(skipped), /more than the size limit of 100000 bytes/);
      client.change(uri, JOB('small'));
      await client.waitForDiagnostics(uri, (d) => nameIn(d) === 'small');
    },
    { maxFileSize: 100_000 },
  );
});

test('documents from nowhere on disk (untitled:, a deleted folder, a git: diff view) do not take the server down', async () => {
  const root = repoWith({ 'ok.yaml': JOB('ok') });
  await session(root, async (client) => {
    // Opening a file whose folder does not exist used to throw in the server (ENOENT from realpath) and kill it.
    const gone = 'file:///nonexistent-fjg-folder/deeper/job.yaml';
    client.open('untitled:Untitled-1', JOB('untitled'));
    client.open(gone, JOB('gone'));
    client.open(`git:${join(root, 'ok.yaml')}?%7B%22ref%22%3A%22HEAD%22%7D`, JOB('in-git'));
    const ok = fileUri(join(root, 'ok.yaml'));
    client.open(ok, JOB('ok'));
    await client.waitForDiagnostics(ok, (d) => nameIn(d) === 'ok');
    await client.waitForDiagnostics(gone, (d) => nameIn(d) === 'gone');
    await client.barrier(root);
  });
});
