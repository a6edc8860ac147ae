// dependsOn as you type over `flux-job-guard lsp --stdio`, on the repository of
// helpers/depends-on-fixture.ts written to disk: completion on a typed `- `
// (the space trigger) and on a name value, with exact ranges and the
// namespace line; go-to-definition; references; prepareRename and rename
// (versioned edits); the squiggle of a name typed wrong and gone once it is
// chosen from the completion. Negative controls: the dependent and the
// HelmReleases are never offered, team-a's same-named apps is never reached.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CompletionItem, CompletionList, Location, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { APPS, DEPENDS_ON_FILES, MONITORING } from './helpers/depends-on-fixture';
import { applyEdits, editsFor, fileUri, TestLspClient } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

let root: string;
let client: TestLspClient;
const uri = (path: string) => fileUri(join(root, path));
const APPS_URI = () => uri('clusters/home/apps.yaml');
const range = (line: number, start: number, end: number, endLine = line) => ({ start: { line, character: start }, end: { line: endLine, character: end } });
const request = <T>(method: string, params: object) => client.connection.sendRequest<T>(method, params);
const brief = (item: CompletionItem) => [item.label, item.detail, item.textEdit, item.additionalTextEdits ?? []];

before(async () => {
  root = tempRepo('fjg-depends-on-', DEPENDS_ON_FILES);
  client = new TestLspClient();
  await client.initialize(root);
  client.open(APPS_URI(), APPS);
  await client.waitForDiagnostics(APPS_URI(), () => true);
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

describe('completion', () => {
  test('a space after `- ` under dependsOn offers the names with `name: ` (and `namespace:`); never apps itself, never a HelmRelease', async () => {
    const typed = APPS + '    - \n';
    client.change(APPS_URI(), typed);
    const list = await request<CompletionList>('textDocument/completion', {
      textDocument: { uri: APPS_URI() },
      position: { line: 12, character: 6 },
      context: { triggerKind: 2, triggerCharacter: ' ' },
    });
    assert.deepEqual(list.items.map(brief), [
      ['flux-system', 'Kustomization in namespace flux-system — clusters/home/flux-system/gotk-sync.yaml', { range: range(12, 6, 6), newText: 'name: flux-system' }, []],
      ['apps', 'Kustomization in namespace team-a — clusters/home/team-a/apps.yaml', { range: range(12, 6, 6), newText: 'name: apps\n      namespace: team-a' }, []],
      ['cache', 'Kustomization in namespace team-b — clusters/home/team-b/cache.yaml', { range: range(12, 6, 6), newText: 'name: cache\n      namespace: team-b' }, []],
      ['web', 'Kustomization in namespace team-a — clusters/home/team-a/web.yaml', { range: range(12, 6, 6), newText: 'name: web\n      namespace: team-a' }, []],
      ['monitoring', 'Kustomization in namespace flux-system — clusters/home/monitoring.yaml (it waits for apps: a cycle)', { range: range(12, 6, 6), newText: 'name: monitoring' }, []],
    ]);
    assert.deepEqual(
      list.items.map((item) => [item.filterText, item.sortText]),
      ['flux-system', 'apps', 'cache', 'web', 'monitoring'].map((name, i) => [`name: ${name}`, String(i).padStart(4, '0')]),
    );
  });

  test('on a name with a comment after it: the name replaced, the namespace line added after the comment', async () => {
    const typed = APPS.replace('infra-controllers #', 'ca #');
    client.change(APPS_URI(), typed);
    const list = await request<CompletionList>('textDocument/completion', { textDocument: { uri: APPS_URI() }, position: { line: 11, character: 14 } });
    const cache = list.items.find((item) => item.label === 'cache')!;
    assert.deepEqual(brief(cache).slice(2), [{ range: range(11, 12, 14), newText: 'cache' }, [{ range: range(11, 38, 38), newText: '\n      namespace: team-b' }]]);
    const chosen = applyEdits(typed, [cache.textEdit as TextEdit, ...cache.additionalTextEdits!]);
    assert.equal(chosen, APPS.replace('infra-controllers # the controllers first', 'cache # the controllers first\n      namespace: team-b'));
    assert.ok(!list.items.some((item) => ['cert-manager', 'ingress-nginx'].includes(item.label)), 'HelmReleases are not offered to a Kustomization');
  });
});

describe('definition, references, rename', () => {
  /** The open document's version once it holds APPS again (what the rename's edit is versioned with). */
  let version = 0;

  test('a name typed wrong is squiggled (flux-depends-on-missing); go to definition of the right one opens its metadata.name', async () => {
    const typo = APPS.replace('infra-controllers', 'infra-controlers');
    client.change(APPS_URI(), typo);
    // The typed `ca` of the test before is missing too: wait for the typo's own range.
    const diagnostics = await client.waitForDiagnostics(APPS_URI(), (d) => d.some((x) => x.code === 'flux-depends-on-missing' && x.range.end.character === 28));
    assert.deepEqual(
      diagnostics.filter((d) => d.code === 'flux-depends-on-missing').map((d) => d.range),
      [range(11, 12, 28)],
    );
    version = client.change(APPS_URI(), APPS);
    await client.waitForDiagnostics(APPS_URI(), (d) => !d.some((x) => x.code === 'flux-depends-on-missing'));
    const locations = await request<Location[]>('textDocument/definition', { textDocument: { uri: APPS_URI() }, position: { line: 11, character: 16 } });
    assert.deepEqual(locations, [{ uri: uri('clusters/home/infra.yaml'), range: range(3, 8, 25) }]);
  });

  test("references of apps from its metadata.name: the entry in monitoring, never team-a's", async () => {
    const position = { line: 3, character: 9 };
    assert.deepEqual(await request<Location[]>('textDocument/references', { textDocument: { uri: APPS_URI() }, position, context: { includeDeclaration: true } }), [
      { uri: APPS_URI(), range: range(3, 8, 12) },
      { uri: uri('clusters/home/monitoring.yaml'), range: range(11, 13, 17) },
    ]);
    assert.deepEqual(await request<Location[]>('textDocument/references', { textDocument: { uri: APPS_URI() }, position, context: { includeDeclaration: false } }), [
      { uri: uri('clusters/home/monitoring.yaml'), range: range(11, 13, 17) },
    ]);
  });

  test('prepareRename and rename: the name and the entry, versioned for the open document; an invalid name refused', async () => {
    const position = { line: 3, character: 9 };
    assert.deepEqual(await request('textDocument/prepareRename', { textDocument: { uri: APPS_URI() }, position }), { range: range(3, 8, 12), placeholder: 'apps' });
    const edit = await request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: APPS_URI() }, position, newName: 'applications' });
    assert.deepEqual(
      edit.documentChanges!.map((change) => 'textDocument' in change && [change.textDocument, change.edits]),
      [
        [{ uri: APPS_URI(), version }, [{ range: range(3, 8, 12), newText: 'applications' }]],
        [{ uri: uri('clusters/home/monitoring.yaml'), version: null }, [{ range: range(11, 13, 17), newText: 'applications' }]],
      ],
    );
    assert.equal(applyEdits(MONITORING, editsFor(edit, uri('clusters/home/monitoring.yaml'))), MONITORING.replace('"apps"', '"applications"'));
    await assert.rejects(request('textDocument/rename', { textDocument: { uri: APPS_URI() }, position, newName: 'Apps' }), /"Apps" is not a valid object name/);
  });
});
