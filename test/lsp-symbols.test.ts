// Flux variables as symbols over `flux-job-guard lsp --stdio`, on the
// repository of helpers/symbols-fixture.ts written to disk: the capabilities, and
// each request with exact ranges (completion, references, prepareRename and
// rename, inlay hints with the setting, code lens and its resolve, document
// and workspace symbols); an edit of the defining file refreshes the hints.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CodeLens, CompletionList, DocumentSymbol, InlayHint, Location, SymbolInformation, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { applyEdits, editsFor, fileUri, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';
import { APPS, FILES, JOB } from './helpers/symbols-fixture';

let root: string;
let client: TestLspClient;
let refreshes = 0;
const uri = (path: string) => fileUri(join(root, path));
const JOB_URI = () => uri('apps/job.yaml');
const COMMAND = 13;
const range = (line: number, start: number, end: number, endLine = line) => ({ start: { line, character: start }, end: { line: endLine, character: end } });
const request = <T>(method: string, params: object) => client.connection.sendRequest<T>(method, params);

/** Asks until `accept` holds (the server answers from state that other notifications change). */
async function poll<T>(ask: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10000;
  for (;;) {
    const value = await ask();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}\n${client.stderr}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const hintsOf = (from = 0, to = 20) => request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri: JOB_URI() }, range: range(from, 0, 0, to) });
/** A hint's label as the server sends it: plain text (label parts would be a different answer). */
const labelText = ({ label }: InlayHint): string => {
  if (typeof label !== 'string') throw new Error(`a plain-text inlay hint label, not ${JSON.stringify(label)}`);
  return label;
};
const brief = (hints: InlayHint[]) => hints.map((hint) => `${hint.position.line}:${hint.position.character} ${labelText(hint)}`);

before(async () => {
  root = tempRepo('fjg-symbols-', FILES);
  client = new TestLspClient();
  client.connection.onRequest('workspace/inlayHint/refresh', () => {
    refreshes++;
    return null;
  });
  client.connection.onRequest('workspace/codeLens/refresh', () => null);
  const result = await client.initialize(root, { inlayHint: { refreshSupport: true }, codeLens: { refreshSupport: true } });
  assert.deepEqual(
    {
      completion: result.capabilities.completionProvider,
      references: result.capabilities.referencesProvider,
      rename: result.capabilities.renameProvider,
      inlayHints: result.capabilities.inlayHintProvider,
      codeLens: result.capabilities.codeLensProvider,
      documentSymbols: result.capabilities.documentSymbolProvider,
      workspaceSymbols: result.capabilities.workspaceSymbolProvider,
    },
    {
      // `{` and `$` for a variable; a space for the contract file's values (contract-file.ts)
      completion: { triggerCharacters: ['{', '$', ' '], resolveProvider: false },
      references: true,
      rename: { prepareProvider: true },
      inlayHints: true,
      codeLens: { resolveProvider: true },
      documentSymbols: true,
      workspaceSymbols: true,
    },
  );
  client.open(JOB_URI(), JOB);
  await client.waitForDiagnostics(JOB_URI(), (d) => d.some((x) => x.code === 'flux-substitution-undefined'));
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

describe('completion', () => {
  test('after ${ in the Job: the names `apps` defines, each replacing at the cursor with its `}`; the escape last', async () => {
    const typed = JOB.replace('${UNSET}', '${');
    client.change(JOB_URI(), typed);
    const list = await request<CompletionList>('textDocument/completion', { textDocument: { uri: JOB_URI() }, position: { line: COMMAND, character: 87 } });
    assert.equal(list.isIncomplete, false);
    assert.deepEqual(
      list.items.map((item) => [item.label, item.detail, item.textEdit]),
      [
        ['CLUSTER_NAME', 'home — substitute of Kustomization "apps"', { range: range(COMMAND, 87, 87), newText: 'CLUSTER_NAME}' }],
        ['DB_PASSWORD', '•••• — Secret cluster-secrets', { range: range(COMMAND, 87, 87), newText: 'DB_PASSWORD}' }],
        ['LONG_TEXT', '012345678901234567890123456789012345678… — ConfigMap cluster-settings', { range: range(COMMAND, 87, 87), newText: 'LONG_TEXT}' }],
        ['TIMEZONE', 'Europe/Paris — ConfigMap cluster-settings', { range: range(COMMAND, 87, 87), newText: 'TIMEZONE}' }],
        ['$${}', 'Escape from Flux: the shell sees ${…}', { range: range(COMMAND, 87, 87), newText: '}' }],
      ],
    );
    // the escape says in the list's row what it is, and explains itself
    assert.deepEqual(list.items[4].labelDetails, { description: 'Escape from Flux: the shell sees ${…}' });
    assert.match((list.items[4].documentation as { value: string }).value, /^Inserts `\$\$\{\}`: one more `\$` before the `\$\{`\. Flux writes `\$\$` as `\$`/);
    assert.deepEqual([list.items[4].filterText, list.items[4].additionalTextEdits], ['$${', [{ range: range(COMMAND, 85, 85), newText: '$' }]]);
    const escaped = applyEdits(typed, [list.items[4].textEdit as TextEdit, ...list.items[4].additionalTextEdits!]).split('\n');
    assert.equal(escaped[COMMAND].slice(80, 92), 'UTC} $${} $$', 'the escape written');
    client.change(JOB_URI(), JOB);
    await client.waitForDiagnostics(JOB_URI(), (d) => d.some((x) => x.code === 'flux-substitution-undefined' && x.range.start.character === 85));
  });

  test('none outside ${ (plain text, a YAML comment)', async () => {
    const list = await request<CompletionList | null>('textDocument/completion', { textDocument: { uri: JOB_URI() }, position: { line: 4, character: 52 } });
    assert.equal(list, null);
  });
});

describe('references and rename', () => {
  const CLUSTER_NAME = () => [
    { uri: uri('clusters/home/apps.yaml'), range: range(12, 6, 18) },
    { uri: JOB_URI(), range: range(COMMAND, 45, 57) },
    { uri: uri('apps/scripts/backup.sh'), range: range(1, 8, 20) },
  ];

  test('references from a use, with and without the declaration', async () => {
    const position = { line: COMMAND, character: 50 };
    assert.deepEqual(await request<Location[]>('textDocument/references', { textDocument: { uri: JOB_URI() }, position, context: { includeDeclaration: true } }), CLUSTER_NAME());
    assert.deepEqual(await request<Location[]>('textDocument/references', { textDocument: { uri: JOB_URI() }, position, context: { includeDeclaration: false } }), CLUSTER_NAME().slice(1));
  });

  test('prepareRename: the name, or an error that says what can be renamed', async () => {
    assert.deepEqual(await request('textDocument/prepareRename', { textDocument: { uri: JOB_URI() }, position: { line: COMMAND, character: 50 } }), {
      range: range(COMMAND, 45, 57),
      placeholder: 'CLUSTER_NAME',
    });
    await assert.rejects(
      request('textDocument/prepareRename', { textDocument: { uri: JOB_URI() }, position: { line: 12, character: 20 } }),
      /Only a Flux variable or the name of a Flux Kustomization or HelmRelease can be renamed here/,
    );
  });

  test('rename: one edit per place, versioned for the open Job; a name Flux rejects is refused', async () => {
    const edit = await request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: JOB_URI() }, position: { line: COMMAND, character: 50 }, newName: 'CLUSTER' });
    assert.deepEqual(
      edit.documentChanges!.map((change) => 'textDocument' in change && [change.textDocument, change.edits]),
      [
        [{ uri: uri('clusters/home/apps.yaml'), version: null }, [{ range: range(12, 6, 18), newText: 'CLUSTER' }]],
        [{ uri: JOB_URI(), version: 3 }, [{ range: range(COMMAND, 45, 57), newText: 'CLUSTER' }]],
        [{ uri: uri('apps/scripts/backup.sh'), version: null }, [{ range: range(1, 8, 20), newText: 'CLUSTER' }]],
      ],
    );
    assert.equal(applyEdits(APPS, editsFor(edit, uri('clusters/home/apps.yaml'))), APPS.replace('CLUSTER_NAME: home', 'CLUSTER: home'));
    await assert.rejects(
      request('textDocument/rename', { textDocument: { uri: JOB_URI() }, position: { line: COMMAND, character: 50 }, newName: 'app.conf' }),
      /Flux rejects this name: 'app\.conf' var name is invalid/,
    );
  });
});

describe('inlay hints', () => {
  test('the values after each ${…} in the requested range; an edit of the defining file refreshes them', async () => {
    assert.deepEqual(brief(await hintsOf()), [
      `${COMMAND}:58 = home`,
      `${COMMAND}:73 = ••••`,
      `${COMMAND}:84 = UTC (default)`,
      `${COMMAND}:93 (fails: strict)`,
      `${COMMAND}:102 → \${HOME}`,
      `${COMMAND}:107 → $$`,
      '15:50 = Europe/Paris',
    ]);
    assert.deepEqual(brief(await hintsOf(15, 16)), ['15:50 = Europe/Paris']);
    const before = refreshes;
    client.open(uri('clusters/home/apps.yaml'), APPS);
    client.change(uri('clusters/home/apps.yaml'), APPS.replace('CLUSTER_NAME: home', 'CLUSTER_NAME: lab'));
    await poll(
      () => Promise.resolve(refreshes),
      (count) => count > before,
      'an inlay hint refresh',
    );
    assert.equal(brief(await hintsOf())[0], `${COMMAND}:58 = lab`);
    client.change(uri('clusters/home/apps.yaml'), APPS);
    await poll(
      async () => brief(await hintsOf())[0],
      (first) => first === `${COMMAND}:58 = home`,
      'the value back',
    );
  });

  test('fluxJobGuard.inlayHints.enabled: false turns them off, true back on', async () => {
    client.settings = { inlayHints: { enabled: false } };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await poll(hintsOf, (hints) => hints.length === 0, 'no hints');
    client.settings = {};
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await poll(hintsOf, (hints) => hints.length === 7, 'the hints back');
  });
});

describe('code lens and symbols', () => {
  test("a lens on the Job's first line; resolving gives the cycle and the command that shows the TTL hover", async () => {
    const lenses = await request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: JOB_URI() } });
    assert.deepEqual(
      lenses.map((lens) => [lens.range, lens.command]),
      [[range(0, 0, 0), undefined]],
    );
    const resolved = await request<CodeLens>('codeLens/resolve', lenses[0]);
    assert.equal(resolved.command!.title, 're-created about 24 h after it finishes — Kustomization apps, every 1h');
    assert.equal(resolved.command!.command, 'fluxJobGuard.showJobCycle');
    const [args] = resolved.command!.arguments as Array<{ uri: string; position: unknown; markdown: string }>;
    assert.deepEqual([args.uri, args.position], [JOB_URI(), { line: 6, character: 2 }]);
    assert.match(args.markdown, /Applied by Flux Kustomization `apps` \(clusters\/home\/apps\.yaml:2\)/);
  });

  test('document symbols: one per Kubernetes object, a file of one too; none for a file without a kind', async () => {
    const sync = uri('clusters/home/flux-system/gotk-sync.yaml');
    client.open(sync, FILES['clusters/home/flux-system/gotk-sync.yaml']);
    const symbols = await request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: sync } });
    assert.deepEqual(
      symbols.map((symbol) => [symbol.name, symbol.detail, symbol.kind, symbol.range, symbol.selectionRange]),
      [
        ['GitRepository flux-system', 'source.toolkit.fluxcd.io/v1', 4, range(0, 0, 44, 6), range(3, 8, 19)],
        ['Kustomization flux-system', 'kustomize.toolkit.fluxcd.io/v1', 2, range(8, 0, 53, 17), range(11, 8, 19)],
      ],
    );
    const single = await request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: JOB_URI() } });
    const lines = JOB.split('\n');
    const nameLine = lines.findIndex((text) => text.includes('name: report'));
    assert.deepEqual(
      single.map((symbol) => [symbol.name, symbol.detail, symbol.kind, symbol.range.start, symbol.selectionRange]),
      [['Job report', 'batch/v1', 24, { line: 0, character: 0 }, range(nameLine, lines[nameLine].indexOf('report'), lines[nameLine].indexOf('report') + 6)]],
    );
    // negative control: a file of no object (no kind: a kustomization.yaml without one) has no symbol
    const kustomization = uri('apps/kustomization.yaml');
    client.open(kustomization, FILES['apps/kustomization.yaml']);
    assert.deepEqual(await request('textDocument/documentSymbol', { textDocument: { uri: kustomization } }), []);
  });

  test('workspace symbols: Jobs and Flux Kustomizations matching the query', async () => {
    const symbols = await request<SymbolInformation[]>('workspace/symbol', { query: 'rep' });
    assert.deepEqual(
      symbols.map((symbol) => [symbol.name, symbol.kind, symbol.location, symbol.containerName]),
      [
        ['report', 24, { uri: JOB_URI(), range: range(3, 8, 14) }, 'Job ← Kustomization apps'],
        ['infra-report', 24, { uri: uri('infra/job.yaml'), range: range(3, 8, 20) }, 'Job ← Kustomization infra'],
      ],
    );
    const apps = await request<SymbolInformation[]>('workspace/symbol', { query: 'apps' });
    assert.deepEqual(
      apps.map((symbol) => [symbol.name, symbol.kind, symbol.location]),
      [['apps', 2, { uri: uri('clusters/home/apps.yaml'), range: range(1, 0, 4) }]],
    );
  });
});
