/// <reference types="mocha" />
// A substituted value that Flux reads as another YAML type (issue 20), in a
// real workbench: a CronJob's `schedule: ${CRON}` with a cron expression in
// the Kustomization's postBuild is an alias once substituted. The squiggle is
// on `${CRON}`, the hover shows the value, and the preferred quick fix writes
// Flux's `${quote}…${quote}` form and defines `quote` in the Kustomization;
// saved, the squiggle goes. Adds its files to the fixture copy and removes them.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { codeOf, find, fixture, has, hoverText, lacks, only, open, removeAdded, waitForDiagnostics, waitUntil } from './helpers';
import { runtime } from './host';

const RULE = 'flux-substitution-type';
const KUSTOMIZATION = 'clusters/types/ks.yaml';
// Under apps/: the fixture's contract checks only `jobs.include: [apps/**]`.
const CRONJOB = 'apps/types/cronjob.yaml';

const ADDED: Record<string, string> = {
  [KUSTOMIZATION]: `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: types
  namespace: flux-system
spec:
  interval: 1h
  path: ./apps/types
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substitute:
      CRON: "*/5 * * * *"
`,
  [CRONJOB]: `apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
  namespace: default
spec:
  schedule: \${CRON}
  jobTemplate:
    spec:
      ttlSecondsAfterFinished: 86400 # converges: the report is written again, whole
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: report
              image: busybox
              command: [/bin/true]
`,
};

suite(`A value Flux reads as another type (${runtime} extension host)`, function () {
  suiteSetup(async () => {
    for (const [path, text] of Object.entries(ADDED)) await vscode.workspace.fs.writeFile(fixture(path), new TextEncoder().encode(text));
  });

  suiteTeardown(() => removeAdded(['apps/types', 'clusters/types']));

  test('schedule: ${CRON}: the squiggle, the hover with the value, the quote fix that makes it go', async function () {
    this.timeout(120_000);
    const { document } = await open(CRONJOB);
    const diagnostics = await waitForDiagnostics(document.uri, has(RULE), `${RULE} on the schedule`);
    const [squiggle] = only(diagnostics, RULE);
    const at = find(document, '${CRON}');
    assert.deepStrictEqual([squiggle.range.start.line, squiggle.range.start.character, squiggle.range.end.character], [at.line, at.character, at.character + '${CRON}'.length]);
    assert.strictEqual(squiggle.severity, vscode.DiagnosticSeverity.Error);
    assert.match(squiggle.message, /Flux reads `schedule: \*\/5 \* \* \* \*`: that is no YAML \(`\*` starts an alias\)/);
    // negative control: nothing else of this rule in the file
    assert.deepStrictEqual(diagnostics.map(codeOf).filter((code) => code === RULE).length, 1);

    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', document.uri, at.translate(0, 2));
    assert.match(hoverText(hovers), /\*\/5 \* \* \* \*/, 'the hover shows the value Flux substitutes');

    const fix = await waitUntil(async () => {
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, squiggle.range)) ?? [];
      return actions.find((action) => action.isPreferred && action.title.startsWith('Wrap in ${quote}'));
    }, 'the preferred quote fix');
    assert.ok(fix.edit && (await vscode.workspace.applyEdit(fix.edit)), 'the fix applied');
    assert.match(document.getText(), /^ {2}schedule: \$\{quote\}\$\{CRON\}\$\{quote\}$/m, 'only the value is wrapped');
    const kustomization = vscode.workspace.textDocuments.find((d) => d.uri.toString() === fixture(KUSTOMIZATION).toString());
    assert.ok(kustomization, 'the fix edited the Kustomization too');
    assert.match(kustomization.getText(), /^ {6}CRON: "\*\/5 \* \* \* \*"\n {6}quote: '"'$/m, 'quote defined beside CRON');
    assert.ok((await kustomization.save()) && (await document.save()), 'both saved');
    await waitForDiagnostics(document.uri, lacks(RULE), 'the squiggle to go once Flux reads a string');
  });
});
