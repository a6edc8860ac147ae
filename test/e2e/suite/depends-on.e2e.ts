/// <reference types="mocha" />
// dependsOn as you type, in a real workbench (issue 20): a Kustomization's
// dependsOn name typed wrong is squiggled (flux-depends-on-missing); the
// completion there offers the Kustomizations of its cluster (never the
// dependent itself, never one only another cluster applies); the one chosen
// from the suggest widget clears the squiggle; go to definition opens the
// Kustomization it names. It adds a small tree to the fixture copy (`deps`,
// which nothing applies, applies two Kustomizations, one waiting for the
// other) and removes it again.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { Control, readControl, waitForWidget } from './control';
import { codeOf, cursorAt, describeDiagnostics, find, fixture, labelOf, lacks, only, ours, removeAdded, replaceAll, waitForDiagnostics, waitUntil } from './helpers';
import { runtime } from './host';

const kustomization = (name: string, path: string, extra = '') => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 1h
  path: ${path}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
${extra}`;

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  a: b\n`;

const APP = 'deps/flux/app.yaml';
const INFRA = 'deps/flux/infra.yaml';

const ADDED: Record<string, string> = {
  'clusters/deps/ks.yaml': kustomization('deps', './deps/flux'),
  [INFRA]: kustomization('infra-controllers', './deps/infra'),
  [APP]: kustomization('deps-app', './deps/app', '  dependsOn:\n    - name: infra-controllers\n'),
  'deps/infra/config.yaml': configMap('deps-infra'),
  'deps/app/config.yaml': configMap('deps-app'),
};

async function definitionsAt(document: vscode.TextDocument, at: vscode.Position): Promise<Array<{ uri: vscode.Uri; range: vscode.Range }>> {
  const locations = await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>('vscode.executeDefinitionProvider', document.uri, at);
  return locations.map((location) => ('targetUri' in location ? { uri: location.targetUri, range: location.targetRange } : location));
}

const SUGGEST = { selector: '.suggest-widget.visible', text: 'infra-controllers' };

suite(`dependsOn as you type (${runtime} extension host)`, function () {
  let control: Control;

  suiteSetup(async () => {
    control = await readControl();
    for (const [path, text] of Object.entries(ADDED)) await vscode.workspace.fs.writeFile(fixture(path), new TextEncoder().encode(text));
  });

  suiteTeardown(() => removeAdded(['deps', 'clusters/deps']));

  test('a dependsOn name typed wrong is squiggled; the completion offers the Kustomizations of its cluster, and the one chosen clears the squiggle', async function () {
    this.timeout(180_000); // the suggest widget, retried on a busy machine
    const document = await vscode.workspace.openTextDocument(fixture(APP));
    await vscode.window.showTextDocument(document, { preview: false });
    const original = document.getText();
    try {
      // The server reads the added files from the watcher. "No squiggle yet" proves nothing before the
      // server has published for this file, so wait for the state itself: the name resolves to its definition.
      await waitUntil(async () => (await definitionsAt(document, find(document, 'infra-controllers').translate(0, 3))).length === 1, 'the server to know infra-controllers');
      await waitForDiagnostics(document.uri, lacks('flux-depends-on-missing'), 'the entry naming infra-controllers to resolve');
      await replaceAll(document, original.replace('- name: infra-controllers', '- name: infra-controlers'));
      const name = find(document, 'infra-controlers');
      const typedWrong = new vscode.Range(name, name.translate(0, 'infra-controlers'.length));
      // A publish for an earlier text may still arrive: wait for the one on the name as typed now.
      const squiggled = await waitForDiagnostics(document.uri, (d) => only(d, 'flux-depends-on-missing').some((x) => x.range.isEqual(typedWrong)), 'flux-depends-on-missing on the name typed wrong');
      const [missing] = only(squiggled, 'flux-depends-on-missing');
      assert.ok(missing.range.isEqual(typedWrong), `on the name: ${describeDiagnostics(document.uri)}`);
      assert.match(missing.message, /waits for Kustomization "infra-controlers" \(namespace flux-system\), which no Kustomization of this world declares/);
      assert.match(missing.message, /The nearest existing name is "infra-controllers"\./);

      const cursor = name.translate(0, 'infra-controlers'.length);
      const list = await waitUntil(
        async () => {
          const found = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, cursor);
          return found.items.some((item) => labelOf(item) === 'infra-controllers') ? found : null;
        },
        'infra-controllers offered in dependsOn',
        15_000,
      );
      const names = list.items.filter((item) => item.kind === vscode.CompletionItemKind.Reference);
      assert.deepStrictEqual(
        names.map((item) => [labelOf(item), item.detail]),
        [
          ['deps', 'Kustomization in namespace flux-system — clusters/deps/ks.yaml'],
          ['infra-controllers', 'Kustomization in namespace flux-system — deps/flux/infra.yaml'],
        ],
        'never deps-app itself; never apps, which only another root applies',
      );
      const offered = names.find((item) => labelOf(item) === 'infra-controllers')!;
      assert.ok((offered.range as vscode.Range).isEqual(new vscode.Range(name, cursor)), `the typed name is replaced: ${JSON.stringify(offered.range)}`);

      // As a user: the suggest widget at the end of the name, the first entry accepted (infra-controllers is the closest match).
      const typed = document.getText();
      await waitUntil(
        async () => {
          if (document.getText() !== typed) await replaceAll(document, typed);
          await cursorAt(control, document, cursor);
          await vscode.commands.executeCommand('editor.action.triggerSuggest');
          if (control.url) await waitForWidget(control, { ...SUGGEST, timeout: 20_000 });
          await vscode.commands.executeCommand('acceptSelectedSuggestion');
          return document.getText() === original;
        },
        'infra-controllers to be chosen from the suggest widget',
        90_000,
      );
      await waitForDiagnostics(document.uri, lacks('flux-depends-on-missing'), 'the squiggle to go once the name is right');
      assert.deepStrictEqual(ours(document.uri).map(codeOf), [], 'nothing else on the file');
    } finally {
      if (document.getText() !== original) await replaceAll(document, original);
      await document.save();
    }
  });

  test('go to definition on a dependsOn name opens the metadata.name of the Kustomization it names', async () => {
    const document = await vscode.workspace.openTextDocument(fixture(APP));
    const targets = await definitionsAt(document, find(document, 'infra-controllers').translate(0, 3));
    assert.strictEqual(targets.length, 1, JSON.stringify(targets));
    assert.strictEqual(targets[0].uri.toString(), fixture(INFRA).toString());
    const infra = await vscode.workspace.openTextDocument(fixture(INFRA));
    assert.strictEqual(infra.getText(targets[0].range), 'infra-controllers');
    assert.strictEqual(targets[0].range.start.line, find(infra, 'name: infra-controllers').line);
  });
});
