// Inline suppression (`# flux-job-guard-disable-next-line <rule> -- <reason>`):
// what a directive silences, what it reports about itself, and the quick fix
// that writes one, through the audit and through the editor's Project, which
// must agree. Each case has its negative control: the same file without the
// directive (or with the wrong one) still reports the finding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuditResult } from '../server/src/engine/pipeline/audit';
import { withDisableFixes } from '../server/src/engine/pipeline/directives';
import { DIRECTIVE } from '../server/src/engine/rules/support/directive';
import type { Finding } from '../server/src/engine/base/types';
import { Project } from '../server/src/lsp/project';
import { DEFAULT_SETTINGS } from '../server/src/shared/settings';
import { auditFiles, memoryFs } from './helpers/memory-fs';
import { applyFileEdits, lines } from './helpers/table';

const FILE = 'kubernetes/apps/job.yaml';
const POD = ['  template:', '    spec:', '      restartPolicy: Never', '      containers:', '        - name: main', '          image: app:1'];

/** A Job with no TTL (ttl-missing on `spec:`, line 4 + the lines above it). */
const job = (...above: string[]) => lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', ...above, 'spec:', '  backoffLimit: 2', ...POD);

/** The range of a comment on line 4, the line above `spec:`. */
const on4 = (comment: string) => `4:0-4:${comment.length}`;
const brief = (f: Finding) => `${f.rule} ${f.range.start.line}:${f.range.start.character}-${f.range.end.line}:${f.range.end.character}`;

async function auditOf(files: Record<string, string>): Promise<AuditResult> {
  return auditFiles(files);
}

async function editorOf(files: Record<string, string>, path: string): Promise<Finding[]> {
  const project = new Project('file:///repo', memoryFs(files), DEFAULT_SETTINGS);
  await project.initialize();
  project.opened(path);
  return project.analyze(path, files[path]);
}

/** What the editor's code actions offer for the findings of `path`: each with its "Disable … for this line" fix where one can stand. */
async function offeredOf(files: Record<string, string>, path: string): Promise<Finding[]> {
  return withDisableFixes(await editorOf(files, path), path, files[path]);
}

/** The audit's findings of `path`, after checking the editor shows exactly the same. */
async function findingsOf(files: Record<string, string>, path = FILE): Promise<string[]> {
  const audited = (await auditOf(files)).findings.filter((f) => f.file === path && f.rule !== 'contract-no-jobs');
  const editor = await editorOf(files, path);
  const key = (f: Finding) => `${brief(f)} ${f.severity} ${f.message}`;
  assert.deepEqual(editor.map(key).sort(), audited.map(key).sort(), 'the editor shows what the audit reports');
  return audited.map(brief).sort();
}

describe('disable-next-line directives', () => {
  test('negative control: without a directive the Job is reported', async () => {
    assert.deepEqual(await findingsOf({ [FILE]: job() }), ['ttl-missing 4:0-4:4']);
  });

  test('a directive naming the rule, with a reason, silences it and reports nothing', async () => {
    assert.deepEqual(await findingsOf({ [FILE]: job(`# ${DIRECTIVE} ttl-missing -- a CronJob deletes it`) }), []);
  });

  test('a directive naming no rule silences every finding of the next line', async () => {
    assert.deepEqual(await findingsOf({ [FILE]: job(`# ${DIRECTIVE} -- a CronJob deletes it`) }), []);
  });

  test('a directive with no reason silences, but is reported', async () => {
    for (const comment of [`# ${DIRECTIVE} ttl-missing`, `# ${DIRECTIVE} ttl-missing -- TODO say why this is intended`]) {
      assert.deepEqual(await findingsOf({ [FILE]: job(comment) }), [`directive-reason-missing ${on4(comment)}`]);
    }
  });

  test('a directive for another rule silences nothing and says so', async () => {
    const comment = `# ${DIRECTIVE} pod-tmp-handoff -- reviewed`;
    const findings = (await auditOf({ [FILE]: job(comment) })).findings.filter((f) => f.file === FILE);
    assert.deepEqual(findings.map(brief).sort(), [`directive-unused ${on4(comment)}`, 'ttl-missing 5:0-5:4']);
    assert.match(findings.find((f) => f.rule === 'directive-unused')!.message, /no `pod-tmp-handoff` finding/);
  });

  test('a directive naming no rule of the tool is reported as such', async () => {
    const comment = `# ${DIRECTIVE} ttl-mising -- typo`;
    const findings = (await auditOf({ [FILE]: job(comment) })).findings.filter((f) => f.file === FILE);
    assert.deepEqual(findings.map(brief).sort(), [`directive-unused ${on4(comment)}`, 'ttl-missing 5:0-5:4']);
    assert.match(findings.find((f) => f.rule === 'directive-unused')!.message, /`ttl-mising`, which is no rule/);
  });

  test('a directive two lines above silences nothing, and offers to remove itself', async () => {
    const comment = `# ${DIRECTIVE} ttl-missing -- reviewed`;
    const text = job(comment, '# (moved)');
    const findings = (await auditOf({ [FILE]: text })).findings.filter((f) => f.file === FILE);
    assert.deepEqual(findings.map(brief).sort(), [`directive-unused ${on4(comment)}`, 'ttl-missing 6:0-6:4']);
    const remove = findings.find((f) => f.rule === 'directive-unused')!.fixes![0];
    assert.equal(applyFileEdits(text, remove.edits), job('# (moved)'));
  });

  test('a directive in a script a generator reads silences a substitution finding there', async () => {
    const kustomization = lines('apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'configMapGenerator:', '  - name: scripts', '    files:', '      - run.sh');
    const flux = lines(
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: apps',
      'spec:',
      '  path: ./apps',
      '  postBuild:',
      '    substitute:',
      '      DOMAIN: example.org',
    );
    const files = (script: string) => ({ 'clusters/main/apps.yaml': flux, 'apps/kustomization.yaml': kustomization, 'apps/run.sh': script });
    assert.deepEqual(await findingsOf(files(lines('#!/bin/sh', 'echo ${HOME}')), 'apps/run.sh'), ['flux-substitution-undefined 1:5-1:12'], 'negative control');
    assert.deepEqual(await findingsOf(files(lines('#!/bin/sh', `# ${DIRECTIVE} flux-substitution-undefined -- HOME is empty and that is fine`, 'echo ${HOME}')), 'apps/run.sh'), []);
  });
});

describe('the "Disable for this line" fix', () => {
  test('inserts the directive above the finding, at its indentation, with the placeholder reason', async () => {
    const text = job();
    const [finding] = await offeredOf({ [FILE]: text }, FILE);
    const disable = finding.fixes!.find((fix) => fix.title === 'Disable ttl-missing for this line')!;
    assert.ok(disable, 'offered');
    assert.ok(!disable.preferred, 'never the preferred fix (nor part of fix-all)');
    const after = applyFileEdits(text, disable.edits);
    const comment = `# ${DIRECTIVE} ttl-missing -- TODO say why this is intended`;
    assert.equal(after, job(comment));
    // Negative control: the finding is gone; the placeholder is flagged until a person writes a reason.
    assert.deepEqual(await findingsOf({ [FILE]: after }), [`directive-reason-missing ${on4(comment)}`]);
  });

  test('keeps CRLF line endings and the indentation of a nested line', async () => {
    const text = lines('apiVersion: v1', 'kind: Pod', 'metadata:', '  name: p', 'spec:', '  serviceAccountName: ghost', '  containers:', '    - name: a', '      image: a').replace(/\n/g, '\r\n');
    const [finding] = (await offeredOf({ [FILE]: text }, FILE)).filter((f) => f.rule === 'pod-service-account-undeclared');
    const disable = finding.fixes!.find((fix) => fix.title.startsWith('Disable'))!;
    assert.equal(applyFileEdits(text, disable.edits), text.replace('  serviceAccountName', `  # ${DIRECTIVE} pod-service-account-undeclared -- TODO say why this is intended\r\n  serviceAccountName`));
  });

  test('is not offered inside a block scalar, where a comment line would change the value', async () => {
    const script = lines(
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: migrate',
      'spec:',
      '  # converges: idempotent',
      '  ttlSecondsAfterFinished: 86400',
      '  template:',
      '    spec:',
      '      restartPolicy: Never',
      '      containers:',
      '        - name: main',
      '          image: app:1',
      '          args:',
      '            - |',
      '              if true; then',
      '                url: ${UNDEFINED}',
      '              fi',
    );
    const flux = lines(
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: apps',
      'spec:',
      '  path: ./kubernetes/apps',
      '  postBuild:',
      '    substitute:',
      '      DOMAIN: example.org',
    );
    const findings = await offeredOf({ [FILE]: script, 'clusters/main/apps.yaml': flux }, FILE);
    const undefinedVar = findings.find((f) => f.rule === 'flux-substitution-undefined');
    assert.ok(undefinedVar, 'negative control: the finding is there');
    assert.deepEqual(
      undefinedVar.fixes!.filter((fix) => fix.title.startsWith('Disable')),
      [],
    );
  });
});
