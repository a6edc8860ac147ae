/// <reference types="mocha" />
// What the repository cannot show, in a real workbench (issue 17): two
// Kustomizations take one Secret that an ExternalSecret fills with dataFrom.
// The Problems panel holds one info for that source (not one per
// Kustomization); its preferred quick fix declares the source and every name
// the repository uses from it in the contract; after the save, the audit adds
// no error but the placeholder reason the fix leaves to fill in, and the uses
// are checked. Runs last: it adds files to the fixture copy and removes them.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { AuditResponse, codeOf, FILES, fixture, has, lacks, ours, waitForDiagnostics, waitUntil } from './helpers';
import { runtime } from './host';

const kustomization = (name: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 1h
  path: ./vault/${name.slice('vault-'.length)}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substituteFrom:
      - kind: Secret
        name: vault-secrets
`;

const settings = (name: string, variable: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-${name}
  namespace: default
data:
  value: "\${${variable}}"
`;

const ADDED: Record<string, string> = {
  'clusters/vault/ks.yaml': `${kustomization('vault-a')}---\n${kustomization('vault-b')}`,
  'vault/a/externalsecret.yaml': `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: vault-secrets
  namespace: flux-system
spec:
  secretStoreRef: {kind: ClusterSecretStore, name: vault}
  target:
    name: vault-secrets
  dataFrom:
    - extract:
        key: home
`,
  'vault/a/settings.yaml': settings('a', 'DB_HOST'),
  'vault/b/settings.yaml': settings('b', 'DB_PASSWORD'),
};

/** Every error of ours in the workspace, as `rule file:line`. */
function errorsEverywhere(): string[] {
  return vscode.languages
    .getDiagnostics()
    .flatMap(([uri, diagnostics]) =>
      diagnostics
        .filter((d) => d.source === 'flux-job-guard' && d.severity === vscode.DiagnosticSeverity.Error)
        .map((d) => `${codeOf(d)} ${vscode.workspace.asRelativePath(uri)}:${d.range.start.line + 1}`),
    )
    .sort();
}

const DECLARE = "Declare Secret vault-secrets (namespace flux-system) in the contract's flux.variables with the 2 names used from it";

const audit = () => vscode.commands.executeCommand<AuditResponse>('fluxJobGuard.auditWorkspace');

suite(`What the repository cannot show (${runtime} extension host)`, function () {
  const secret = () => fixture('vault/a/externalsecret.yaml');
  let contractBefore: Uint8Array;

  suiteSetup(async () => {
    contractBefore = await vscode.workspace.fs.readFile(fixture(FILES.contract));
    for (const [path, text] of Object.entries(ADDED)) await vscode.workspace.fs.writeFile(fixture(path), new TextEncoder().encode(text));
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.writeFile(fixture(FILES.contract), contractBefore);
    await vscode.workspace.fs.delete(fixture('vault'), { recursive: true });
    await vscode.workspace.fs.delete(fixture('clusters/vault'), { recursive: true });
    await audit();
  });

  test('one info for an outside source; its declare fix, saved, leaves the Problems panel without new errors but the reason to write', async () => {
    const before = await audit();
    const [unknown] = await waitForDiagnostics(secret(), has('flux-variables-unknown'), 'flux-variables-unknown on the ExternalSecret');
    assert.strictEqual(unknown.severity, vscode.DiagnosticSeverity.Information);
    assert.match(unknown.message, /2 Kustomizations take it, and their files use 2 names nothing in the repository defines \(DB_HOST, DB_PASSWORD\)/);
    assert.strictEqual(unknown.relatedInformation?.length, 2, 'each Kustomization that takes it is a related location, not a finding of its own');
    for (const file of ['vault/a/settings.yaml', 'vault/b/settings.yaml', 'clusters/vault/ks.yaml']) assert.deepStrictEqual(ours(fixture(file)), [], `${file}: nothing before the fix`);
    const errorsBefore = errorsEverywhere();

    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(secret()));
    // the open document is analysed by the editor's pipeline: wait until it offers the fix
    let actions: vscode.CodeAction[] = [];
    const declare = await waitUntil(async () => {
      actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', secret(), unknown.range)) ?? [];
      return actions.find((action) => action.isPreferred && action.title === DECLARE);
    }, 'the declare fix to be offered with both names (the editor knows what the audit knows)').catch(() => undefined);
    assert.ok(declare?.edit, `the preferred declare fix among: ${actions.map((a) => a.title).join(' | ')}`);
    assert.ok(await vscode.workspace.applyEdit(declare.edit));
    // as the workbench does after a quick fix's edit: its command opens the contract at the reason to write
    assert.strictEqual(declare.command?.command, 'fluxJobGuard.revealReason');
    await vscode.commands.executeCommand(declare.command.command, ...((declare.command.arguments ?? []) as unknown[]));
    const shown = await waitUntil(
      () => vscode.window.activeTextEditor?.document.uri.toString() === fixture(FILES.contract).toString() && vscode.window.activeTextEditor,
      'the contract in the active editor',
    );
    assert.strictEqual(shown.document.getText(shown.selection), 'TODO say where this comes from', 'the placeholder reason selected');
    const contract = vscode.workspace.textDocuments.find((d) => d.uri.toString() === fixture(FILES.contract).toString());
    assert.ok(contract, 'the fix edited the contract file');
    assert.match(contract.getText(), /names: \[DB_HOST, DB_PASSWORD\]/);
    assert.match(contract.getText(), /noFinishTimeout:\n {4}- file: apps\/seed\/seed-job\.yaml/, 'the rest of the contract kept as it was');
    await contract.save();
    assert.ok(!contract.isDirty, 'the contract saved');
    assert.match(new TextDecoder().decode(await vscode.workspace.fs.readFile(contract.uri)), /names: \[DB_HOST, DB_PASSWORD\]/, 'the declaration is in the saved file');

    await waitForDiagnostics(secret(), lacks('flux-variables-unknown'), 'the info to go once the source is declared');
    const after = await audit();
    assert.strictEqual(after.folders[0].errors, before.folders[0].errors + 1, 'the audit: one new error, the placeholder reason');
    const reasons = await waitForDiagnostics(contract.uri, has('contract-reason-missing'), 'the placeholder reason flagged in the contract');
    assert.deepStrictEqual(
      reasons.map(codeOf).filter((code) => code !== 'contract-reason-missing'),
      [],
      'nothing else in the contract',
    );
    const errorsAfter = await waitUntil(() => {
      const now = errorsEverywhere();
      return now.length === errorsBefore.length + 1 ? now : null;
    }, 'the Problems panel to hold one error more than before').catch((error: Error) => {
      const now = errorsEverywhere();
      const gained = now.filter((entry) => !errorsBefore.includes(entry));
      const lost = errorsBefore.filter((entry) => !now.includes(entry));
      const messages = vscode.languages
        .getDiagnostics()
        .flatMap(([uri, diagnostics]) =>
          diagnostics
            .filter((d) => d.source === 'flux-job-guard' && d.severity === vscode.DiagnosticSeverity.Error)
            .map((d) => `${vscode.workspace.asRelativePath(uri)}:${d.range.start.line + 1} ${d.message}`),
        );
      throw new Error(`${error.message}: ${errorsBefore.length} before, ${now.length} now; gained [${gained.join(', ')}], lost [${lost.join(', ')}]; now: ${messages.join(' | ')}`);
    });
    const added = errorsAfter.filter((entry) => !errorsBefore.includes(entry));
    assert.deepStrictEqual(
      added.map((entry) => entry.split(' ')[0]),
      ['contract-reason-missing'],
      `the one new error: ${added.join(', ')}`,
    );
    for (const file of ['vault/a/settings.yaml', 'vault/b/settings.yaml']) assert.deepStrictEqual(ours(fixture(file)), [], `${file}: its name is declared, so it is checked and defined`);
  });
});
