// One truth for every face: for every file of a repository, the editor (the
// language server over stdio, each file opened as a user would) shows exactly
// the findings the audit (the CLI) reports for it, finding for finding (rule,
// range, severity, message). Over the bundled example, and over a repository
// with the traps a user met: a Job template in a hidden folder, a GitHub
// workflow under `flux.substitution: always`, a script a generator reads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import type { JsonReport } from '../server/src/cli/formats';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { CLI, fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { filesOf } from './helpers/memory-fs';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const ROOT = join(__dirname, '..', '..');

after(() => removeTempRepos());

/** `rule file:line:col-line:col severity message` of a finding, 0-based like LSP. */
type Key = string;
const key = (file: string, rule: string, range: Diagnostic['range'], severity: string, message: string): Key =>
  `${file} ${rule} ${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character} ${severity} ${message}`;
const SEVERITY = ['', 'error', 'warning', 'info', 'hint'];

async function compareFaces(dir: string): Promise<{ audit: Key[]; editor: Key[] }> {
  const cli = spawnSync(process.execPath, [CLI, 'audit', dir, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const report = JSON.parse(cli.stdout) as JsonReport;
  // contract-no-jobs is the audit's own verdict on the whole search, not a finding of an open file.
  const audit = report.findings
    .filter((f) => f.rule !== 'contract-no-jobs')
    .map((f) => key(f.file, f.rule, { start: { line: f.line - 1, character: f.column - 1 }, end: { line: f.endLine - 1, character: f.endColumn - 1 } }, f.severity, f.message))
    .sort();
  const client = new TestLspClient();
  client.settings = { showYamlSyntaxErrors: true }; // the audit always reports them
  try {
    await client.initialize(dir);
    const files = filesOf(dir);
    for (const [path, text] of Object.entries(files)) client.open(fileUri(join(dir, path)), text, path.endsWith('.sh') ? 'shellscript' : 'yaml');
    const editor: Key[] = [];
    // The server answers every file it looks at (an empty list included): wait for each of those.
    for (const path of Object.keys(files)) {
      const uri = fileUri(join(dir, path));
      const looked = /\.ya?ml$/.test(path) || report.findings.some((f) => f.file === path) || path.endsWith('.sh');
      if (!looked) continue;
      const diagnostics = await client.waitForDiagnostics(uri, () => true).catch(() => [] as Diagnostic[]);
      for (const d of diagnostics) editor.push(key(relative(dir, join(dir, path)), String(d.code), d.range, SEVERITY[d.severity ?? 1], messageText(d)));
    }
    return { audit, editor: editor.filter((k) => !k.includes(' contract-no-jobs ')).sort() };
  } finally {
    await client.shutdown();
  }
}

test('the bundled example: every finding of every file, the same in the editor and in the audit', async () => {
  const dir = tempRepo('fjg-faces-', filesOf(join(ROOT, 'examples', 'flux-repo')));
  const { audit, editor } = await compareFaces(dir);
  assert.ok(audit.length > 20, 'the example holds findings');
  assert.deepEqual(editor, audit);
});

test('hidden templates, a workflow under substitution: always, a generator input: the editor says what the audit says (nothing where it looks at nothing)', async () => {
  const job = (name: string) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n  ttlSecondsAfterFinished: 60\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: alpine\n          command: ["sh", "-c", "echo \${HOME}"]\n`;
  const dir = tempRepo('fjg-faces-', {
    '.flux-job-guard.yaml': 'flux:\n  substitution: always\n',
    'clusters/home/flux-system/gotk-sync.yaml':
      'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.org/repo\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/home\n  sourceRef: {kind: GitRepository, name: flux-system}\n',
    'clusters/home/apps.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substitute:\n      A: b\n',
    'apps/kustomization.yaml': 'resources:\n  - job.yaml\nconfigMapGenerator:\n  - name: s\n    files:\n      - run.sh\n',
    'apps/job.yaml': job('applied'),
    'apps/run.sh': '#!/bin/sh\necho ${UNSET}\n',
    'templates/job.yaml': job('never-applied'),
    '.taskfiles/wipe/WipeJob.tmpl.yaml': job('wipe'),
    '.github/workflows/ci.yaml': 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.sha }} ${HOME}\n',
  });
  const { audit, editor } = await compareFaces(dir);
  assert.ok(
    audit.some((k) => k.startsWith('apps/run.sh flux-substitution-undefined')),
    'the generator input is checked',
  );
  assert.ok(!audit.some((k) => k.startsWith('.taskfiles') || k.startsWith('.github')), 'hidden folders: nothing');
  assert.ok(!audit.some((k) => k.startsWith('templates/job.yaml ttl-')), 'a Job Flux does not apply: no TTL finding');
  assert.ok(
    audit.some((k) => k.startsWith('apps/job.yaml ttl-unexpected-value')),
    'negative control: the Job Flux applies has one',
  );
  assert.deepEqual(editor, audit);
});

test('yaml-syntax where it matters: an applied file, a template nothing applies, a generator input: the editor says what the audit says', async () => {
  const broken = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  list: [a, b\n';
  const dir = tempRepo('fjg-faces-', {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/apps.yaml': kustomization('apps', './apps'),
    'apps/kustomization.yaml': 'resources:\n  - broken.yaml\nconfigMapGenerator:\n  - name: blueprints\n    files:\n      - flow.yaml\n',
    'apps/broken.yaml': broken,
    'apps/flow.yaml': 'entries:\n  - stage: *missing\n',
    'templates/broken.yaml': broken,
  });
  const { audit, editor } = await compareFaces(dir);
  const syntax = audit.filter((k) => k.includes(' yaml-syntax ')).map((k) => k.split(' ').slice(0, 4).join(' '));
  assert.deepEqual(syntax, ['apps/broken.yaml yaml-syntax 6:0-6:0 error', 'apps/flow.yaml yaml-syntax 1:11-1:19 warning']);
  assert.deepEqual(editor, audit);
});
