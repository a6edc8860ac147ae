// The editor around the findings, over the real server (`lsp --stdio`): key
// completion and hover in the contract file, the Create Contract File command,
// the status the server reports (indexing, auditing, the last audit's summary,
// re-audited after a save), its one log line per audit, and a syntax finding
// held back while the user is still typing the expression.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import type { CompletionList, Diagnostic, Hover, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { CONTRACT_HEADER } from '../server/src/engine/contract/edit';
import { fileUri, TestLspClient } from './helpers/lsp-client';
import { lines } from './helpers/table';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const CONTRACT = '.flux-job-guard.yaml';
after(removeTempRepos);

interface Status {
  state: string;
  folders: Array<{ folder: string; summaryLine: string; errors: number; jobs: number; filesWithProblems: number }>;
  problems?: { errors: number; warnings: number; files: number };
}

/** A server over `files`, recording status notifications, log lines, and the edits and documents it asks the editor for. */
async function serve(files: Record<string, string>, capabilities: Record<string, unknown> = {}) {
  const root = tempRepo('fjg-editor-', files);
  const client = new TestLspClient();
  const statuses: Status[] = [];
  const logs: string[] = [];
  const applied: WorkspaceEdit[] = [];
  const shown: string[] = [];
  let wake: (() => void) | null = null;
  const changed = () => wake?.();
  client.connection.onNotification('fluxJobGuard/status', (params: Status) => (statuses.push(params), changed()));
  client.connection.onNotification('window/logMessage', (params: { message: string }) => (logs.push(params.message), changed()));
  // As an editor does: apply the edit to the disk (the file is created with its text), then say so.
  client.connection.onRequest('workspace/applyEdit', (params: { edit: WorkspaceEdit }) => {
    applied.push(params.edit);
    for (const change of params.edit.documentChanges ?? []) {
      if (!('textDocument' in change)) continue;
      const file = new URL(change.textDocument.uri);
      mkdirSync(dirname(fileURLToPath(file)), { recursive: true });
      writeFileSync(file, change.edits.map((edit) => (edit as { newText: string }).newText).join(''));
    }
    return { applied: true };
  });
  client.connection.onRequest('window/showDocument', (params: { uri: string }) => (shown.push(params.uri), { success: true }));
  await client.connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: fileUri(root),
    workspaceFolders: [{ uri: fileUri(root), name: 'root' }],
    capabilities: { workspace: { configuration: true, workspaceEdit: { documentChanges: true } }, ...capabilities },
  });
  await client.connection.sendNotification('initialized', {});
  /** Waits until `probe` holds (checked at every notification). */
  const until = async (probe: () => boolean, what: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; statuses ${JSON.stringify(statuses.map((s) => s.state))}; logs ${JSON.stringify(logs)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  };
  return { root, client, statuses, logs, applied, shown, until, uri: (path: string) => fileUri(join(root, path)) };
}

function job(name: string, spec: string[]): string {
  return lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', `  name: ${name}`, 'spec:', ...spec, '  template:', '    spec:', '      restartPolicy: Never');
}

const TTL = ['  # converges: it skips what is done', '  ttlSecondsAfterFinished: 86400'];

describe('the contract file: key completion and hover over LSP', () => {
  test('completion offers the keys the mapping lacks, with the range they replace; none in another file', async () => {
    const contract = lines('ttl:', '  required: 86400', '  no');
    const { client, uri } = await serve({ [CONTRACT]: contract, 'apps/job.yaml': lines('ttl:', '  no') });
    try {
      client.open(uri(CONTRACT), contract);
      const list = await client.connection.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 2, character: 4 } });
      assert.deepEqual(
        list.items.map((item) => [item.label, (item.textEdit as { newText: string }).newText, JSON.stringify((item.textEdit as { range: unknown }).range)]),
        ['convergenceNote: ', 'noFinishTimeout:', 'otherFinishTimeout:'].map((text) => [
          text.replace(/: ?$/, ''),
          text,
          JSON.stringify({ start: { line: 2, character: 2 }, end: { line: 2, character: 4 } }),
        ]),
      );
      const documented = list.items.find((item) => item.label === 'noFinishTimeout')!;
      assert.match((documented.documentation as { value: string }).value, /keep \*\*no\*\* `ttlSecondsAfterFinished`/);
      // negative control: the same text in a file that is not the contract
      client.open(uri('apps/job.yaml'), lines('ttl:', '  no'));
      assert.equal(await client.connection.sendRequest('textDocument/completion', { textDocument: { uri: uri('apps/job.yaml') }, position: { line: 1, character: 4 } }), null);
    } finally {
      await client.shutdown();
    }
  });

  test('a space after a rule id offers its severities; a space in the indentation offers nothing', async () => {
    const contract = lines('rules:', '  ttl-missing: ', '  ');
    const { client, uri } = await serve({ [CONTRACT]: contract });
    try {
      client.open(uri(CONTRACT), contract);
      const space = { triggerKind: 2, triggerCharacter: ' ' };
      const values = await client.connection.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 1, character: 15 }, context: space });
      assert.deepEqual(
        values.items.map((item) => item.label),
        ['error', 'warning', 'info', 'off'],
      );
      assert.equal(await client.connection.sendRequest('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 2, character: 2 }, context: space }), null);
      // invoked there, the rule ids come (ttl-missing, set already, not among them)
      const keys = await client.connection.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 2, character: 2 } });
      assert.ok(keys.items.some((item) => item.label === 'flux-substitution-undefined'));
      assert.ok(!keys.items.some((item) => item.label === 'ttl-missing'), 'a rule set already is not offered again');
    } finally {
      await client.shutdown();
    }
  });

  test('a key whose value is a closed list writes `key: ` and opens its values (editor.action.triggerSuggest); other keys do not', async () => {
    const contract = lines('flux:', '  s');
    const { client, uri } = await serve({ [CONTRACT]: contract });
    try {
      client.open(uri(CONTRACT), contract);
      const list = await client.connection.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 1, character: 3 } });
      assert.deepEqual(
        list.items.map((item) => [item.label, (item.textEdit as { newText: string }).newText, item.command]),
        [
          ['substitution', 'substitution: ', { title: 'Suggest the values', command: 'editor.action.triggerSuggest' }],
          ['strict', 'strict: ', { title: 'Suggest the values', command: 'editor.action.triggerSuggest' }],
          // negative controls: a list and a nested mapping have no values to offer
          ['roots', 'roots:', undefined],
          ['sources', 'sources:', undefined],
          ['substituteFrom', 'substituteFrom:', undefined],
          ['variables', 'variables:', undefined],
        ],
      );
      // what the editor asks next, at the end of the written `substitution: ` (invoked, as the command does)
      const written = lines('flux:', '  substitution: ');
      client.change(uri(CONTRACT), written);
      const values = await client.connection.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri(CONTRACT) }, position: { line: 1, character: 16 } });
      assert.deepEqual(
        values.items.map((item) => [item.label, item.command]),
        [
          ['auto', undefined],
          ['always', undefined],
          ['never', undefined],
        ],
      );
    } finally {
      await client.shutdown();
    }
  });

  test('hover on a key shows its schema description over the key; none on a value or in another file', async () => {
    const contract = lines('flux:', '  strict: false');
    const { client, uri } = await serve({ [CONTRACT]: contract, 'apps/other.yaml': contract });
    try {
      client.open(uri(CONTRACT), contract);
      const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri: uri(CONTRACT) }, position: { line: 1, character: 4 } });
      assert.deepEqual(hover.range, { start: { line: 1, character: 2 }, end: { line: 1, character: 8 } });
      assert.match((hover.contents as { value: string }).value, /^\*\*strict\*\*\n\nFlux 2\.9 and later fail a reconcile on an undefined `\$\{NAME\}`/);
      assert.equal(await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uri(CONTRACT) }, position: { line: 1, character: 12 } }), null);
      client.open(uri('apps/other.yaml'), contract);
      assert.equal(await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uri('apps/other.yaml') }, position: { line: 1, character: 4 } }), null);
    } finally {
      await client.shutdown();
    }
  });
});

describe('Create Contract File (workspace/executeCommand)', () => {
  test('creates the file with the header and a body that loads without a finding, and shows it', async () => {
    const { client, uri, root, applied, shown } = await serve({ 'apps/job.yaml': job('a', TTL) }, { window: { showDocument: { support: true } } });
    try {
      const result = await client.connection.sendRequest('workspace/executeCommand', { command: 'fluxJobGuard.server.createContract', arguments: [fileUri(root)] });
      assert.deepEqual(result, { uri: uri(CONTRACT), created: true });
      assert.equal(applied.length, 1);
      const written = readFileSync(join(root, CONTRACT), 'utf8');
      assert.equal(
        written,
        lines(
          '# Flux Job Guard contract: which Jobs keep no finish timeout',
          '# (or another one), and why. Hover a key for its meaning.',
          'ttl:',
          '  required: 86400',
          '  noFinishTimeout: []',
          '  otherFinishTimeout: []',
        ),
      );
      // the header every created contract starts with reads without scrolling sideways: comments of 80 columns at most
      assert.ok(written.startsWith(`${CONTRACT_HEADER}\n`));
      assert.deepEqual(
        CONTRACT_HEADER.split('\n').filter((line) => line.length > 80 || !line.startsWith('# ')),
        [],
      );
      assert.deepEqual(shown, [uri(CONTRACT)]);
      // the editor opens it: it loads without a finding
      client.open(uri(CONTRACT), written);
      assert.deepEqual(await client.waitForDiagnostics(uri(CONTRACT), () => true), []);
    } finally {
      await client.shutdown();
    }
  });

  test('an existing contract file is shown, never written (negative control)', async () => {
    const contract = lines('rules:', '  ttl-missing: warning');
    const { client, uri, root, applied, shown } = await serve({ [CONTRACT]: contract }, { window: { showDocument: { support: true } } });
    try {
      const result = await client.connection.sendRequest('workspace/executeCommand', { command: 'fluxJobGuard.server.createContract', arguments: [fileUri(root)] });
      assert.deepEqual(result, { uri: uri(CONTRACT), created: false });
      assert.deepEqual(applied, []);
      assert.equal(readFileSync(join(root, CONTRACT), 'utf8'), contract);
      assert.deepEqual(shown, [uri(CONTRACT)]);
    } finally {
      await client.shutdown();
    }
  });

  test('the configured contractPath is the file created; a client without showDocument is not asked', async () => {
    const { client, root, applied, shown } = await serve({ 'apps/job.yaml': job('a', TTL) });
    client.settings = { contractPath: 'ci/guard.yaml' };
    try {
      const result = await client.connection.sendRequest('workspace/executeCommand', { command: 'fluxJobGuard.server.createContract', arguments: [fileUri(root)] });
      assert.deepEqual(result, { uri: fileUri(join(root, 'ci/guard.yaml')), created: true });
      assert.equal(applied.length, 1);
      assert.deepEqual(shown, []);
    } finally {
      await client.shutdown();
    }
  });
});

describe('status and the audit log', () => {
  test('indexing then idle at start; auditing then idle with the summary; one log line per audit', async () => {
    const broken = job('broken', ['  backoffLimit: 1']);
    const { client, statuses, logs, until, uri, root } = await serve({ 'apps/a.yaml': job('a', TTL), 'apps/b.yaml': broken });
    try {
      await until(() => statuses.some((s) => s.state === 'idle'), 'idle after indexing');
      assert.equal(statuses[0].state, 'indexing', 'the first status says the server is reading the folder');
      assert.deepEqual(statuses.at(-1)!.folders, [], 'no summary before an audit');
      const before = statuses.length;
      const response = await client.connection.sendRequest<{ folders: Array<{ summaryLine: string }> }>('fluxJobGuard/audit');
      await until(() => statuses.length > before && statuses.at(-1)!.state === 'idle' && statuses.at(-1)!.folders.length === 1, 'idle with a summary');
      const during = statuses.slice(before).map((s) => s.state);
      assert.ok(during.includes('auditing'), `auditing was announced: ${during.join(',')}`);
      assert.equal(statuses.at(-1)!.folders[0].summaryLine, 'FAIL: 1 error(s), 0 warning(s) in 2 Job(s) in 2 file(s)');
      assert.equal(response.folders[0].summaryLine, statuses.at(-1)!.folders[0].summaryLine);
      // what Problems shows from the server (the audit published b.yaml's error): the status item counts these
      await until(() => statuses.at(-1)!.problems?.errors === 1, 'the Problems counts after the audit');
      assert.deepEqual(statuses.at(-1)!.problems, { errors: 1, warnings: 0, files: 1 });
      assert.equal(statuses.at(-1)!.folders[0].filesWithProblems, 1, 'the toast names the files that hold the problems, not the files audited');
      const audits = logs.filter((line) => line.includes(fileUri(root)) && !line.startsWith('index '));
      assert.equal(audits.length, 1, `exactly one line for the audit: ${JSON.stringify(logs)}`);
      assert.equal(logs.filter((line) => line.startsWith(`index ${fileUri(root)}: 2 file(s) in `)).length, 1, `one line for reading the folder: ${JSON.stringify(logs)}`);
      assert.match(
        audits[0],
        new RegExp(
          `^audit ${fileUri(root).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 2 file\\(s\\), 2 Job\\(s\\), 1 error\\(s\\), 0 warning\\(s\\) in \\d+ ms · contract \\.flux-job-guard\\.yaml \\(none: defaults\\) · Flux Job Guard \\d+\\.\\d+\\.\\d+`,
        ),
      );
      assert.equal(logs.filter((line) => line.includes('FAIL:')).length, 0, 'the summary line is not logged a second time');

      // a fix, saved: the folder is audited again and the summary follows
      const fixed = job('broken', [...TTL, '  backoffLimit: 1']);
      writeFileSync(join(root, 'apps/b.yaml'), fixed);
      client.open(uri('apps/b.yaml'), broken);
      client.change(uri('apps/b.yaml'), fixed);
      await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri: uri('apps/b.yaml') } });
      await until(() => statuses.at(-1)!.state === 'idle' && statuses.at(-1)!.folders[0]?.summaryLine.startsWith('ok:'), 'the summary after the fix');
      assert.equal(statuses.at(-1)!.folders[0].summaryLine, 'ok: 2 Job(s) in 2 file(s) — 2 with a finish timeout, 0 that keep none with a written reason');
      await until(() => statuses.at(-1)!.problems?.errors === 0, 'the Problems counts after the fix');
      assert.deepEqual(statuses.at(-1)!.problems, { errors: 0, warnings: 0, files: 0 });
      assert.equal(logs.filter((line) => line.startsWith('audit ')).length, 2, 'one more line for the second audit');
    } finally {
      await client.shutdown();
    }
  });

  test('before any audit, a save audits nothing (negative control)', async () => {
    const text = job('a', ['  backoffLimit: 1']);
    const { client, statuses, logs, until, uri } = await serve({ 'apps/a.yaml': text });
    try {
      await until(() => statuses.some((s) => s.state === 'idle'), 'idle after indexing');
      client.open(uri('apps/a.yaml'), text);
      await client.waitForDiagnostics(uri('apps/a.yaml'), (d) => d.some((x) => x.code === 'ttl-missing'));
      client.change(uri('apps/a.yaml'), text + '\n');
      await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri: uri('apps/a.yaml') } });
      // the save has been handled once the server answers a later request
      await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uri('apps/a.yaml') }, position: { line: 0, character: 0 } });
      assert.ok(!statuses.some((s) => s.state === 'auditing'), `no audit: ${statuses.map((s) => s.state).join(',')}`);
      assert.deepEqual(
        logs.filter((line) => line.startsWith('audit ')),
        [],
      );
    } finally {
      await client.shutdown();
    }
  });
});

describe('no syntax error flashes while `${` is being typed', () => {
  // With substitution: always, every file is substituted; `${}` is what an editor makes of a typed `${`.
  const contract = lines('flux:', '  substitution: always');
  const text = lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: c', 'data:', '  a: "x"', '  b: "y"');
  const syntaxOn = (line: number) => (d: Diagnostic[]) => d.some((x) => x.code === 'flux-substitution-syntax' && x.range.start.line === line);
  const insert = (line: number, character: number, newText: string) => [{ range: { start: { line, character }, end: { line, character } }, text: newText }];

  /** The ConfigMap open in a server, its first diagnostics published. */
  async function opened(files: Record<string, string> = { [CONTRACT]: contract, 'apps/c.yaml': text }) {
    const served = await serve(files);
    const file = served.uri('apps/c.yaml');
    served.client.open(file, files['apps/c.yaml']);
    await served.client.waitForDiagnostics(file, () => true);
    return { client: served.client, file };
  }

  test('typing `${}` (auto-closed): no syntax finding on that line; typing on another line shows it', async () => {
    const { client, file } = await opened();
    try {
      const before = await client.connection.sendRequest<{ folders: Array<{ errors: number }> }>('fluxJobGuard/audit');
      const errorsBefore = before.folders[0].errors;
      client.clearDiagnostics(file); // what comes next is the analysis of the typed text
      const version = client.change(file, insert(5, 6, '${}'));
      const afterTyping = await client.waitForDiagnostics(file, () => true);
      assert.ok(!syntaxOn(5)(afterTyping), `held while typing: ${JSON.stringify(afterTyping)}`);
      assert.ok(version > 1);
      // the audit is not the editor: it counts the same unsaved text's syntax error at once (one
      // more error than before the typing: contract-no-jobs is the other, this repository has no Job)
      const audit = await client.connection.sendRequest<{ folders: Array<{ errors: number }> }>('fluxJobGuard/audit');
      assert.equal(audit.folders[0].errors, errorsBefore + 1, 'the audit reports the expression being typed');
      // the user moves on: an edit on another line
      client.change(file, insert(6, 6, 'z'));
      const moved = await client.waitForDiagnostics(file, syntaxOn(5));
      assert.deepEqual(
        moved.filter((d) => d.code === 'flux-substitution-syntax').map((d) => [d.range.start.line, d.range.start.character, d.range.end.character]),
        [[5, 6, 9]],
      );
    } finally {
      await client.shutdown();
    }
  });

  test('a save shows it; other findings are not held', async () => {
    const withUndefined = text.replace('"y"', '"${UNSET}"');
    const { client, uri } = await serve({ [CONTRACT]: contract, 'apps/c.yaml': withUndefined });
    try {
      const file = uri('apps/c.yaml');
      client.open(file, withUndefined);
      await client.waitForDiagnostics(file, (d) => d.some((x) => x.code === 'flux-substitution-undefined'));
      client.clearDiagnostics(file);
      client.change(file, insert(5, 6, '${}'));
      // the undefined name on line 6 is still published with this very analysis
      const typed = await client.waitForDiagnostics(file, (d) => d.some((x) => x.code === 'flux-substitution-undefined'));
      assert.ok(!syntaxOn(5)(typed));
      await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri: file } });
      await client.waitForDiagnostics(file, syntaxOn(5));
    } finally {
      await client.shutdown();
    }
  });

  test('negative controls: a complete expression just typed, or a `${}` in a whole-text change, is reported at once', async () => {
    const { client, file } = await opened();
    try {
      // closed and not empty: written out, however wrong (bash's array syntax)
      client.change(file, insert(5, 6, '${arr[@]}'));
      await client.waitForDiagnostics(file, syntaxOn(5));
      client.change(file, text.replace('"y"', '"${}"'));
      await client.waitForDiagnostics(file, syntaxOn(6));
    } finally {
      await client.shutdown();
    }
  });
});
