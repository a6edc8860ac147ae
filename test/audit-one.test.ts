// The server's audit after a save (issue 22.2): where nothing other files read has changed, only
// the saved file is audited again (pipeline/audit-one.ts, Project.auditChanged). Two truths:
// one file's part of the audit equals what the whole audit reports of it, on every file of real
// repositories; and after each kind of change, the audit the server shows equals a whole audit,
// redone in part only where that is exact (each guard with a control that goes red without it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { audit, mentionsJob, readContract } from '../server/src/engine/pipeline/audit';
import { jobRecordsIn } from '../server/src/engine/pipeline/analyze';
import { parseYamlFile } from '../server/src/engine/yaml/documents';
import { auditContractFile, auditOneFile, countedJobs, patchedAudit, type FileAudit } from '../server/src/engine/pipeline/audit-one';
import { liveAuditModel } from '../server/src/engine/pipeline/file-model';
import type { Finding } from '../server/src/engine/base/types';
import { Project, type AuditShown } from '../server/src/lsp/project';
import { DEFAULT_SETTINGS } from '../server/src/shared/settings';
import { filesOf, memoryFs } from './helpers/memory-fs';
import { gotkSync, kustomization } from './helpers/flux-fixtures';

const ROOT = join(__dirname, '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const SETTINGS = { requiredTtl: DEFAULT_SETTINGS.ttl.required, rules: DEFAULT_SETTINGS.rules };

const brief = (finding: Finding) => `${finding.file}:${finding.range.start.line}:${finding.range.start.character} ${finding.rule} ${finding.severity} ${finding.message}`;

/** A project as the server keeps it, over files that tests change in place (as on disk). */
async function projectOf(files: Record<string, string>): Promise<Project> {
  const project = new Project('file:///repo', memoryFs(files), DEFAULT_SETTINGS);
  await project.initialize();
  return project;
}

/** A file changed on disk, as the watcher reports it (watched-files.ts): the index learns it. */
function changeOnDisk(project: Project, files: Record<string, string>, path: string, text: string): void {
  files[path] = text;
  project.updateIndex(path, text);
}

/** A file edited in the editor and analysed (the index learns each edit), then saved. */
function editAndSave(project: Project, files: Record<string, string>, path: string, text: string): void {
  project.opened(path);
  project.fs.open.set(path, text);
  project.updateIndex(path, text);
  files[path] = text;
}

/** What a whole audit of the files as they are now says, in the form the server keeps. */
async function wholeAudit(files: Record<string, string>): Promise<Pick<AuditShown, 'findings' | 'summary' | 'jobs'>> {
  const result = await audit(memoryFs(files), { settings: SETTINGS });
  return { findings: result.findings, summary: result.summary, jobs: result.jobs };
}

function assertSameAudit(shown: AuditShown, whole: Pick<AuditShown, 'findings' | 'summary' | 'jobs'>): void {
  assert.deepEqual(shown.findings.map(brief), whole.findings.map(brief));
  assert.deepEqual(shown.summary, whole.summary);
  assert.deepEqual(new Map(shown.jobs), new Map(whole.jobs));
}

/**
 * For every file of a repository, auditOneFile against the whole audit (findings and Jobs), and the
 * contract file's findings; returns the whole audit's findings and how many generator inputs were compared.
 */
async function compareEveryFile(files: Record<string, string>): Promise<{ whole: Finding[]; inputs: number; jobFiles: number; uncounted: number }> {
  const project = await projectOf(files);
  const whole = await audit(memoryFs(files), { settings: SETTINGS });
  const jobs = new Map(whole.jobs);
  let compared = 0;
  let inputs = 0;
  let jobFiles = 0;
  /** Files with Jobs the audit does not count (nothing applies them): where countedJobs must count none. */
  let uncounted = 0;
  for (const path of Object.keys(files).sort()) {
    if (path === project.contract.path) continue;
    const one = await auditOneFile(project.fs, project.contract, liveAuditModel(project.index, project.contract), path);
    assert.deepEqual(one.findings.map(brief), whole.findings.filter((finding) => finding.file === path).map(brief), path);
    assert.deepEqual(one.jobs, jobs.get(path) ?? [], path);
    // The changed-only audit counts the Jobs of the files a change cannot affect without their audit.
    const text = files[path];
    if (mentionsJob(text)) {
      assert.deepEqual(
        await countedJobs(liveAuditModel(project.index, project.contract).file(path), () => Promise.resolve(jobRecordsIn(parseYamlFile(text)))),
        one.jobs,
        `${path}: counted without its audit`,
      );
      jobFiles++;
      if (one.jobs.length === 0 && jobRecordsIn(parseYamlFile(text)).length > 0) uncounted++;
    } else assert.deepEqual(one.jobs, [], `${path}: a Job in a text that does not say Job`);
    compared++;
    if (project.index.isGeneratorInput(path)) inputs++;
  }
  // the contract file (there or not): its entries, its lists, contract-no-jobs
  const loaded = (await readContract(project.fs, { settings: SETTINGS })).findings;
  const contractFindings = await auditContractFile({ fs: project.fs, contract: project.contract, loaded, index: project.index, jobs: whole.summary.jobs });
  assert.deepEqual(contractFindings.map(brief), whole.findings.filter((finding) => finding.file === project.contract.path).map(brief), project.contract.path);
  assert.ok(compared > 5, `${compared} files compared`);
  assert.ok(whole.findings.length > 0, 'the repository has findings to compare');
  return { whole: whole.findings, inputs, jobFiles, uncounted };
}

describe("one file's part of the audit", () => {
  const repositories = [
    ['examples/flux-repo', join(ROOT, 'examples', 'flux-repo')],
    ...[
      'tyriis__home-ops',
      'controlplaneio-fluxcd__d2-fleet',
      'giantswarm__gitops-template',
      'damacus__home-ops',
      'equinor__radix-flux',
      'aws-samples__eks-multi-cluster-gitops',
      'toboshii__home-ops',
    ].map((name) => [name, join(CORPUS, name)]),
  ];
  for (const [name, dir] of repositories) {
    test(`${name}: for every file, what the audit reports of it and the Jobs it counts`, { skip: existsSync(dir) ? false : `${dir} is not here` }, async () => {
      const compared = await compareEveryFile(filesOf(dir));
      if (name === 'damacus__home-ops') assert.ok(compared.inputs > 5, `generator inputs compared: ${compared.inputs}`);
      // The bundled example holds a Job nothing applies: countedJobs must count none there.
      if (name === 'examples/flux-repo') assert.ok(compared.jobFiles > 10 && compared.uncounted > 0, `Job files ${compared.jobFiles}, of which uncounted ${compared.uncounted}`);
    });
  }
  test('a generator script with findings, and a contract whose entries and Flux lists have findings', async () => {
    const files = fluxRepo();
    files['.flux-job-guard.yaml'] += ['flux:', '  substituteFrom:', '    - {kind: ConfigMap, name: nowhere}', '  variables:', '    - name: NEVER_USED', '      reason: Set by hand.', ''].join('\n');
    files['apps/kustomization.yaml'] = ['resources: [account.yaml, migrate.yaml, seed.yaml, kept.yaml]', 'configMapGenerator:', '  - name: scripts', '    files: [run.sh]', ''].join('\n');
    files['apps/run.sh'] = '#!/bin/sh\necho "${REPORT_DIR}" $$\n';
    const compared = await compareEveryFile(files);
    assert.equal(compared.inputs, 1);
    assert.ok(
      compared.whole.some((finding) => finding.file === 'apps/run.sh'),
      'the script has findings',
    );
    assert.ok(compared.whole.filter((finding) => finding.file === '.flux-job-guard.yaml').length >= 2, 'the contract has findings of its Flux lists');
  });
});

const NOTE = '# flux-job-guard: converges: the migration is idempotent';

function job(name: string, body: string[]): string {
  return [
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    `  name: ${name}`,
    '  namespace: apps',
    'spec:',
    ...body,
    '  template:',
    '    spec:',
    '      serviceAccountName: migrator',
    '      restartPolicy: Never',
    '      containers:',
    '        - name: main',
    '          image: alpine',
    '          args: ["echo ${GREETING}"]',
    '',
  ].join('\n');
}

/** A Flux repository: the root applies apps/, whose Kustomization substitutes from a ConfigMap; two Jobs, one account, a contract entry. */
function fluxRepo(): Record<string, string> {
  return {
    '.flux-job-guard.yaml': ['ttl:', '  noFinishTimeout:', '    - file: apps/kept.yaml', '      job: kept', '      reason: Runs once, by hand.', ''].join('\n'),
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/apps.yaml': kustomization('apps', './apps', ['  postBuild:', '    substituteFrom:', '      - kind: ConfigMap', '        name: settings', ''].join('\n')),
    'clusters/home/settings.yaml': ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', '  namespace: flux-system', 'data:', '  GREETING: hello', ''].join('\n'),
    'apps/account.yaml': ['apiVersion: v1', 'kind: ServiceAccount', 'metadata:', '  name: migrator', '  namespace: apps', ''].join('\n'),
    'apps/migrate.yaml': job('migrate', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
    'apps/seed.yaml': job('seed', ['  backoffLimit: 1']),
    'apps/kept.yaml': job('kept', ['  backoffLimit: 1']),
  };
}

describe('the audit after a save', () => {
  test('a Job edited and saved: only it is audited again, and the audit equals a whole one', async () => {
    const files = fluxRepo();
    const project = await projectOf(files);
    const before = await project.audit();
    assert.equal(before.changed, undefined, 'the first audit is whole');
    editAndSave(project, files, 'apps/seed.yaml', job('seed', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']));
    const after = await project.auditChanged(['apps/seed.yaml']);
    assert.deepEqual(after.changed, ['apps/seed.yaml']);
    assertSameAudit(after, await wholeAudit(files));
    assert.ok(after.summary.errors < before.summary.errors, 'the fix shows in the summary');
  });

  test("a saved Job that starts using a name from a Secret outside the repository: the Kustomization's report of those names changes, so the audit is whole", async () => {
    const files = fluxRepo();
    const apps = 'clusters/home/apps.yaml';
    files[apps] = files[apps].replace('        name: settings', '        name: settings\n      - kind: Secret\n        name: cluster-secrets');
    const project = await projectOf(files);
    await project.audit();
    editAndSave(project, files, 'apps/seed.yaml', job('seed', ['  backoffLimit: 1']).replace('${GREETING}', '${GREETING} ${DB_PASSWORD}'));
    // the editor's model follows the names too (its count of them was cached before they were read)
    assert.ok(
      project.index.graphProblemsIn(apps).some((problem) => problem.message.includes('DB_PASSWORD')),
      'the editor names what the Kustomization takes from the Secret',
    );
    const after = await project.auditChanged(['apps/seed.yaml']);
    assert.equal(after.changed, undefined);
    const whole = await wholeAudit(files);
    assertSameAudit(after, whole);
    assert.ok(
      whole.findings.some((finding) => finding.file === apps && finding.message.includes('DB_PASSWORD')),
      'the audit names what the Kustomization takes from the Secret',
    );
    // the control: a name the model already knows of changes no problem, and only the Job is redone
    editAndSave(project, files, 'apps/migrate.yaml', files['apps/migrate.yaml'].replace('${GREETING}', '${GREETING}!'));
    assert.deepEqual((await project.auditChanged(['apps/migrate.yaml'])).changed, ['apps/migrate.yaml']);
  });

  test("a variable source's key renamed: whole; redone in part, the Jobs' findings would be stale (control)", async () => {
    const files = fluxRepo();
    const project = await projectOf(files);
    const before = await project.audit();
    const settings = 'clusters/home/settings.yaml';
    changeOnDisk(project, files, settings, files[settings].replace('GREETING: hello', 'GREETINGS: hello'));
    const after = await project.auditChanged([settings]);
    assert.equal(after.changed, undefined);
    const whole = await wholeAudit(files);
    assertSameAudit(after, whole);
    const partial = patchedAudit(
      project.contract,
      before,
      new Map<string, FileAudit>([[settings, await auditOneFile(project.fs, project.contract, liveAuditModel(project.index, project.contract), settings)]]),
    );
    assert.notDeepEqual(partial?.findings.map(brief), whole.findings.map(brief));
  });

  test('lines inserted above a Kustomization (its facts moved, not changed): whole; redone in part, a related location in another file would point to the old line (control)', async () => {
    const files = fluxRepo();
    files['apps/seed.yaml'] = files['apps/seed.yaml'].replace('${GREETING}', '${GREETNG}');
    const project = await projectOf(files);
    const before = await project.audit();
    const version = project.index.version;
    const apps = 'clusters/home/apps.yaml';
    changeOnDisk(project, files, apps, `# the applications\n\n${files[apps]}`);
    assert.equal(project.index.version, version, 'the graph does not change');
    const after = await project.auditChanged([apps]);
    assert.equal(after.changed, undefined);
    const whole = await wholeAudit(files);
    assertSameAudit(after, whole);
    const related = (found: Pick<AuditShown, 'findings'>) => found.findings.filter((finding) => finding.file === 'apps/seed.yaml').map((finding) => String(JSON.stringify(finding.related)));
    assert.ok(
      related(whole).some((text) => text.includes(apps)),
      'the undefined name points to the Kustomization',
    );
    const partial = patchedAudit(
      project.contract,
      before,
      new Map<string, FileAudit>([[apps, await auditOneFile(project.fs, project.contract, liveAuditModel(project.index, project.contract), apps)]]),
    );
    assert.notDeepEqual(related(partial!), related(whole));
  });

  test('lines inserted above a ServiceAccount (its facts hold no position): only it is audited again', async () => {
    const files = fluxRepo();
    const project = await projectOf(files);
    await project.audit();
    changeOnDisk(project, files, 'apps/account.yaml', `# the migrator's identity\n\n${files['apps/account.yaml']}`);
    const after = await project.auditChanged(['apps/account.yaml']);
    assert.deepEqual(after.changed, ['apps/account.yaml']);
    assertSameAudit(after, await wholeAudit(files));
  });

  test('a Job a contract entry names, the contract itself, a generator input: whole', async () => {
    const files = {
      ...fluxRepo(),
      'apps/kustomization.yaml': [
        'resources:',
        '  - account.yaml',
        '  - migrate.yaml',
        '  - seed.yaml',
        '  - kept.yaml',
        'configMapGenerator:',
        '  - name: scripts',
        '    files:',
        '      - run.sh',
        '',
      ].join('\n'),
      'apps/run.sh': 'echo hi\n',
    };
    const project = await projectOf(files);
    await project.audit();
    editAndSave(project, files, 'apps/kept.yaml', job('kept', ['  backoffLimit: 2']));
    assert.equal((await project.auditChanged(['apps/kept.yaml'])).changed, undefined, 'named by a contract entry');
    changeOnDisk(project, files, 'apps/run.sh', 'echo ${GREETING}\n');
    const input = await project.auditChanged(['apps/run.sh']);
    assert.equal(input.changed, undefined, 'a generator input');
    assertSameAudit(input, await wholeAudit(files));
    // the control: a file none of these is redone alone
    editAndSave(project, files, 'apps/migrate.yaml', job('migrate', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']));
    const alone = await project.auditChanged(['apps/migrate.yaml']);
    assert.deepEqual(alone.changed, ['apps/migrate.yaml']);
    assertSameAudit(alone, await wholeAudit(files));
  });

  test('an open document edited since the audit began is audited again with the saved file; one the index has not learnt yet makes the audit whole', async () => {
    const files = fluxRepo();
    const project = await projectOf(files);
    await project.audit();
    // migrate.yaml is edited in the editor and not saved: the audit reads the open text
    project.opened('apps/migrate.yaml');
    const unsaved = job('migrate', ['  backoffLimit: 1']);
    project.fs.open.set('apps/migrate.yaml', unsaved);
    project.updateIndex('apps/migrate.yaml', unsaved);
    editAndSave(project, files, 'apps/seed.yaml', job('seed', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']));
    const after = await project.auditChanged(['apps/seed.yaml']);
    assert.deepEqual(after.changed, ['apps/seed.yaml', 'apps/migrate.yaml']);
    assertSameAudit(after, await wholeAudit({ ...files, 'apps/migrate.yaml': unsaved }));
    // a newer edit whose analysis has not reached the index yet
    project.fs.open.set('apps/migrate.yaml', unsaved.replace('name: migrate', 'name: migrate-v2'));
    assert.equal((await project.auditChanged(['apps/seed.yaml'])).changed, undefined);
  });

  test('no Job left, or the first: contract-no-jobs comes or goes, which only a whole audit says', async () => {
    const files = { 'a.yaml': job('a', [`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']) };
    const previous = await wholeAudit(files);
    const gone: FileAudit = { findings: [], jobs: [] };
    assert.equal(patchedAudit((await projectOf(files)).contract, previous, new Map([['a.yaml', gone]])), undefined);
    // the control: a Job still there
    const kept: FileAudit = { findings: [], jobs: previous.jobs[0][1] };
    assert.ok(patchedAudit((await projectOf(files)).contract, previous, new Map([['a.yaml', kept]])));
  });
});
