// Flux substitution over lsp --stdio: hover on a defined ${NAME}, go to its
// definition, the escape quick fix, fix-all, the TTL hover and the preview.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction, Hover, Location, MarkupContent } from 'vscode-languageserver-protocol';
import { applyEdits, editsFor, fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { job, kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const KUSTOMIZATION = kustomization('apps', './apps', '  postBuild:\n    substitute:\n      CLUSTER_NAME: home\n');

const JOB = job('report', 'it only reads', '          command: ["/bin/sh", "-c", "echo ${CLUSTER_NAME} ${HOME} ${TMPDIR}"]\n');

let root: string;
let client: TestLspClient;
let uri: string;

before(async () => {
  root = tempRepo('fjg-flux-', { 'flux/apps.yaml': KUSTOMIZATION, 'apps/job.yaml': JOB });
  client = new TestLspClient();
  await client.initialize(root);
  uri = fileUri(join(root, 'apps/job.yaml'));
  client.open(uri, JOB);
  await client.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === 'flux-substitution-undefined').length === 2);
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

const line = 13;
const columnOf = (needle: string) => JOB.split('\n')[line].indexOf(needle);

test('hover on a defined ${NAME}: its value and where it is defined, as links; the line fails because of another name, said as such', async () => {
  const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri }, position: { line, character: columnOf('${CLUSTER_NAME}') + 3 } });
  const text = (hover.contents as MarkupContent).value;
  const apps = fileUri(join(root, 'flux/apps.yaml'));
  assert.ok(
    text.startsWith(
      `**\${CLUSTER_NAME}** = \`home\` — from substitute of Kustomization "apps" ([flux/apps.yaml:13](${apps}#L13)); substituted by Kustomization \`apps\` ([flux/apps.yaml:2](${apps}#L2)).`,
    ),
    text,
  );
  assert.match(text, /Flux fails on this line because of another expression: variable not set \(strict mode\): "HOME"\./, "the failure is HOME's, not CLUSTER_NAME's");
  assert.match(text, /With the undefined names blank, it reads:\n\n```text\necho home {2}\n```/);
  assert.doesNotMatch(text, /not defined/, 'nothing about CLUSTER_NAME is said to be undefined');
  assert.deepEqual(hover.range, { start: { line, character: columnOf('${CLUSTER_NAME}') }, end: { line, character: columnOf('${CLUSTER_NAME}') + 15 } });
});

test('hover on an undefined ${NAME}: the diagnostic says it is not defined and that Flux fails; the hover adds the Kustomization and the line without it', async () => {
  const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri }, position: { line, character: columnOf('${HOME}') + 3 } });
  const text = (hover.contents as MarkupContent).value;
  assert.doesNotMatch(text, /not defined|Flux fails/);
  assert.match(text, /^\*\*\$\{HOME\}\*\*: substituted by Kustomization `apps` \(\[flux\/apps\.yaml:2\]/);
  assert.match(text, /Without strict substitution the line would read:/);
  const diagnostic = client.latest(uri)!.find((d) => d.code === 'flux-substitution-undefined' && d.range.start.character === columnOf('${HOME}'))!;
  assert.match(messageText(diagnostic), /^\$\{HOME\} is not defined by Kustomization "apps": Flux fails the reconcile \(strict substitution\)/);
});

test('go to definition jumps to the substitute key', async () => {
  const locations = await client.connection.sendRequest<Location[]>('textDocument/definition', { textDocument: { uri }, position: { line, character: columnOf('${CLUSTER_NAME}') + 3 } });
  assert.deepEqual(locations, [{ uri: fileUri(join(root, 'flux/apps.yaml')), range: { start: { line: 12, character: 6 }, end: { line: 12, character: 18 } } }]);
});

test('the escape quick fix turns ${HOME} into $${HOME}; fix-all escapes both; after it, no substitution finding', async () => {
  const diagnostics = client.latest(uri)!;
  const home = diagnostics.find((d) => d.code === 'flux-substitution-undefined' && d.range.start.character === columnOf('${HOME}'))!;
  const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: home.range, context: { diagnostics: [home] } });
  const escape = actions.find((a) => a.isPreferred)!;
  assert.equal(
    applyEdits(JOB, editsFor(escape.edit!, uri)).split('\n')[line],
    JOB.split('\n')[line].replace('${HOME}', () => '$${HOME}'),
  );
  const fixAll = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: home.range, context: { diagnostics: [], only: ['source.fixAll'] } });
  assert.equal(fixAll.length, 1);
  const fixed = applyEdits(JOB, editsFor(fixAll[0].edit!, uri));
  const original = JOB.split('\n')[line];
  assert.equal(
    fixed.split('\n')[line],
    original.replace('${HOME}', () => '$${HOME}').replace('${TMPDIR}', () => '$${TMPDIR}'),
  );
  client.change(uri, fixed);
  await client.waitForDiagnostics(uri, (d) => !d.some((x) => String(x.code).startsWith('flux-')));
  client.change(uri, JOB);
  await client.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === 'flux-substitution-undefined').length === 2);
});

test('hover on ttlSecondsAfterFinished names the Kustomization and the re-run period', async () => {
  const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri }, position: { line: 6, character: 4 } });
  const text = (hover.contents as MarkupContent).value;
  assert.match(text, /Applied by Flux Kustomization `apps` \(\[flux\/apps\.yaml:2\]\(file:\/\/\/.*flux\/apps\.yaml#L2\)\), interval 1h, prune true\./);
  assert.match(text, /Flux re-creates this Job about 24 h after it finishes: it runs again about once a day/);
});

test("preview: the file as Flux renders it, or Flux's error", async () => {
  const preview = await client.connection.sendRequest<{ text: string }>('fluxJobGuard/previewSubstitution', { uri });
  assert.match(preview.text, /Flux fails to build this resource: variable not set \(strict mode\): "HOME"/);
  // the first line says where: file:line:column of the expression Flux rejects, and why
  assert.deepEqual(preview.text.split('\n').slice(0, 2), [`# ✖ Flux fails to build apps/job.yaml:${line + 1}:${columnOf('${HOME}') + 1}`, '#   ${HOME}: variable not set (strict mode): "HOME"']);
  client.change(uri, JOB.replace(' ${HOME} ${TMPDIR}', ''));
  await client.waitForDiagnostics(uri, (d) => !d.some((x) => String(x.code).startsWith('flux-')));
  const clean = await client.connection.sendRequest<{ text: string }>('fluxJobGuard/previewSubstitution', { uri });
  assert.match(clean.text, /echo home/);
  assert.doesNotMatch(clean.text, /converges/, 'comments are gone after re-serialization');
  assert.doesNotMatch(clean.text, /✖/, 'no failure line where Flux builds the file (negative control)');
  // the text the editor sends wins over the server's copy (the preview may overtake the change)
  const sent = await client.connection.sendRequest<{ text: string }>('fluxJobGuard/previewSubstitution', { uri, text: JOB.replace('${HOME}', '${NOT_SET_HERE}') });
  assert.deepEqual(sent.text.split('\n').slice(0, 2), [
    `# ✖ Flux fails to build apps/job.yaml:${line + 1}:${columnOf('${HOME}') + 1}`,
    '#   ${NOT_SET_HERE}: variable not set (strict mode): "NOT_SET_HERE"',
  ]);
});

test('preview: it follows the files it depends on (the Kustomization, the contract): the server says when they changed it', async () => {
  let viewsChanged = 0;
  const changes: Array<() => void> = [];
  client.connection.onNotification('fluxJobGuard/viewsChanged', () => (viewsChanged++, changes.splice(0).forEach((wake) => wake())));
  const nextViewsChange = () => new Promise<void>((resolve) => changes.push(resolve));
  const render = async () => (await client.connection.sendRequest<{ text: string }>('fluxJobGuard/previewSubstitution', { uri, text: JOB })).text;
  client.change(uri, JOB);
  await client.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === 'flux-substitution-undefined').length === 2);
  assert.match(await render(), /^# ✖ Flux fails to build/);

  // the Kustomization defines both names: the server says so, and the preview renders them
  const apps = fileUri(join(root, 'flux/apps.yaml'));
  client.open(apps, KUSTOMIZATION);
  let changed = nextViewsChange();
  client.change(apps, KUSTOMIZATION.replace('      CLUSTER_NAME: home\n', '      CLUSTER_NAME: home\n      HOME: /root\n      TMPDIR: /tmp\n'));
  await changed;
  const defined = await render();
  assert.doesNotMatch(defined, /✖/, defined);
  assert.match(defined, /echo home \/root \/tmp/);

  // back to undefined names, then a contract that turns strict mode off: the failure gives way to blanks
  changed = nextViewsChange();
  client.change(apps, KUSTOMIZATION);
  await changed;
  assert.match(await render(), /^# ✖ Flux fails to build/, 'the preview follows the Kustomization back (negative control)');
  const contract = fileUri(join(root, '.flux-job-guard.yaml'));
  changed = nextViewsChange();
  client.open(contract, 'flux:\n  strict: false\n');
  await changed;
  const lenient = await render();
  assert.doesNotMatch(lenient, /✖/, lenient);
  assert.match(lenient, /echo home {2}"?\]?/);
  assert.ok(viewsChanged >= 3);
  client.close(contract);
  client.close(apps);
});
