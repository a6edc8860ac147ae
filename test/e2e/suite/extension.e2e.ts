/// <reference types="mocha" />
// What a user does with Flux Job Guard, in a real workbench: open a Job from a
// Flux repository, read the squiggles, apply the quick fix, change a setting,
// edit the contract, audit the workspace, hover a substitution, survive a
// server crash. One suite for every host (code-server, the web workbench,
// desktop VS Code); host.ts holds the few host-specific bits.
//
// The workspace is a fresh copy of test/e2e/fixtures/workspace per run, so the
// tests may change files; they run in order and each leaves the files as the
// next one expects them (see the notes on each).
import * as assert from 'assert';
import * as vscode from 'vscode';
import { Control, pointAt, readControl, waitForWidget, Widget } from './control';
import {
  afterPublish,
  Api,
  AuditResponse,
  CLIENT_RUNNING,
  codeOf,
  cursorAt,
  describeDiagnostics,
  EXTENSION_ID,
  FILES,
  find,
  fixture,
  has,
  HOVER,
  hoverText,
  labelOf,
  lacks,
  only,
  open,
  ours,
  photograph,
  photographQuickFix,
  replaceAll,
  waitForDiagnostics,
  waitUntil,
} from './helpers';
import { canKillServer, killServer, readDiskText, runtime, serverPid } from './host';

// ---- the suite ---------------------------------------------------------------

suite(`Flux Job Guard in a real workbench (${runtime} extension host)`, function () {
  let control: Control;
  let api: Api;
  let extension: vscode.Extension<Api>;

  suiteSetup(async function () {
    control = await readControl();
    const found = vscode.extensions.getExtension<Api>(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is installed`);
    extension = found;
    api = await extension.activate();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('activates and starts its language server', async function () {
    assert.ok(extension.isActive);
    assert.strictEqual(typeof api.lastAuditSummary, 'function');
    await waitUntil(() => api.client().state === CLIENT_RUNNING, 'the language client to run');
    if (control.mode === 'installed') {
      // the suite must exercise the packaged extension, not the project folder
      assert.match(extension.extensionPath, /flux-job-guard\.flux-job-guard-\d+\.\d+\.\d+/, `installed from the .vsix: ${extension.extensionPath}`);
    }
  });

  test('every command of the manifest is registered', async () => {
    const contributed = (extension.packageJSON as { contributes: { commands: Array<{ command: string }> } }).contributes.commands.map((c) => c.command);
    assert.deepStrictEqual(contributed.slice().sort(), [
      'fluxJobGuard.auditWorkspace',
      'fluxJobGuard.createContract',
      'fluxJobGuard.previewSubstitution',
      'fluxJobGuard.restartServer',
      'fluxJobGuard.showOutput',
      'fluxJobGuard.showRuleDocs',
    ]);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepStrictEqual(
      contributed.filter((command) => !registered.has(command)),
      [],
      'contributed commands without a handler',
    );
  });

  test('a Job without a TTL shows ttl-missing on its `spec` key', async () => {
    const { document } = await open(FILES.backup);
    const diagnostics = await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing');
    const [missing] = only(diagnostics, 'ttl-missing');
    assert.strictEqual(only(diagnostics, 'ttl-missing').length, 1);
    const specLine = document.getText().split('\n').indexOf('spec:');
    const expected = new vscode.Range(specLine, 0, specLine, 4);
    assert.ok(missing.range.isEqual(expected), `range ${describeDiagnostics(document.uri)} is the spec key at line ${specLine}`);
    assert.strictEqual(document.getText(missing.range), 'spec');
    assert.strictEqual(missing.severity, vscode.DiagnosticSeverity.Error);
    assert.match(missing.message, /Job "backup-snapshot" sets no spec\.ttlSecondsAfterFinished/);
    assert.match(missing.message, /ttlSecondsAfterFinished: 86400/);
  });

  test('an undefined ${BACKUP_DIR} shows flux-substitution-undefined on the reference, a defined ${CLUSTER_NAME} none', async () => {
    const { document } = await open(FILES.backup);
    const diagnostics = await waitForDiagnostics(document.uri, has('flux-substitution-undefined'), 'flux-substitution-undefined');
    const undefinedRefs = only(diagnostics, 'flux-substitution-undefined');
    assert.strictEqual(undefinedRefs.length, 1, `one undefined reference, got ${describeDiagnostics(document.uri)}`);
    const [finding] = undefinedRefs;
    const reference = new vscode.Range(find(document, '${BACKUP_DIR}'), find(document, '${BACKUP_DIR}').translate(0, '${BACKUP_DIR}'.length));
    assert.ok(reference.contains(finding.range), `range ${document.getText(finding.range)} lies within \${BACKUP_DIR}`);
    assert.match(document.getText(finding.range), /BACKUP_DIR/);
    assert.strictEqual(finding.severity, vscode.DiagnosticSeverity.Error);
    assert.match(finding.message, /BACKUP_DIR/);
    const clusterLine = find(document, '${CLUSTER_NAME}').line;
    assert.ok(!diagnostics.some((d) => codeOf(d).startsWith('flux-substitution') && d.range.start.line === clusterLine), 'no substitution finding on ${CLUSTER_NAME}');
  });

  test('hovering a defined ${CLUSTER_NAME} shows its value from postBuild.substitute', async () => {
    const { document } = await open(FILES.backup);
    await waitForDiagnostics(document.uri, has('ttl-missing'), 'the first analysis');
    const position = find(document, '${CLUSTER_NAME}').translate(0, 4); // on the name
    const text = await waitUntil(
      async () => {
        const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', document.uri, position)) ?? [];
        const text = hoverText(hovers);
        return /CLUSTER_NAME/.test(text) || /\bhome\b/.test(text) ? text : null;
      },
      'a hover on ${CLUSTER_NAME}',
      10_000,
    );
    assert.match(text, /\bhome\b/, `the hover shows the value: ${text}`);
  });

  test('a script a configMapGenerator reads: the undefined ${REPORT_DIR} is squiggled and explained, and escaping it clears it', async () => {
    const { document } = await open(FILES.script);
    const diagnostics = await waitForDiagnostics(document.uri, has('flux-substitution-undefined'), 'flux-substitution-undefined in the script');
    const undefinedRefs = only(diagnostics, 'flux-substitution-undefined');
    assert.strictEqual(undefinedRefs.length, 1, `only \${REPORT_DIR}, not the bare $HOSTNAME Flux leaves alone: ${describeDiagnostics(document.uri)}`);
    const [finding] = undefinedRefs;
    const reference = find(document, '${REPORT_DIR}');
    assert.ok(finding.range.start.line === reference.line && document.getText(finding.range).includes('REPORT_DIR'), `on the reference: ${describeDiagnostics(document.uri)}`);
    const text = await waitUntil(
      async () => {
        const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', document.uri, reference.translate(0, 4))) ?? [];
        const shown = hoverText(hovers);
        return /REPORT_DIR/.test(shown) ? shown : null;
      },
      'a hover on ${REPORT_DIR}',
      10_000,
    );
    // said once: the diagnostic says that the name is not defined; the hover adds who substitutes the file
    assert.match(finding.message, /\$\{REPORT_DIR\} is not defined by Kustomization "apps"/, `the diagnostic says it is not defined: ${finding.message}`);
    assert.match(text, /substituted by Kustomization `apps`/, `the hover names the Kustomization: ${text}`);
    assert.doesNotMatch(text, /not defined/, `the hover does not say it again: ${text}`);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, finding.range);
    const escape = actions.find((action) => action.title.startsWith('Escape'));
    assert.ok(escape?.edit, `an escape fix among: ${actions.map((a) => a.title).join(' | ')}`);
    const before = document.getText();
    assert.ok(await vscode.workspace.applyEdit(escape.edit));
    assert.strictEqual(
      document.getText(),
      before.replace('${REPORT_DIR}', () => '$${REPORT_DIR}'),
      'only the $ added',
    );
    await waitForDiagnostics(document.uri, lacks('flux-substitution-undefined'), 'the finding to clear');
    // Negative control: the original text brings it back (and leaves the file as the next tests expect it).
    const whole = new vscode.WorkspaceEdit();
    whole.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), before);
    assert.ok(await vscode.workspace.applyEdit(whole));
    await waitForDiagnostics(document.uri, has('flux-substitution-undefined'), 'the finding to come back');
    assert.ok(await document.save(), 'saved as it was');
  });

  test('screenshots: a squiggle with its hover, and the quick-fix menu', async function () {
    if (!control.screenshots || !control.url) this.skip();
    this.timeout(240_000); // two widgets, each retried for up to 90 s on a busy machine
    const { document, editor } = await open(FILES.backup);
    const [missing] = only(await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing'), 'ttl-missing');
    const at = missing.range.start.translate(0, 2);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(missing.range, vscode.TextEditorRevealType.InCenter);
    await waitUntil(() => {
      const active = vscode.window.activeTextEditor;
      return active?.document === document && active.selection.active.isEqual(at) && active.visibleRanges.some((range) => range.contains(at));
    }, 'the editor to show the squiggle with the cursor on it');
    // The extension host knows the new selection at once; the workbench applies it a moment later,
    // and Show Hover opens where the workbench has the cursor: wait until its status bar says so.
    const cursorShown = await waitForWidget(control, { selector: '[id="status.editor.selection"]', text: `Ln ${at.line + 1}, Col ${at.character + 1}` });
    assert.ok(cursorShown, `the workbench shows the cursor at Ln ${at.line + 1}, Col ${at.character + 1}`);
    const focusEditor = () => vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    // the hover of the squiggle: the picture is taken once it shows the finding's message. It is
    // opened as a keyboard user does (Show Hover), or else as a mouse user does (resting on the squiggle)
    const hover = await photograph(
      control,
      'hover',
      [
        async () => {
          await focusEditor();
          await vscode.commands.executeCommand('editor.action.showHover');
        },
        () => pointAt(control, '.monaco-editor .squiggly-error'),
      ],
      { selector: HOVER, text: 'sets no spec.ttlSecondsAfterFinished' },
    );
    // the second picture shows the menu alone: the hover is gone, and the server offers the fix
    await pointAt(control);
    await vscode.commands.executeCommand('editor.action.hideHover').then(undefined, () => undefined);
    assert.ok(await waitForWidget(control, { selector: HOVER, hidden: true }), 'the hover closed');
    await waitUntil(async () => {
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, missing.range)) ?? [];
      return actions.some((action) => action.title.startsWith('Insert ttlSecondsAfterFinished'));
    }, 'the insert-TTL fix to be offered');
    const quickFix = await photographQuickFix(control, 'quick-fix', 'Insert ttlSecondsAfterFinished');
    assert.ok(hover.found, `the hover was on screen (${hover.path}); the page showed ${JSON.stringify(hover.seen)}, focus on ${hover.focused}; hover trace ${JSON.stringify(hover.trace)}`);
    assert.ok(quickFix.found, `the quick-fix menu was on screen (${quickFix.path}); the page showed ${JSON.stringify(quickFix.seen)}, focus on ${quickFix.focused}`);
  });

  test('the insert-TTL quick fix clears ttl-missing and the saved file holds the TTL and its comment', async () => {
    const { document } = await open(FILES.backup);
    const [missing] = only(await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing'), 'ttl-missing');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, missing.range);
    const insert = actions.find((action) => action.title.startsWith('Insert ttlSecondsAfterFinished: 86400'));
    assert.ok(insert, `insert-TTL action offered among: ${actions.map((a) => a.title).join(' | ')}`);
    assert.ok(insert.isPreferred, 'the insert-TTL fix is the preferred one');
    assert.ok(insert.kind && vscode.CodeActionKind.QuickFix.contains(insert.kind), `a quick fix, not ${insert.kind?.value}`);
    assert.ok(insert.edit, 'the action carries its edit');
    const before = document.getText();
    assert.ok(await vscode.workspace.applyEdit(insert.edit));
    const added = ['  # converges: TODO say why a second run reaches the same state and does not fail', '  ttlSecondsAfterFinished: 86400'];
    assert.strictEqual(document.getText(), before.replace('\nspec:\n', `\nspec:\n${added.join('\n')}\n`), 'two lines inserted under spec, nothing else changed');
    assert.ok(await document.save(), 'saved');
    await waitForDiagnostics(document.uri, lacks('ttl-missing'), 'ttl-missing to clear');
    const onDisk = await readDiskText(document.uri);
    assert.strictEqual(onDisk, document.getText(), 'the file on disk is the editor text');
    assert.ok(onDisk.includes(`spec:\n${added.join('\n')}\n  backoffLimit: 1\n`), `the TTL and its comment under spec on disk:\n${onDisk}`);
  });

  test('diagnostics follow the fluxJobGuard.ttl.required setting', async () => {
    // the first analysis has been published (report-job.yaml has no finding: an empty list), so the
    // change below is what the next one answers
    const { document } = await afterPublish(fixture(FILES.report), () => open(FILES.report), 'the first analysis of report-job.yaml');
    const settings = () => vscode.workspace.getConfiguration('fluxJobGuard', document.uri);
    await waitForDiagnostics(document.uri, lacks('ttl-unexpected-value'), 'no ttl-unexpected-value at the default 86400');
    try {
      await settings().update('ttl.required', 3600, vscode.ConfigurationTarget.Workspace);
      const diagnostics = await waitForDiagnostics(document.uri, has('ttl-unexpected-value'), 'ttl-unexpected-value once 3600 is required');
      const [unexpected] = only(diagnostics, 'ttl-unexpected-value');
      assert.strictEqual(document.getText(unexpected.range), '86400');
      assert.match(unexpected.message, /3600/);
    } finally {
      await settings().update('ttl.required', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitForDiagnostics(document.uri, lacks('ttl-unexpected-value'), 'ttl-unexpected-value to clear with the setting reset');
  });

  test('diagnostics of an open manifest follow edits of the contract file', async () => {
    const { document: manifest } = await open(FILES.migrate);
    await waitForDiagnostics(manifest.uri, has('ttl-missing'), 'ttl-missing on db-migrate');
    const { document: contract } = await open(FILES.contract);
    const original = contract.getText();
    const entry = ['    - file: apps/migrate/migrate-job.yaml', '      job: db-migrate', "      reason: The migration's completion records that the schema is current.", ''].join('\n');
    try {
      await replaceAll(contract, original + entry);
      await waitForDiagnostics(manifest.uri, lacks('ttl-missing'), 'ttl-missing to clear once the contract lists db-migrate');
      assert.ok(await contract.save());
    } finally {
      await replaceAll(contract, original);
      await contract.save();
    }
    await waitForDiagnostics(manifest.uri, has('ttl-missing'), 'ttl-missing back once the entry is gone');
  });

  test('Audit Workspace finds problems in files never opened and reports its summary line', async () => {
    const cleanup = fixture(FILES.cleanup);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === cleanup.toString()), 'cleanup-job.yaml was never opened');
    assert.deepStrictEqual(ours(cleanup), [], 'no diagnostics before the audit');
    const response = await vscode.commands.executeCommand<AuditResponse>('fluxJobGuard.auditWorkspace');
    assert.strictEqual(response.folders.length, 1);
    const diagnostics = await waitForDiagnostics(cleanup, has('ttl-missing'), 'ttl-missing from the audit');
    const [missing] = only(diagnostics, 'ttl-missing');
    assert.match(missing.message, /Job "cleanup-tmp"/);
    const lines = (await readDiskText(cleanup)).split('\n');
    assert.strictEqual(lines[missing.range.start.line], 'spec:');
    assert.deepStrictEqual([missing.range.start.character, missing.range.end.character], [0, 4]);
    // the output channel cannot be read through the API: the activate() result exposes the lines it logged
    const summary = api.lastAuditSummary();
    assert.strictEqual(summary.length, 1, `one folder: ${summary.join(' / ')}`);
    assert.match(summary[0], /FAIL: \d+ error\(s\), \d+ warning\(s\) in 5 Job\(s\) in \d+ file\(s\)$/);
    assert.ok(summary[0].endsWith(response.folders[0].summaryLine), `${summary[0]} ends with ${response.folders[0].summaryLine}`);
    assert.ok(response.folders[0].errors >= 2, 'cleanup-tmp and db-migrate have no TTL');
  });

  test('after the server process is killed (SIGKILL) the client restarts it and the diagnostics come back', async function () {
    if (!canKillServer()) this.skip(); // the web build's server is a worker nobody outside the client can end
    const { document } = await open(FILES.migrate);
    await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing before the crash');
    const oldPid = await waitUntil(() => serverPid(extension.extensionPath), 'the language server process', 10_000);
    let cleared = false;
    const watch = vscode.languages.onDidChangeDiagnostics(() => {
      if (ours(document.uri).length === 0) cleared = true;
    });
    try {
      killServer(oldPid);
      await waitUntil(() => cleared, 'the diagnostics of the dead server to be cleared');
      const newPid = await waitUntil(() => {
        const pid = serverPid(extension.extensionPath);
        return pid !== null && pid !== oldPid ? pid : null;
      }, 'a new language server process');
      assert.notStrictEqual(newPid, oldPid);
      await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing from the restarted server');
      await waitUntil(() => api.client().state === CLIENT_RUNNING, 'the client to run again');
    } finally {
      watch.dispose();
    }
  });
});

// ---- Flux variables as symbols -------------------------------------------------
// Completion, rename and inlay hints as a user meets them, over the same
// fixture: `apps` defines CLUSTER_NAME (substitute), TIMEZONE and BACKUP_BUCKET
// (ConfigMap cluster-settings) and DB_PASSWORD (a SOPS Secret); BACKUP_DIR is
// defined nowhere; archive/old-backup-job.yaml is a copy nothing applies. Each
// test leaves the files as it found them.

const VARIABLES = {
  settings: 'clusters/home/apps.yaml',
  archived: 'archive/old-backup-job.yaml',
} as const;

/** The widgets the runner waits for (and photographs), with their content. */
const WIDGETS = {
  completion: { selector: '.suggest-widget.visible', text: 'TIMEZONE' },
  rename: { selector: '.monaco-editor .rename-box', text: 'to Rename' },
  // (the editor draws a space as U+00A0: the masked value has none)
  inlayHints: { selector: '.monaco-editor .view-lines', text: '••••' },
  lens: { selector: '.monaco-editor .codelens-decoration', text: 'every' },
} satisfies Record<string, Widget>;

/** Places as `path line:start-end`, the way the assertions below read. */
function placeOf(uri: vscode.Uri, range: vscode.Range): string {
  const folder = vscode.workspace.workspaceFolders![0].uri.path.replace(/\/$/, '');
  return `${uri.path.slice(folder.length + 1)} ${range.start.line}:${range.start.character}-${range.end.character}`;
}

/** Inserts `line` (and a line break) at the start of the line holding `before`; returns the original text. */
async function insertLineBefore(document: vscode.TextDocument, before: string, line: string): Promise<string> {
  const original = document.getText();
  const at = new vscode.Position(find(document, before).line, 0);
  const edit = new vscode.WorkspaceEdit();
  edit.insert(document.uri, at, `${line}\n`);
  assert.ok(await vscode.workspace.applyEdit(edit), 'line inserted');
  return original;
}

async function restore(document: vscode.TextDocument, original: string): Promise<void> {
  if (document.getText() !== original) await replaceAll(document, original);
  assert.ok(await document.save(), `saved ${document.uri.path}`);
}

async function inlayHints(document: vscode.TextDocument): Promise<string[]> {
  const all = new vscode.Range(0, 0, document.lineCount, 0);
  const hints = (await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', document.uri, all)) ?? [];
  return hints.map((hint) => `${hint.position.line}:${hint.position.character} ${typeof hint.label === 'string' ? hint.label : hint.label.map((part) => part.value).join('')}`);
}

suite(`Flux variables as symbols in a real workbench (${runtime} extension host)`, function () {
  let control: Control;

  suiteSetup(async () => {
    control = await readControl();
    const api = await vscode.extensions.getExtension<Api>(EXTENSION_ID)!.activate();
    await waitUntil(() => api.client().state === CLIENT_RUNNING, 'the language client to run');
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('completion after ${ offers what `apps` defines (value, origin, the secret masked), and the chosen name lands in the script', async function () {
    this.timeout(180_000); // the widget is opened (and photographed) twice, each retried on a busy machine
    const { document } = await open(FILES.backup);
    await waitForDiagnostics(document.uri, has('flux-substitution-undefined'), 'the first analysis');
    const original = await insertLineBefore(document, 'tar -czf', '              echo "${}"');
    try {
      const opened = find(document, '${}').translate(0, 2);
      const list = await waitUntil(
        async () => {
          const found = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, opened);
          return found.items.some((item) => labelOf(item) === 'TIMEZONE') ? found : null;
        },
        'the names of `apps` offered after ${',
        15_000,
      );
      const ours = list.items.filter((item) => item.kind === vscode.CompletionItemKind.Variable);
      assert.deepStrictEqual(
        ours.map((item) => [labelOf(item), item.detail]).sort(),
        [
          ['BACKUP_BUCKET', 's3://home-backups — ConfigMap cluster-settings'],
          ['CLUSTER_NAME', 'home — substitute of Kustomization "apps"'],
          ['DB_PASSWORD', '•••• — Secret cluster-secrets'],
          ['TIMEZONE', 'Europe/Paris — ConfigMap cluster-settings'],
        ],
        'BACKUP_DIR is defined nowhere: never offered; the Secret never shows',
      );
      const timezone = ours.find((item) => labelOf(item) === 'TIMEZONE')!;
      assert.ok((timezone.range as vscode.Range).isEqual(new vscode.Range(opened, opened)), `inserted at the cursor: ${JSON.stringify(timezone.range)}`);
      // As a user: the suggest widget at the cursor, listing the names (the picture waits for TIMEZONE).
      if (control.url && control.screenshots) {
        await cursorAt(control, document, opened);
        const shot = await photograph(control, 'completion', [() => vscode.commands.executeCommand('editor.action.triggerSuggest')], WIDGETS.completion);
        await vscode.commands.executeCommand('hideSuggestWidget');
        assert.ok(shot.found, `the suggest widget listed the names (${shot.path}); the page showed ${JSON.stringify(shot.seen)}`);
      }
      // Typed `TI`, the first entry accepted: only TIMEZONE begins so (a try that went wrong is undone).
      await replaceAll(document, document.getText().replace('echo "${}"', 'echo "${TI}"'));
      const typed = document.getText();
      const cursor = find(document, '${TI}').translate(0, 4);
      await waitUntil(
        async () => {
          if (document.getText() !== typed) await replaceAll(document, typed);
          await cursorAt(control, document, cursor);
          await vscode.commands.executeCommand('editor.action.triggerSuggest');
          if (control.url) await waitForWidget(control, { ...WIDGETS.completion, timeout: 20_000 });
          await vscode.commands.executeCommand('acceptSelectedSuggestion');
          return document.getText().includes('echo "${TIMEZONE}"');
        },
        'TIMEZONE to be chosen from the suggest widget',
        90_000,
      );
      await waitUntil(async () => (await inlayHints(document)).some((hint) => hint.endsWith('= Europe/Paris')), 'the hint of the new ${TIMEZONE}');
    } finally {
      await restore(document, original);
    }
  });

  test('rename: the workbench asks for the new name of ${CLUSTER_NAME}; the edit renames the key and the use, and leaves the archived copy alone', async function () {
    this.timeout(180_000); // the rename box, retried on a busy machine
    const { document } = await open(FILES.backup);
    const position = find(document, '${CLUSTER_NAME}').translate(0, 4);
    const prepared = await vscode.commands.executeCommand<{ range: vscode.Range; placeholder: string }>('vscode.prepareRename', document.uri, position);
    assert.strictEqual(prepared.placeholder, 'CLUSTER_NAME');
    assert.strictEqual(document.getText(prepared.range), 'CLUSTER_NAME');
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('vscode.prepareRename', document.uri, find(document, 'docker.io'))),
      /Only a Flux variable or the name of a Flux Kustomization or HelmRelease can be renamed here/,
    );
    if (control.url && control.screenshots) {
      // The rename box the workbench opens after asking the server (prepareRename) what to rename;
      // the command settles only when the box closes.
      await cursorAt(control, document, position);
      let renaming: Thenable<unknown> = Promise.resolve();
      const shot = await photograph(control, 'rename', [() => ((renaming = vscode.commands.executeCommand('editor.action.rename')), Promise.resolve())], WIDGETS.rename);
      await vscode.commands.executeCommand('cancelRenameInput');
      await renaming;
      assert.ok(shot.found, `the rename box was on screen (${shot.path}); the page showed ${JSON.stringify(shot.seen)}`);
    }
    const settings = await vscode.workspace.openTextDocument(fixture(VARIABLES.settings));
    const archived = await vscode.workspace.openTextDocument(fixture(VARIABLES.archived));
    const originals = new Map([document, settings, archived].map((d) => [d, d.getText()]));
    try {
      const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', document.uri, position, 'CLUSTER');
      const keyLine = find(settings, 'CLUSTER_NAME:').line;
      const useAt = find(document, '${CLUSTER_NAME}').translate(0, 2);
      assert.deepStrictEqual(
        edit
          .entries()
          .flatMap(([uri, edits]) => edits.map((e) => `${placeOf(uri, e.range)} ${e.newText}`))
          .sort(),
        [`${FILES.backup} ${useAt.line}:${useAt.character}-${useAt.character + 12} CLUSTER`, `${VARIABLES.settings} ${keyLine}:6-18 CLUSTER`].sort(),
      );
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.strictEqual(settings.getText(), originals.get(settings)!.replace('CLUSTER_NAME: home', 'CLUSTER: home'));
      assert.strictEqual(document.getText(), originals.get(document)!.replace('${CLUSTER_NAME}', '${CLUSTER}'));
      assert.strictEqual(archived.getText(), originals.get(archived), 'a file Flux does not apply is not touched');
      // The renamed pair is still one variable (the server substitutes `home` for the new name), and it renames back.
      const renamedEnd = find(document, '${CLUSTER}').translate(0, '${CLUSTER}'.length);
      await waitUntil(async () => (await inlayHints(document)).includes(`${renamedEnd.line}:${renamedEnd.character} = home`), 'the renamed ${CLUSTER} to be substituted with home');
      const back = await vscode.commands.executeCommand<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', document.uri, find(document, '${CLUSTER}').translate(0, 3), 'CLUSTER_NAME');
      assert.ok(await vscode.workspace.applyEdit(back));
      assert.strictEqual(settings.getText(), originals.get(settings));
      assert.strictEqual(document.getText(), originals.get(document));
    } finally {
      for (const [d, text] of originals) await restore(d, text);
    }
  });

  test('inlay hints: the value after each ${…}, a secret as ••••, a failure where strict substitution fails; the setting turns them off', async function () {
    this.timeout(180_000); // the picture, retried on a busy machine
    const { document } = await open(FILES.backup);
    const original = await insertLineBefore(document, 'tar -czf', '              echo "${DB_PASSWORD}"');
    const settings = () => vscode.workspace.getConfiguration('fluxJobGuard', document.uri);
    try {
      const endOf = (needle: string) => {
        const start = find(document, needle);
        return `${start.line}:${start.character + needle.length}`;
      };
      const expected = [`${endOf('${CLUSTER_NAME}')} = home`, `${endOf('${DB_PASSWORD}')} = ••••`, `${endOf('${BACKUP_DIR}')} (fails: strict)`];
      const hints = await waitUntil(async () => {
        const found = await inlayHints(document);
        return found.length === 3 ? found : null;
      }, 'three inlay hints');
      assert.deepStrictEqual(hints, expected);
      assert.ok(!hints.some((hint) => hint.includes('ENC[')), 'never the encrypted value');
      if (control.url && control.screenshots) {
        // The picture shows the Job's lens too: scrolled to the very top, where it stands over line 1.
        const shot = await photograph(
          control,
          'inlay-hints',
          [
            async () => {
              await vscode.window.showTextDocument(document, { preview: false });
              await vscode.commands.executeCommand('editorScroll', { to: 'up', by: 'page', value: 10 });
              await waitForWidget(control, WIDGETS.lens);
            },
          ],
          WIDGETS.inlayHints,
        );
        assert.ok(shot.found, `the hints are drawn in the editor (${shot.path}); the page showed ${JSON.stringify(shot.seen)}`);
      }
      await settings().update('inlayHints.enabled', false, vscode.ConfigurationTarget.Workspace);
      await waitUntil(async () => (await inlayHints(document)).length === 0, 'no hints with fluxJobGuard.inlayHints.enabled off');
    } finally {
      await settings().update('inlayHints.enabled', undefined, vscode.ConfigurationTarget.Workspace);
      await restore(document, original);
    }
    await waitUntil(async () => (await inlayHints(document)).length === 2, 'the hints back with the setting reset');
  });

  test('a code lens on every Job: its cycle in words, and the command that shows the TTL hover', async () => {
    const { document } = await open(FILES.report);
    const lenses = await waitUntil(async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri, 10)) ?? [];
      return found.length > 0 && found.every((lens) => lens.command) ? found : null;
    }, 'the resolved lens of weekly-report');
    assert.deepStrictEqual(
      lenses.map((lens) => [lens.range.start.line, lens.command!.title]),
      [[0, 're-created about 24 h after it finishes — Kustomization apps, every 1h']],
    );
    const lensArguments: unknown[] = lenses[0].command!.arguments ?? [];
    await vscode.commands.executeCommand(lenses[0].command!.command, ...lensArguments);
    const ttl = find(document, 'ttlSecondsAfterFinished');
    await waitUntil(() => vscode.window.activeTextEditor?.selection.active.isEqual(ttl), 'the cursor on the TTL, where its hover opens');
  });
});
