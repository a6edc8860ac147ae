// helm-values-from-missing over lsp --stdio: the editor shows the findings the
// audit reports, keeps them while the HelmRelease's file is typed in (its
// facts travel through the incremental summary), drops one once the name is
// right, and offers the fixes: the near name, the contract declaration.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';
import { auditFiles } from './helpers/memory-fs';

const RULE = 'helm-values-from-missing';
const HELM_REPOSITORY = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: bjw-s\n  namespace: flux-system\nspec:\n  url: https://bjw-s-labs.github.io/helm-charts\n';
const RELEASE =
  'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: media\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: app-template\n      sourceRef:\n        kind: HelmRepository\n        name: bjw-ss\n        namespace: flux-system\n  valuesFrom:\n    - kind: Secret\n      name: app-secret\n';
const FILES = {
  'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
  'clusters/home/repositories.yaml': HELM_REPOSITORY,
  'clusters/home/apps.yaml': kustomization('apps', './apps'),
  'apps/kustomization.yaml': 'resources:\n  - helmrelease.yaml\n',
  'apps/helmrelease.yaml': RELEASE,
};

let root: string;
let client: TestLspClient;
let uri: string;

const own = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === RULE);
const brief = (d: Diagnostic) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${messageText(d)}`;

before(async () => {
  root = tempRepo('fjg-helm-', FILES);
  client = new TestLspClient();
  await client.initialize(root);
  uri = fileUri(join(root, 'apps/helmrelease.yaml'));
  client.open(uri, RELEASE);
  await client.waitForDiagnostics(uri, (d) => own(d).length === 2);
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

test('the editor shows what the audit reports, finding for finding', async () => {
  const audit = (await auditFiles(FILES)).findings.filter((f) => f.rule === RULE);
  const editor = own(client.latest(uri)!).map(brief);
  assert.deepEqual(
    editor,
    audit.map((f) => `${f.range.start.line}:${f.range.start.character}-${f.range.end.line}:${f.range.end.character} ${f.message}`),
  );
  assert.equal(editor.length, 2);
});

test('the fixes: the near source name (preferred), the Secret declared in the contract (a new file)', async () => {
  const [source, secret] = own(client.latest(uri)!);
  const sourceActions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: source.range, context: { diagnostics: [source] } });
  assert.ok(sourceActions.some((a) => a.title === 'Replace with "bjw-s"' && a.isPreferred === true));
  const secretActions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: secret.range, context: { diagnostics: [secret] } });
  const declare = secretActions.find((a) => a.title === "Declare Secret app-secret (namespace media) in the contract's flux.variables as created outside the repository");
  assert.ok(declare, JSON.stringify(secretActions.map((a) => a.title)));
  assert.match(JSON.stringify(declare.edit), /"kind":"create"/);
});

test('typing in the release keeps both findings (its facts survive the incremental summary); the right name drops one', async () => {
  const typed = RELEASE.replace('  interval: 1h\n', '  interval: 2h\n');
  client.change(uri, typed);
  const kept = await client.waitForDiagnostics(uri, (d) => own(d).length === 2 && own(d).every((x) => x.range.start.line !== 0));
  assert.deepEqual(
    own(kept).map((d) => d.range.start.line),
    [12, 16],
  );
  client.change(uri, typed.replace('name: bjw-ss', 'name: bjw-s'));
  const fixed = await client.waitForDiagnostics(uri, (d) => own(d).length === 1);
  assert.match(messageText(own(fixed)[0]), /^HelmRelease "app" takes values from Secret "app-secret" \(namespace media\)/);
});
