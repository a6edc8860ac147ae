// A script that a configMapGenerator reads, open in the editor (any language
// id): the server checks it as Flux substitutes it, hovers its ${NAME}s,
// escapes them and offers to opt the generator out in its kustomization
// file. A script no generator reads gets nothing; naming it in a generator
// (an edit of the open kustomization file) brings its findings.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction, Hover, MarkupContent } from 'vscode-languageserver-protocol';
import { applyEdits, editsFor, fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const GOTK_SYNC = gotkSync('./clusters/home');

const APPS = kustomization('apps', './apps', '  postBuild:\n    substitute:\n      CLUSTER_NAME: home\n');

const KUSTOMIZATION = `configMapGenerator:
  - name: backup-scripts
    files:
      - backup.sh=scripts/backup.sh # the nightly backup
`;
const SCRIPT = '#!/bin/sh\nfor dir in ${BACKUP_DIRS}; do tar czf "/backup/$$dir.tgz" "$$dir"; done\n';

let root: string;
let client: TestLspClient;
const uri = (path: string) => fileUri(join(root, path));

before(async () => {
  root = tempRepo('fjg-generator-', {
    'clusters/home/flux-system/gotk-sync.yaml': GOTK_SYNC,
    'clusters/home/apps.yaml': APPS,
    'apps/kustomization.yaml': KUSTOMIZATION,
    'apps/scripts/backup.sh': SCRIPT,
    'apps/scripts/other.sh': SCRIPT,
  });
  client = new TestLspClient();
  await client.initialize(root);
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

test('the script a generator reads: the finding in it, exact range, as the audit reports it', async () => {
  client.open(uri('apps/scripts/backup.sh'), SCRIPT, 'shellscript');
  const diagnostics = await client.waitForDiagnostics(uri('apps/scripts/backup.sh'), (d) => d.length > 0);
  assert.deepEqual(
    diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.character, d.range.end.character]),
    [['flux-substitution-undefined', 1, 11, 25]],
  );
});

test('hover on the ${NAME}: the Kustomization that builds it; the diagnostic says that it is not defined', async () => {
  const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri: uri('apps/scripts/backup.sh') }, position: { line: 1, character: 15 } });
  const text = (hover.contents as MarkupContent).value;
  assert.match(text, /\$\{BACKUP_DIRS\}\*\*: substituted by Kustomization `apps`/);
  assert.doesNotMatch(text, /not defined/);
  assert.match(messageText(client.latest(uri('apps/scripts/backup.sh'))![0]), /\$\{BACKUP_DIRS\} is not defined by Kustomization "apps"/);
});

test('quick fixes: escape it in the script, or opt the generator out in its kustomization file (comment kept)', async () => {
  const file = uri('apps/scripts/backup.sh');
  const diagnostic = client.latest(file)![0];
  const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri: file },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic], only: ['quickfix'] },
  });
  const escape = actions.find((a) => a.title.startsWith('Escape'))!;
  assert.equal(
    applyEdits(SCRIPT, editsFor(escape.edit!, file)),
    SCRIPT.replace('${BACKUP_DIRS}', () => '$${BACKUP_DIRS}'),
  );
  const optOut = actions.find((a) => a.title.startsWith('Turn off Flux substitution'))!;
  assert.equal(
    applyEdits(KUSTOMIZATION, editsFor(optOut.edit!, uri('apps/kustomization.yaml'))),
    KUSTOMIZATION + '    options:\n      annotations:\n        kustomize.toolkit.fluxcd.io/substitute: disabled\n',
  );
  client.change(
    file,
    SCRIPT.replace('${BACKUP_DIRS}', () => '$${BACKUP_DIRS}'),
  );
  await client.waitForDiagnostics(file, (d) => d.length === 0);
});

test('a script no generator reads gets nothing; naming it in the open kustomization file brings its finding', async () => {
  const other = uri('apps/scripts/other.sh');
  client.open(other, SCRIPT, 'shellscript');
  client.open(uri('apps/kustomization.yaml'), KUSTOMIZATION);
  await client.waitForDiagnostics(uri('apps/kustomization.yaml'), () => true);
  assert.equal(client.latest(other)?.length ?? 0, 0);
  client.change(uri('apps/kustomization.yaml'), KUSTOMIZATION + '      - other.sh=scripts/other.sh\n');
  await client.waitForDiagnostics(other, (d) => d.some((x) => x.code === 'flux-substitution-undefined'));
});
