// The real language server over stdio (`dist/cli.js lsp --stdio`), driven the
// way an editor drives it, over repositories written to temporary folders:
// quick fixes for every TTL rule, the contract file's own diagnostics and how
// they follow the editor, the workspace audit, settings and multi-root.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CodeAction, Diagnostic, Range, TextDocumentEdit } from 'vscode-languageserver-protocol';
import { applyEdits, editsFor, fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import contractSchema from '../schemas/flux-job-guard.schema.json';
import { lines } from './helpers/table';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const CONTRACT = '.flux-job-guard.yaml';
const PLACEHOLDER = '# converges: TODO say why a second run reaches the same state and does not fail';
const NOTE = '# converges: it skips what is already done';

after(removeTempRepos);

/** A repository in a new temporary folder. */
function repo(files: Record<string, string>): string {
  return tempRepo('fjg-lsp-', files);
}

/** A Job; `spec:` is line 4 and `specLines` start at line 5. */
function job(name: string, specLines: string[], podLines: string[] = []): string {
  return lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', `  name: ${name}`, 'spec:', ...specLines, '  template:', '    spec:', ...podLines, '      restartPolicy: Never');
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => String(d.code)).sort();
const has = (code: string) => (diagnostics: Diagnostic[]) => diagnostics.some((d) => d.code === code);
const hasNot = (code: string) => (diagnostics: Diagnostic[]) => !diagnostics.some((d) => d.code === code);
const rangeOf = (d: Diagnostic) => [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character];

/** What VS Code says it can do, as far as this server cares. */
const CAPABILITIES = {
  workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceEdit: { documentChanges: true } },
};

/** Where the client says each rule's documentation is (VS Code: the bundled docs/rules.md at the rule's heading). */
const RULE_DOCS = Object.fromEntries(Object.keys(contractSchema.properties.rules.properties).map((rule) => [rule, `test-docs:/rules.md#${rule}`]));

/** A server for the workspace folders `roots`, initialized the way VS Code does it. */
async function started(roots: string | string[], settings: Record<string, unknown> = {}): Promise<TestLspClient> {
  const folders = (Array.isArray(roots) ? roots : [roots]).map((root, i) => ({ uri: fileUri(root), name: `folder${i}` }));
  const client = new TestLspClient();
  client.settings = settings;
  await client.connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: folders[0].uri,
    workspaceFolders: folders,
    capabilities: CAPABILITIES,
    initializationOptions: { ruleDocs: RULE_DOCS },
  });
  await client.connection.sendNotification('initialized', {});
  return client;
}

async function codeActions(client: TestLspClient, uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
  return await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic], only: ['quickfix'] },
  });
}

/** The version each TextDocumentEdit of an action names for `uri`. */
function versionsIn(action: CodeAction, uri: string): Array<number | null> {
  return (action.edit?.documentChanges ?? []).filter((change): change is TextDocumentEdit => 'textDocument' in change && change.textDocument.uri === uri).map((change) => change.textDocument.version);
}

// ---------------------------------------------------------------------------------------------
// Open, see the finding, take the quick fix, see it clear: every TTL rule with an in-file fix
// ---------------------------------------------------------------------------------------------

/** The range the fix's command opens the contract at (fluxJobGuard.revealReason), checked to name `uri`. */
function revealedReason(action: CodeAction, uri: string): Range {
  assert.equal(action.command?.command, 'fluxJobGuard.revealReason', 'the fix opens the contract after its edit');
  const [args] = action.command.arguments as unknown as Array<{ uri: string; range: Range }>;
  assert.equal(args.uri, uri);
  return args.range;
}

function textAt(text: string, range: Range): string {
  const all = text.split('\n');
  assert.equal(range.start.line, range.end.line, 'one line');
  return all[range.start.line].slice(range.start.character, range.end.character);
}

describe('quick fixes over lsp --stdio', () => {
  const contract = lines('ttl:', '  noFinishTimeout:', '    - file: forbidden.yaml', '      job: forbidden', '      reason: Its completions are the record of the import.');
  const cases: Array<{ rule: string; file: string; text: string; range: number[]; fixed: string; after: string[] }> = [
    {
      rule: 'ttl-missing',
      file: 'missing.yaml',
      text: job('missing', ['  backoffLimit: 2']),
      range: [4, 0, 4, 4],
      fixed: job('missing', [`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2']),
      after: ['ttl-convergence-note'],
    },
    {
      rule: 'ttl-unexpected-value',
      file: 'unexpected.yaml',
      text: job('unexpected', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']),
      range: [6, 27, 6, 31],
      fixed: job('unexpected', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      after: [],
    },
    {
      rule: 'ttl-forbidden',
      file: 'forbidden.yaml',
      text: job('forbidden', ['  backoffLimit: 2', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      range: [7, 2, 7, 25],
      fixed: job('forbidden', ['  backoffLimit: 2']),
      after: [],
    },
    {
      rule: 'ttl-misplaced',
      file: 'misplaced.yaml',
      text: job('misplaced', [], [`      ${NOTE}`, '      ttlSecondsAfterFinished: 86400']),
      range: [8, 6, 8, 29],
      fixed: job('misplaced', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      after: [],
    },
    {
      rule: 'ttl-invalid',
      file: 'invalid.yaml',
      text: job('invalid', [`  ${NOTE}`, '  ttlSecondsAfterFinished: "86400"']),
      range: [6, 27, 6, 34],
      fixed: job('invalid', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      after: [],
    },
  ];

  for (const c of cases) {
    test(`${c.rule}: diagnostic, code action, apply, cleared`, async () => {
      const root = repo({ [CONTRACT]: contract, [c.file]: c.text });
      const client = await started(root);
      try {
        const uri = fileUri(join(root, c.file));
        client.open(uri, c.text);
        const diagnostics = await client.waitForDiagnostics(uri, has(c.rule));
        const diagnostic = diagnostics.find((d) => d.code === c.rule)!;
        assert.deepEqual(rangeOf(diagnostic), c.range);
        assert.equal(diagnostic.source, 'flux-job-guard');
        assert.equal(diagnostic.severity, 1, 'error');
        assert.ok(diagnostic.codeDescription?.href.endsWith(`#${c.rule}`), diagnostic.codeDescription?.href);
        assert.equal(diagnostic.codeDescription?.href, RULE_DOCS[c.rule], 'the link the client gave for the rule');
        assert.ok(messageText(diagnostic).length > 20);

        const actions = await codeActions(client, uri, diagnostic);
        const preferred = actions.filter((action) => action.isPreferred && action.diagnostics?.some((d) => d.code === c.rule));
        assert.equal(preferred.length, 1, `one preferred fix among ${JSON.stringify(actions.map((a) => a.title))}`);
        const [fix] = preferred;
        assert.equal(fix.kind, 'quickfix');
        assert.deepEqual(versionsIn(fix, uri), [1], "the edit names the open document's version");
        const fixed = applyEdits(c.text, editsFor(fix.edit!, uri));
        assert.equal(fixed, c.fixed);

        client.change(uri, fixed);
        const after = await client.waitForDiagnostics(uri, hasNot(c.rule));
        assert.deepEqual(codes(after), c.after);
        // Negative control: typing the old text back brings the finding back.
        client.change(uri, c.text);
        await client.waitForDiagnostics(uri, has(c.rule));
      } finally {
        await client.shutdown();
      }
    });
  }

  test('ttl-convergence-note: a warning whose only fix is to disable it; writing the reason clears it', async () => {
    const text = job('note', ['  ttlSecondsAfterFinished: 86400']);
    const root = repo({ 'note.yaml': text });
    const client = await started(root);
    try {
      const uri = fileUri(join(root, 'note.yaml'));
      client.open(uri, text);
      const [diagnostic] = await client.waitForDiagnostics(uri, has('ttl-convergence-note'));
      assert.deepEqual([diagnostic.code, diagnostic.severity, rangeOf(diagnostic)], ['ttl-convergence-note', 2, [5, 2, 5, 25]]);
      // No fix can write the reason; only the directive that silences it (with a placeholder reason of its own).
      assert.deepEqual(
        (await codeActions(client, uri, diagnostic)).map((action) => [action.title, action.isPreferred ?? false]),
        [['Disable ttl-convergence-note for this line', false]],
      );
      client.change(uri, job('note', ['  ttlSecondsAfterFinished: 86400 # converges: it only reads']));
      assert.deepEqual(await client.waitForDiagnostics(uri, (d) => d.length === 0), []);
    } finally {
      await client.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The contract file's diagnostics
// ---------------------------------------------------------------------------------------------

describe('the contract file in the editor', () => {
  const IMPORT = job('import-v1', ['  backoffLimit: 2']);
  const IMPORT_WITH_TTL = job('import-v1', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2']);
  const CONTRACT_TEXT = lines(
    'ttl:',
    '  noFinishTimeout:',
    '    - file: import.yaml', // 2
    '      job: import-v1', // 3
    '      reason: Its completions are the record of the import.',
  );

  test("a client without workspace-folder support (any LSP client) still gets the contract's diagnostics at startup", async () => {
    const root = repo({ [CONTRACT]: lines('ttl:', '  noFinishTimeout:', '    - file: gone.yaml', '      reason: Removed long ago.') });
    const client = new TestLspClient();
    try {
      await client.initialize(root); // capabilities without workspace.workspaceFolders, as e.g. a minimal LSP client sends
      const diagnostics = await client.waitForDiagnostics(fileUri(join(root, CONTRACT)), has('contract-file-missing'));
      assert.deepEqual(
        diagnostics.map((d) => [d.code, ...rangeOf(d)]),
        [['contract-file-missing', 2, 12, 2, 21]],
      );
    } finally {
      await client.shutdown();
    }
  });

  test('a rotten entry gets a squiggle without opening anything', async () => {
    const root = repo({
      [CONTRACT]: lines('ttl:', '  noFinishTimeout:', '    - file: gone.yaml', '      reason: Removed long ago.', '    - file: import.yaml', '      reason: ""'),
      'import.yaml': IMPORT,
    });
    const client = await started(root);
    try {
      const diagnostics = await client.waitForDiagnostics(fileUri(join(root, CONTRACT)), (d) => d.length >= 2);
      assert.deepEqual(
        diagnostics.map((d) => [d.code, ...rangeOf(d)]),
        [
          ['contract-file-missing', 2, 12, 2, 21],
          ['contract-reason-missing', 5, 14, 5, 16],
        ],
      );
      for (const d of diagnostics) {
        assert.equal(d.source, 'flux-job-guard');
        assert.ok(d.codeDescription?.href.endsWith(`#${d.code}`));
      }
    } finally {
      await client.shutdown();
    }
  });

  test("the contract's diagnostics follow a manifest it names as it changes in the editor", async () => {
    const root = repo({ [CONTRACT]: CONTRACT_TEXT, 'import.yaml': IMPORT });
    const client = await started(root);
    const contractUri = fileUri(join(root, CONTRACT));
    const uri = fileUri(join(root, 'import.yaml'));
    try {
      assert.deepEqual(await client.waitForDiagnostics(contractUri, () => true), [], 'a sound contract starts clean');
      client.open(uri, IMPORT);
      assert.deepEqual(await client.waitForDiagnostics(uri, () => true), []);
      client.change(uri, IMPORT_WITH_TTL); // not saved: the editor's text counts
      const stale = await client.waitForDiagnostics(contractUri, has('contract-stale'));
      assert.deepEqual(
        stale.map((d) => [d.code, ...rangeOf(d)]),
        [['contract-stale', 3, 11, 3, 20]],
      );
      assert.deepEqual(codes(await client.waitForDiagnostics(uri, has('ttl-forbidden'))), ['ttl-forbidden']);
      client.change(uri, IMPORT);
      assert.deepEqual(await client.waitForDiagnostics(contractUri, hasNot('contract-stale')), []);
      // Renaming the Job in the editor: the entry now names a Job that is not in the file.
      client.change(uri, IMPORT.replace('import-v1', 'import-v2'));
      const noJob = await client.waitForDiagnostics(contractUri, has('contract-no-job'));
      assert.deepEqual(
        noJob.map((d) => [d.code, ...rangeOf(d)]),
        [['contract-no-job', 3, 11, 3, 20]],
      );
    } finally {
      await client.shutdown();
    }
  });

  test('editing the open contract re-checks the open manifests (the contract-side quick fix)', async () => {
    const root = repo({ [CONTRACT]: lines('ttl:', '  required: 86400'), 'import.yaml': IMPORT });
    const client = await started(root);
    const contractUri = fileUri(join(root, CONTRACT));
    const uri = fileUri(join(root, 'import.yaml'));
    try {
      client.open(uri, IMPORT);
      const [missing] = await client.waitForDiagnostics(uri, has('ttl-missing'));
      const contractText = lines('ttl:', '  required: 86400');
      client.open(contractUri, contractText);
      const actions = await codeActions(client, uri, missing);
      const add = actions.find((action) => action.title === 'Add Job "import-v1" to noFinishTimeout in .flux-job-guard.yaml');
      assert.ok(add, JSON.stringify(actions.map((a) => a.title)));
      assert.deepEqual(editsFor(add.edit!, uri), [], 'the contract-side fix leaves the manifest alone');
      assert.deepEqual(versionsIn(add, contractUri), [1], "it names the open contract's version");
      const edited = applyEdits(contractText, editsFor(add.edit!, contractUri));
      assert.equal(edited, lines('ttl:', '  required: 86400', '  noFinishTimeout:', '    - file: import.yaml', '      job: import-v1', '      reason: TODO write why this Job is an exception'));
      assert.equal(textAt(edited, revealedReason(add, contractUri)), 'TODO write why this Job is an exception', 'after the edit the contract opens with the reason to write selected');
      client.change(contractUri, edited);
      assert.deepEqual(await client.waitForDiagnostics(uri, hasNot('ttl-missing')), []);
      // And back: the contract without the entry brings ttl-missing back.
      client.change(contractUri, contractText);
      await client.waitForDiagnostics(uri, has('ttl-missing'));
      // A contract edit that raises the required value re-checks too.
      client.change(contractUri, lines('ttl:', '  required: 3600', '  noFinishTimeout:', '    - file: import.yaml', '      reason: Kept.'));
      assert.deepEqual(await client.waitForDiagnostics(uri, hasNot('ttl-missing')), []);
    } finally {
      await client.shutdown();
    }
  });

  test('the contract-side fix creates the contract file when there is none', async () => {
    const root = repo({ 'import.yaml': IMPORT });
    const client = await started(root);
    const uri = fileUri(join(root, 'import.yaml'));
    try {
      client.open(uri, IMPORT);
      const [missing] = await client.waitForDiagnostics(uri, has('ttl-missing'));
      const add = (await codeActions(client, uri, missing)).find((action) => action.title.startsWith('Add Job "import-v1" to noFinishTimeout'))!;
      const contractUri = fileUri(join(root, CONTRACT));
      const create = (add.edit!.documentChanges ?? []).find((change) => 'kind' in change && change.kind === 'create');
      assert.deepEqual(create, { kind: 'create', uri: contractUri, options: { ignoreIfExists: true } });
      assert.equal(
        applyEdits('', editsFor(add.edit!, contractUri)),
        lines(
          '# Flux Job Guard contract: which Jobs keep no finish timeout',
          '# (or another one), and why. Hover a key for its meaning.',
          'ttl:',
          '  noFinishTimeout:',
          '    - file: import.yaml',
          '      job: import-v1',
          '      reason: TODO write why this Job is an exception',
        ),
      );
      assert.equal(textAt(applyEdits('', editsFor(add.edit!, contractUri)), revealedReason(add, contractUri)), 'TODO write why this Job is an exception', 'the new contract opens at the reason');
    } finally {
      await client.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The workspace audit
// ---------------------------------------------------------------------------------------------

describe('fluxJobGuard/audit', () => {
  test('returns the summary and publishes diagnostics for files never opened', async () => {
    const root = repo({
      [CONTRACT]: lines('ttl:', '  noFinishTimeout:', '    - file: gone.yaml', '      reason: Removed.'),
      'jobs/missing.yaml': job('missing', ['  backoffLimit: 2']),
      'jobs/good.yaml': job('good', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      'jobs/note.yaml': job('note', ['  ttlSecondsAfterFinished: 86400']),
    });
    const client = await started(root);
    try {
      const response = await client.connection.sendRequest<{ folders: Array<Record<string, unknown>> }>('fluxJobGuard/audit');
      // how long it took varies: a number, checked apart
      const durations = response.folders.map(({ durationMs }) => durationMs);
      assert.ok(
        durations.every((ms) => typeof ms === 'number' && ms >= 0),
        `durations ${durations.join(',')}`,
      );
      assert.deepEqual(
        response.folders.map(({ durationMs: _durationMs, ...rest }) => rest),
        [
          {
            folder: fileUri(root),
            summaryLine: 'FAIL: 2 error(s), 1 warning(s) in 3 Job(s) in 3 file(s)',
            files: 3,
            jobs: 3,
            withTtl: 2,
            keepNone: 0,
            errors: 2,
            warnings: 1,
            // missing.yaml (error), note.yaml (warning), the contract (its entry names a missing file)
            filesWithProblems: 3,
            contractPath: CONTRACT,
            contractExists: true,
          },
        ],
      );
      const missing = await client.waitForDiagnostics(fileUri(join(root, 'jobs/missing.yaml')), has('ttl-missing'));
      assert.deepEqual(
        missing.map((d) => [d.code, ...rangeOf(d)]),
        [['ttl-missing', 4, 0, 4, 4]],
      );
      const note = await client.waitForDiagnostics(fileUri(join(root, 'jobs/note.yaml')), has('ttl-convergence-note'));
      assert.deepEqual(codes(note), ['ttl-convergence-note']);
      const contract = await client.waitForDiagnostics(fileUri(join(root, CONTRACT)), has('contract-file-missing'));
      assert.deepEqual(
        contract.map((d) => [d.code, ...rangeOf(d)]),
        [['contract-file-missing', 2, 12, 2, 21]],
      );
      assert.ok((client.latest(fileUri(join(root, 'jobs/good.yaml'))) ?? []).length === 0, 'a clean file has no diagnostic');
    } finally {
      await client.shutdown();
    }
  });

  test('a save in an audited folder audits that file again, not the folder, and the summary follows; a ConfigMap saved audits it all', async () => {
    const root = repo({
      'jobs/a.yaml': job('a', ['  backoffLimit: 2']),
      'jobs/b.yaml': job('b', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      'jobs/settings.yaml': lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', 'data:', '  A: "1"'),
    });
    const client = await started(root);
    try {
      const first = await client.connection.sendRequest<{ folders: Array<{ errors: number }> }>('fluxJobGuard/audit');
      assert.equal(first.folders[0].errors, 1);
      const from = client.logs.length;
      const uri = fileUri(join(root, 'jobs/a.yaml'));
      const fixed = job('a', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']);
      client.open(uri, job('a', ['  backoffLimit: 2']));
      client.change(uri, fixed);
      await client.waitForDiagnostics(uri, (diagnostics) => diagnostics.length === 0);
      writeFileSync(join(root, 'jobs/a.yaml'), fixed);
      void client.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
      const line = await client.waitForLog(/^audit .* 0 error\(s\)/, from);
      assert.match(line, /\(1 file\(s\) audited again, the rest as before\)/);
      // the control: a variable source can change what every file says
      const settings = fileUri(join(root, 'jobs/settings.yaml'));
      const changed = lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', 'data:', '  B: "1"');
      client.open(settings, lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', 'data:', '  A: "1"'));
      client.change(settings, changed);
      await client.waitForDiagnostics(settings, () => true);
      writeFileSync(join(root, 'jobs/settings.yaml'), changed);
      const next = client.logs.length;
      void client.connection.sendNotification('textDocument/didSave', { textDocument: { uri: settings } });
      assert.doesNotMatch(await client.waitForLog(/^audit /, next), /audited again/);
    } finally {
      await client.shutdown();
    }
  });

  test('zero Jobs: contract-no-jobs on the contract file, from the audit', async () => {
    const root = repo({ [CONTRACT]: lines('# where the Jobs are', 'jobs:', '  include:', '    - kubernetes/**'), 'jobs/good.yaml': job('good', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']) });
    const client = await started(root);
    try {
      const response = await client.connection.sendRequest<{ folders: Array<{ summaryLine: string; errors: number; jobs: number }> }>('fluxJobGuard/audit');
      assert.deepEqual(
        response.folders.map((f) => [f.summaryLine, f.errors, f.jobs]),
        [['FAIL: 1 error(s), 0 warning(s) in 0 Job(s) in 0 file(s)', 1, 0]],
      );
      const diagnostics = await client.waitForDiagnostics(fileUri(join(root, CONTRACT)), has('contract-no-jobs'));
      assert.deepEqual(
        diagnostics.map((d) => [d.code, ...rangeOf(d)]),
        [['contract-no-jobs', 2, 2, 2, 9]],
      );
    } finally {
      await client.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Settings and multi-root workspaces
// ---------------------------------------------------------------------------------------------

describe('settings', () => {
  test('a settings change re-checks the open files', async () => {
    const text = job('hourly', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']);
    const root = repo({ 'hourly.yaml': text });
    const client = await started(root);
    const uri = fileUri(join(root, 'hourly.yaml'));
    try {
      client.open(uri, text);
      await client.waitForDiagnostics(uri, has('ttl-unexpected-value'));
      client.settings = { ttl: { required: 3600 } };
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      assert.deepEqual(await client.waitForDiagnostics(uri, hasNot('ttl-unexpected-value')), []);
      client.settings = {};
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      await client.waitForDiagnostics(uri, has('ttl-unexpected-value'));
    } finally {
      await client.shutdown();
    }
  });

  test('the contract file wins over the settings', async () => {
    const text = job('hourly', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']);
    const root = repo({ 'hourly.yaml': text, [CONTRACT]: lines('ttl:', '  required: 86400') });
    const client = await started(root, { ttl: { required: 3600 } });
    const uri = fileUri(join(root, 'hourly.yaml'));
    try {
      client.open(uri, text);
      const diagnostics = await client.waitForDiagnostics(uri, has('ttl-unexpected-value'));
      assert.match(messageText(diagnostics[0]), /the contract requires 86400/);
    } finally {
      await client.shutdown();
    }
  });

  test('severity overrides from the settings', async () => {
    const text = job('note', ['  ttlSecondsAfterFinished: 86400']);
    const root = repo({ 'note.yaml': text });
    const client = await started(root, { rules: { 'ttl-convergence-note': 'error' } });
    const uri = fileUri(join(root, 'note.yaml'));
    try {
      client.open(uri, text);
      const [diagnostic] = await client.waitForDiagnostics(uri, has('ttl-convergence-note'));
      assert.equal(diagnostic.severity, 1);
    } finally {
      await client.shutdown();
    }
  });
});

describe('multi-root workspace', () => {
  test('each folder has its own contract', async () => {
    const text = job('hourly', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']);
    const a = repo({ [CONTRACT]: lines('ttl:', '  required: 3600', '  noFinishTimeout:', '    - file: gone-a.yaml', '      reason: Removed.'), 'hourly.yaml': text });
    const b = repo({ [CONTRACT]: lines('ttl:', '  required: 86400', '  noFinishTimeout:', '    - file: gone-b.yaml', '      reason: Removed.'), 'hourly.yaml': text });
    const client = await started([a, b]);
    try {
      const uriA = fileUri(join(a, 'hourly.yaml'));
      const uriB = fileUri(join(b, 'hourly.yaml'));
      client.open(uriB, text);
      client.open(uriA, text);
      assert.deepEqual(codes(await client.waitForDiagnostics(uriB, has('ttl-unexpected-value'))), ['ttl-unexpected-value']);
      assert.deepEqual(await client.waitForDiagnostics(uriA, () => true), [], 'folder a requires 3600');
      const contractA = await client.waitForDiagnostics(fileUri(join(a, CONTRACT)), has('contract-file-missing'));
      assert.match(messageText(contractA[0]), /gone-a\.yaml/);
      const contractB = await client.waitForDiagnostics(fileUri(join(b, CONTRACT)), has('contract-file-missing'));
      assert.match(messageText(contractB[0]), /gone-b\.yaml/);
      const response = await client.connection.sendRequest<{ folders: Array<{ folder: string; errors: number }> }>('fluxJobGuard/audit');
      assert.deepEqual(
        response.folders.map((f) => [f.folder, f.errors]),
        [
          [fileUri(a), 1],
          [fileUri(b), 2],
        ],
      );
    } finally {
      await client.shutdown();
    }
  });
});
