/// <reference types="mocha" />
// The extension around the findings, in a real workbench: the getting-started
// walkthrough, the rule docs a finding links to (offline, rendered), the contract file's
// key completion, Preview Flux Substitution (one editor, live, the failure's
// place), and the language status item (busy, then the summary, following a
// fix). Runs after extension.e2e.ts in the same workbench and fixture copy.
// Each test has a negative control; the screenshots are the README's screen tour.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { Control, frameElementAt, pointAt, readControl, screenshot, waitForWidget } from './control';
import { Api, EXTENSION_ID, FILES, find, fixture, has, lacks, only, open, photograph, photographQuickFix, replaceAll, waitForDiagnostics, waitUntil } from './helpers';
import { runtime } from './host';

const PREVIEW_SCHEME = 'flux-job-guard-preview';
/** The Kustomization that builds FILES.backup and substitutes it. */
const KUSTOMIZATION_OF_BACKUP = 'clusters/home/apps.yaml';
const DOCS_SCHEME = 'flux-job-guard-docs';
const WALKTHROUGH = `${EXTENSION_ID}#gettingStarted`;

/** The peek view of references (what `editor.action.showReferences` opens). */
const PEEK = '.peekview-widget';
const allTabs = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs);
/** The Markdown preview's tabs of the bundled rule docs. */
const docsPreviews = () => allTabs().filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('markdown.preview') && tab.label.includes('rules.md'));
/** Editors of the bundled rule docs as Markdown text. */
const docsTexts = () => allTabs().filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === DOCS_SCHEME);
/** A rule's heading in the rendered page (the preview gives each heading its anchor as id). */
const heading = (rule: string) => `h3[id="${rule}"]`;
/** Where an element's top is in a view, as fractions of the view's height (see frameElementAt). */
const UPPER_HALF: [number, number] = [-0.02, 0.5];
/** Anywhere on the page, in view or scrolled out of it. */
const ANYWHERE: [number, number] = [-1e6, 1e6];
const IN_VIEW: [number, number] = [-0.02, 1];
const ABOVE_VIEW: [number, number] = [-100, 0];

function previewTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === PREVIEW_SCHEME);
}

function previewDocument(source: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => document.uri.scheme === PREVIEW_SCHEME && document.uri.query === source.toString());
}

/** Puts the cursor at `at` and waits until the workbench shows it there (its status bar says so). */
async function placeCursor(control: Control, editor: vscode.TextEditor, at: vscode.Position): Promise<void> {
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  if (control.screenshots && control.url) {
    assert.ok(await waitForWidget(control, { selector: '[id="status.editor.selection"]', text: `Ln ${at.line + 1}, Col ${at.character + 1}` }), `the cursor at Ln ${at.line + 1}`);
  }
}

/** The Problems panel's count of this extension's diagnostics, as the status item words it (client/src/status.ts). */
function problemsShown(): { errors: number; text: string } {
  let errors = 0;
  let warnings = 0;
  let files = 0;
  for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
    const ours = diagnostics.filter((d) => d.source === 'flux-job-guard');
    const e = ours.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length;
    const w = ours.filter((d) => d.severity === vscode.DiagnosticSeverity.Warning).length;
    errors += e;
    warnings += w;
    if (e + w > 0) files++;
  }
  const parts = [...(errors > 0 ? [`${errors} error(s)`] : []), ...(warnings > 0 ? [`${warnings} warning(s)`] : [])];
  return { errors, text: `Jobs: ${parts.length === 0 ? 'ok' : `${parts.join(', ')} in ${files} file(s)`}` };
}

const focusEditor = () => vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');

suite(`Flux Job Guard, the user's tour (${runtime} extension host)`, function () {
  let control: Control;
  let api: Api;

  suiteSetup(async () => {
    control = await readControl();
    api = await vscode.extensions.getExtension<Api>(EXTENSION_ID)!.activate();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the walkthrough opens and lists its four steps', async function () {
    this.timeout(120_000);
    const { walkthroughs } = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { walkthroughs: Array<{ steps: Array<{ title: string; media: { markdown: string } }> }> } })
      .contributes;
    const steps = walkthroughs[0].steps;
    assert.deepStrictEqual(
      steps.map((step) => step.title),
      ['What Flux Job Guard checks', 'Create the contract file', 'Audit the workspace', 'Read the rule docs'],
    );
    if (!control.url) this.skip(); // only the runner sees the page
    // negative control: no step of ours is on screen before the walkthrough is opened
    assert.ok(await waitForWidget(control, { selector: '.getting-started-step', text: 'Create the contract file', hidden: true }), 'no step before it is opened');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    for (const step of steps) assert.ok(await waitForWidget(control, { selector: '.getting-started-step', text: step.title }), `the step "${step.title}" is listed`);
    if (control.screenshots) {
      const shot = await photograph(control, 'walkthrough', [() => Promise.resolve()], { selector: '.getting-started-step', text: 'Read the rule docs' });
      assert.ok(shot.found, `the walkthrough was on screen (${shot.path})`);
    }
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test("a finding's code opens its rule in the docs shipped with the extension: rendered, at the rule's heading (offline)", async function () {
    this.timeout(120_000);
    const { document } = await open(FILES.migrate);
    const [missing] = only(await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing'), 'ttl-missing');
    const code = missing.code as { value: string; target: vscode.Uri };
    assert.strictEqual(code.value, 'ttl-missing');
    assert.strictEqual(code.target.scheme, DOCS_SCHEME, `a link into the bundled docs, not the web: ${code.target.toString()}`);
    const looks = control.url !== undefined;
    // negative control: no page shows the rule before its link is opened
    if (looks) assert.ok(!(await frameElementAt(control, heading('ttl-missing'), UPPER_HALF, 2000)), 'no rendered rule docs yet');
    // what a click on the code does, in its hover or in the Problems panel
    await vscode.commands.executeCommand('vscode.open', code.target);
    // the preview's tab is reported opened before it is reported active (two events of the tab model): wait for the state
    await waitUntil(() => docsPreviews().find((tab) => tab.isActive), 'the rule docs in the Markdown preview, the active tab');
    await waitUntil(() => docsTexts().length === 0, 'no editor left showing the Markdown source');
    if (looks) {
      // The preview scrolls to the heading's anchor; on a cold, busy workbench its styles may land after
      // the scroll, leaving the heading lower in the view: the upper half, not the exact top.
      assert.ok(await frameElementAt(control, heading('ttl-missing'), UPPER_HALF), "the page scrolled to the rule's heading");
      if (control.screenshots) assert.ok((await screenshot(control, 'rule-docs', { selector: '.tab.active', text: 'rules.md' })).found, 'the rendered docs photographed');
    }
    // negative control: another rule's link shows that rule, in the same page; ttl-missing is above the view
    await vscode.commands.executeCommand('vscode.open', code.target.with({ path: '/rule/ttl-forbidden', fragment: '' }));
    if (looks) {
      assert.ok(await frameElementAt(control, heading('ttl-forbidden'), IN_VIEW), 'another rule: its heading in view');
      assert.ok(await frameElementAt(control, heading('ttl-missing'), ABOVE_VIEW), 'ttl-missing scrolled out of view, above');
    }
    // and the docs opened without a rule (Open Rule Docs, the walkthrough's step) show the page from its top
    await vscode.commands.executeCommand('fluxJobGuard.showRuleDocs');
    if (looks) {
      assert.ok(await frameElementAt(control, 'h1', [-0.02, 0.2]), 'the page at its title');
      assert.ok(await frameElementAt(control, heading('ttl-missing'), [0.5, 100]), 'ttl-missing below, not at the top');
    }
    await waitUntil(() => docsTexts().length === 0, 'no editor left showing the Markdown source');
    assert.strictEqual(docsPreviews().length, 1, 'one page of rule docs, reused');
    await vscode.window.tabGroups.close(docsPreviews());
  });

  test("the extension page shows the README's first picture, loaded (not its alt text)", async function () {
    // Only an installed extension has a page: a development one is not among the local extensions.
    if (control.mode !== 'installed' || control.url === undefined) return this.skip();
    this.timeout(90_000);
    // vsce writes the repository's address (the page shows media only from http(s) addresses); the runner answers it from the checkout
    const picture = 'img[alt^="A Job without a finish timeout"][src="https://github.com/flux-job-guard/flux-job-guard/raw/HEAD/docs/images/squiggle-hover.png"]';
    // negative control: no page shows the picture before the extension's page is opened
    assert.ok(!(await frameElementAt(control, picture, ANYWHERE, 2000, true)), 'no extension page yet');
    // What the Extensions view runs on a click of the installed extension (extension.open asks the gallery first, and offline that fails).
    await vscode.commands.executeCommand('_extensions.manage', EXTENSION_ID);
    assert.ok(await frameElementAt(control, picture, ANYWHERE, 60_000, true), "the page's first picture has loaded");
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('the lens that counts the Kustomizations of a Job lists them where references are listed', async function () {
    this.timeout(120_000);
    const { document } = await open(FILES.report);
    if (!control.url) this.skip();
    // negative control: no peek view before the command
    assert.ok(await waitForWidget(control, { selector: PEEK, hidden: true }), 'no peek view yet');
    const kind = { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } };
    // the arguments as the server sends them with the lens (JSON: URIs as strings), here two places
    const listed = {
      uri: document.uri.toString(),
      position: { line: 0, character: 0 },
      locations: [fixture('clusters/home/apps.yaml'), fixture('clusters/home/cluster-settings.yaml')].map((uri) => ({ uri: uri.toString(), range: kind })),
    };
    await vscode.commands.executeCommand('fluxJobGuard.showReferences', listed);
    assert.ok(await waitForWidget(control, { selector: PEEK, text: 'cluster-settings.yaml' }), 'the peek view lists the places');
    assert.ok(await waitForWidget(control, { selector: PEEK, text: 'apps.yaml' }), 'both of them');
    await vscode.commands.executeCommand('closeReferenceSearch');
    assert.ok(await waitForWidget(control, { selector: PEEK, hidden: true }), 'the peek view closed');
  });

  test('the contract file completes the keys its mapping lacks, described', async function () {
    this.timeout(150_000);
    const { document } = await open(FILES.contract);
    const original = document.getText();
    try {
      // a new line under ttl:, beside noFinishTimeout
      await replaceAll(document, original.replace('ttl:\n', 'ttl:\n  \n'));
      const at = new vscode.Position(find(document, 'ttl:\n').line + 1, 2);
      const list = await waitUntil(async () => {
        const result = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, at);
        return result.items.some((item) => item.label === 'required') ? result : null;
      }, 'the contract keys');
      const labels = list.items.filter((item) => item.kind === vscode.CompletionItemKind.Property).map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
      assert.deepStrictEqual(
        labels.filter((label) => ['required', 'convergenceNote', 'noFinishTimeout', 'otherFinishTimeout'].includes(label)).sort(),
        ['convergenceNote', 'otherFinishTimeout', 'required'],
        'noFinishTimeout is there already',
      );
      const required = list.items.find((item) => item.label === 'required')!;
      assert.match(typeof required.documentation === 'string' ? required.documentation : required.documentation!.value, /ttlSecondsAfterFinished/);
      // negative control: the same place in a Job gets none of the contract's keys
      const { document: job } = await open(FILES.report);
      const other = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', job.uri, new vscode.Position(5, 2));
      assert.ok(!other.items.some((item) => item.label === 'convergenceNote'), 'no contract key in a Job');
      if (control.screenshots && control.url) {
        await vscode.window.showTextDocument(document, { preview: false });
        await placeCursor(control, vscode.window.activeTextEditor!, at);
        const shot = await photograph(
          control,
          'contract-completion',
          [
            async () => {
              await focusEditor();
              await vscode.commands.executeCommand('editor.action.triggerSuggest');
            },
          ],
          { selector: '.suggest-widget', text: 'convergenceNote' },
        );
        await vscode.commands.executeCommand('hideSuggestWidget').then(undefined, () => undefined);
        assert.ok(shot.found, `the suggest widget was on screen (${shot.path})`);
      }
    } finally {
      await replaceAll(document, original);
      await document.save();
    }
  });

  test('the quick-fix menu offers "Disable … for this line"', async function () {
    this.timeout(150_000);
    const { document } = await open(FILES.migrate);
    const [missing] = only(await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing'), 'ttl-missing');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, missing.range);
    assert.ok(
      actions.some((action) => action.title === 'Disable ttl-missing for this line'),
      `among ${actions.map((a) => a.title).join(' | ')}`,
    );
    // negative control: no disable fix inside a block scalar (a comment line there would change the script)
    const { document: backup } = await open(FILES.backup);
    const [undefinedName] = only(await waitForDiagnostics(backup.uri, has('flux-substitution-undefined'), 'the undefined ${BACKUP_DIR}'), 'flux-substitution-undefined');
    const inScript = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', backup.uri, undefinedName.range);
    assert.ok(inScript.length > 0 && !inScript.some((action) => action.title.startsWith('Disable')), `no disable fix in a script: ${inScript.map((a) => a.title).join(' | ')}`);
    if (!control.screenshots || !control.url) return;
    await vscode.window.showTextDocument(document);
    await placeCursor(control, vscode.window.activeTextEditor!, missing.range.start.translate(0, 1));
    const shot = await photographQuickFix(control, 'quick-fix-disable', 'Disable ttl-missing for this line');
    assert.ok(shot.found, `the quick-fix menu was on screen (${shot.path})`);
  });

  test("Preview Flux Substitution: one editor for two invocations, the failure's place, live after an edit", async function () {
    this.timeout(150_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { document } = await open(FILES.backup);
    await vscode.commands.executeCommand('fluxJobGuard.previewSubstitution');
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('fluxJobGuard.previewSubstitution');
    const preview = await waitUntil(() => previewDocument(document.uri), 'the preview document');
    assert.strictEqual(
      previewTabs().length,
      1,
      `one preview tab after two invocations: ${previewTabs()
        .map((tab) => tab.label)
        .join(', ')}`,
    );
    // Flux fails on the undefined ${BACKUP_DIR}: the first lines say where, then why
    const at = find(document, '${BACKUP_DIR}');
    const failure = `# ✖ Flux fails to build ${FILES.backup}:${at.line + 1}:${at.character + 1}\n#   \${BACKUP_DIR}: variable not set (strict mode): "BACKUP_DIR"`;
    const failureShown = () => preview.getText().split('\n').slice(0, 2).join('\n') === failure;
    await waitUntil(failureShown, `the failure lines, not ${JSON.stringify(preview.getText().split('\n').slice(0, 2))}`);
    if (control.screenshots && control.url) {
      // room for both editors: the side bar closes for the picture (the editor renders spaces as no-break spaces)
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      const shot = await photograph(control, 'preview-failure', [() => Promise.resolve()], { selector: '.monaco-editor .view-lines', text: '✖' });
      await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
      assert.ok(shot.found, `the preview was on screen (${shot.path})`);
    }
    // live: the source defines a default, unsaved, and the preview follows
    const original = document.getText();
    try {
      await replaceAll(document, original.replace('${BACKUP_DIR}', '${BACKUP_DIR:=/backup}'));
      await waitUntil(() => !preview.getText().includes('✖') && preview.getText().includes('/backup/snapshot.tgz'), 'the preview to follow the edit');
      assert.ok(preview.getText().includes('snapshot of home'), 'a defined name is substituted');
      // negative control: another source gets a preview of its own (two tabs: the count is real)
      await open(FILES.report);
      await vscode.commands.executeCommand('fluxJobGuard.previewSubstitution');
      await waitUntil(() => previewTabs().length === 2, 'a second preview for another file');
    } finally {
      await replaceAll(document, original);
      await document.save();
    }
    await waitUntil(failureShown, 'the failure lines back after the revert');
  });

  test('Preview Flux Substitution follows the Kustomization: defining the variable there (saved) renders it, with no edit of the source', async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { document } = await open(FILES.backup);
    await vscode.commands.executeCommand('fluxJobGuard.previewSubstitution');
    const preview = await waitUntil(() => previewDocument(document.uri), 'the preview document');
    await waitUntil(() => preview.getText().startsWith('# ✖ Flux fails to build'), `the failure, not ${JSON.stringify(preview.getText().split('\n')[0])}`);
    const { document: apps } = await open(KUSTOMIZATION_OF_BACKUP);
    const original = apps.getText();
    try {
      await replaceAll(apps, original.replace('      CLUSTER_NAME: home\n', '      CLUSTER_NAME: home\n      BACKUP_DIR: /srv/backup\n'));
      await apps.save();
      await waitUntil(
        () => !preview.getText().includes('✖') && preview.getText().includes('/srv/backup/snapshot.tgz'),
        `the preview to follow the Kustomization, not ${JSON.stringify(preview.getText().split('\n')[0])}`,
      );
      // running the command again renders again (and keeps the one editor)
      await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One });
      await vscode.commands.executeCommand('fluxJobGuard.previewSubstitution');
      assert.strictEqual(previewTabs().length, 1);
    } finally {
      await replaceAll(apps, original);
      await apps.save();
    }
    // negative control: the failure comes back with the definition gone
    await waitUntil(() => preview.getText().startsWith('# ✖ Flux fails to build'), 'the failure back after the revert');
  });

  test('the status item: busy, then the Problems counts exactly, which follow a fix after a save', async function () {
    this.timeout(150_000);
    const history = () => api.statusHistory();
    // busy while the server started (and, on Node hosts, restarted after the crash test), then settled
    assert.strictEqual(history()[0].busy, true, 'busy first');
    assert.ok(
      history().some(
        (snapshot, i) =>
          snapshot.busy &&
          history()
            .slice(i + 1)
            .some((later) => !later.busy),
      ),
      'busy, then settled',
    );
    const before = history().length;
    const response = await vscode.commands.executeCommand<{ folders: Array<{ errors: number }> }>('fluxJobGuard.auditWorkspace');
    const errors = response.folders[0].errors;
    assert.ok(errors >= 2, `cleanup-tmp and db-migrate have no TTL: ${errors}`);
    // the item counts what Problems shows (errors and warnings, and the files that hold them)
    await waitUntil(() => !history().at(-1)!.busy && history().at(-1)!.text === problemsShown().text, `the Problems counts after the audit: ${JSON.stringify([history().at(-1), problemsShown()])}`);
    const shown = problemsShown().errors;
    assert.ok(shown >= 2, `cleanup-tmp and db-migrate have no TTL: ${shown}`);
    assert.ok(
      history()
        .slice(before)
        .some((snapshot) => snapshot.busy),
      'busy while auditing',
    );
    assert.strictEqual(history().at(-1)!.severity, 'error', 'an error icon for a failed audit');

    // negative control: a save that changes no finding leaves the count as it was
    const { document: report } = await open(FILES.report);
    const saved = history().length;
    await replaceAll(report, report.getText() + '\n');
    assert.ok(await report.save());
    await waitUntil(
      () =>
        history()
          .slice(saved)
          .some((snapshot) => snapshot.busy) && !history().at(-1)!.busy,
      'the audit after the save',
    );
    assert.strictEqual(history().at(-1)!.text, problemsShown().text);
    assert.strictEqual(problemsShown().errors, shown);
    await replaceAll(report, report.getText().replace(/\n$/, ''));
    await report.save();

    if (control.screenshots && control.url) {
      await vscode.window.showTextDocument(report);
      const shot = await photograph(control, 'status-item', [() => pointAt(control, '[id="status.languageStatus"]')], { selector: '.hover-language-status', text: 'Audit Workspace' });
      await pointAt(control);
      assert.ok(shot.found, `the status item's hover was on screen (${shot.path})`);
    }

    // the fix: the TTL inserted into cleanup-tmp and saved; one error fewer
    const { document } = await open(FILES.cleanup);
    const [missing] = only(await waitForDiagnostics(document.uri, has('ttl-missing'), 'ttl-missing'), 'ttl-missing');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, missing.range);
    const insert = actions.find((action) => action.title.startsWith('Insert ttlSecondsAfterFinished'))!;
    assert.ok(await vscode.workspace.applyEdit(insert.edit!));
    assert.ok(await document.save());
    await waitForDiagnostics(document.uri, lacks('ttl-missing'), 'ttl-missing to clear');
    await waitUntil(
      () => !history().at(-1)!.busy && problemsShown().errors === shown - 1 && history().at(-1)!.text === problemsShown().text,
      `the counts to follow the fix: ${JSON.stringify([history().at(-1), problemsShown()])}`,
    );
    // the save audits the folder again: its summary (the tooltip) follows once that audit ends
    await waitUntil(
      () => !history().at(-1)!.busy && new RegExp(`FAIL: ${errors - 1} error\\(s\\)`).test(api.lastAuditSummary()[0] ?? ''),
      `the audit summary to follow the fix: ${JSON.stringify(api.lastAuditSummary())}`,
    );
    assert.deepStrictEqual(api.lastAuditSummary().length, 1);
    assert.strictEqual(history().at(-1)!.text, problemsShown().text, 'and the item still counts what Problems shows');
  });

  test('Create Contract File opens the existing contract and never rewrites it', async () => {
    const contract = fixture(FILES.contract);
    const before = new TextDecoder().decode(await vscode.workspace.fs.readFile(contract));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await open(FILES.report);
    const result = await vscode.commands.executeCommand<{ uri: string; created: boolean }>('fluxJobGuard.createContract');
    assert.deepStrictEqual(result, { uri: contract.toString(), created: false });
    await waitUntil(() => vscode.window.activeTextEditor?.document.uri.toString() === contract.toString(), 'the contract file shown');
    assert.strictEqual(new TextDecoder().decode(await vscode.workspace.fs.readFile(contract)), before);
  });
});
