// Flux variables as symbols, over a small repository (helpers/symbols-fixture.ts):
// completion after `${`, references from a use or a definition, rename (exact
// edits, refusals), inlay hints. Places are `file line:start-end` (0-based
// lines and UTF-16 columns, as LSP counts them). Each feature has its negative
// control: a name the building Kustomization does not define is not offered, a
// file Flux does not apply is never touched, a secret's value never shows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { variableCompletion } from '../server/src/engine/editor/completion';
import { inlayHints } from '../server/src/engine/editor/inlay-hints';
import { prepareRename, rename, NOT_RENAMEABLE } from '../server/src/engine/editor/rename';
import { variableSites, variableTargetAt } from '../server/src/engine/editor/variable-sites';
import { kustomization } from './helpers/flux-fixtures';
import { auditFiles, brief } from './helpers/memory-fs';
import { APPS, ARCHIVED, at, FILES, GOTK_SYNC, JOB, place, repo, Repo, SCRIPT, SECRETS, SETTINGS } from './helpers/symbols-fixture';

const JOB_PATH = 'apps/job.yaml';
const SCRIPT_PATH = 'apps/scripts/backup.sh';
/** The command line of JOB (0-based line 13). */
const COMMAND = 13;

async function references(r: Repo, file: string, offset: number): Promise<string[]> {
  const target = variableTargetAt(r.index, r.contract, file, r.files[file], offset);
  if (!target) return [];
  const found = await variableSites(r.index, r.contract, target, r.read);
  return found.sites.map((site) => `${site.definition ? 'def' : 'use'} ${site.file} ${place(r.files[site.file], site.span)}`);
}

function complete(r: Repo, file: string, text: string, offset: number) {
  return variableCompletion(r.index, r.contract, file, text, offset);
}

describe('completion after ${', () => {
  const typed = JOB.replace('${UNSET}', '${');
  const cursor = at(typed, '${ $${HOME}', 2);

  test('in a Job the Kustomization substitutes: the names it defines, values (secret masked), origins; replace range at the cursor, `}` added', async () => {
    const r = await repo();
    const found = complete(r, JOB_PATH, typed, cursor)!;
    assert.equal(place(typed, found.replace), `${COMMAND}:87-87`);
    assert.equal(found.close, true);
    assert.deepEqual(
      found.names.map((n) => [n.name, n.value, n.from, n.partial]),
      [
        ['CLUSTER_NAME', 'home', 'substitute of Kustomization "apps"', null],
        ['DB_PASSWORD', '••••', 'Secret cluster-secrets', null],
        ['LONG_TEXT', '012345678901234567890123456789012345678…', 'ConfigMap cluster-settings', null],
        ['TIMEZONE', 'Europe/Paris', 'ConfigMap cluster-settings', null],
      ],
    );
    // Negative control: `infra` defines INFRA_ONLY, but does not build this file.
    assert.ok(!found.names.some((n) => n.name === 'INFRA_ONLY'));
    assert.ok(!JSON.stringify(found).includes('ENC['), 'the SOPS value never shows');
    // A shell runs this text: one more item leaves `${…}` to the shell.
    assert.deepEqual(found.escape, {
      dollar: cursor - 2,
      label: '$${}',
      detail: 'Escape from Flux: the shell sees ${…}',
      documentation:
        'Inserts `$${}`: one more `$` before the `${`. Flux writes `$$` as `$` and substitutes nothing there, so the shell that runs this text sees `${…}` and expands its own variable (write its name between the braces).\n\nWithout the extra `$`, Flux substitutes `${…}` itself before the shell runs.',
    });
  });

  test('inside an existing ${TIME|ZONE}: the whole name is replaced, no `}` added, no escape for a name Flux defines', async () => {
    const r = await repo();
    const cursor = at(JOB, '${TIMEZONE}', 6);
    const found = complete(r, JOB_PATH, JOB, cursor)!;
    assert.equal(place(JOB, found.replace), '15:41-49');
    assert.equal(found.close, false);
    assert.equal(found.escape, null, 'not shell text (an env value), and a defined name');
  });

  test('in a script a configMapGenerator reads: the same names, and the escape for a plain shell variable', async () => {
    const r = await repo();
    const text = SCRIPT.replace('for d in', 'for d in ${dir ');
    const cursor = at(text, '${dir', 5);
    const found = complete(r, SCRIPT_PATH, text, cursor)!;
    assert.equal(place(text, found.replace), '1:47-50');
    assert.deepEqual(
      found.names.map((n) => n.name),
      ['CLUSTER_NAME', 'DB_PASSWORD', 'LONG_TEXT', 'TIMEZONE'],
    );
    assert.deepEqual(found.escape, {
      dollar: cursor - 5,
      label: '$${dir}',
      detail: 'Escape from Flux: the shell sees ${dir}',
      documentation:
        'Inserts `$${dir}`: one more `$` before the `${`. Flux writes `$$` as `$` and substitutes nothing there, so the shell that runs this text sees `${dir}` and expands its own variable `dir`.\n\nWithout the extra `$`, Flux substitutes `${dir}` before the shell runs, and no Kustomization that substitutes this text defines `dir`.',
    });
  });

  test('a name only some of the building Kustomizations define is marked, and values that differ say so', async () => {
    // A second Kustomization builds ./apps too, with CLUSTER_NAME of its own and nothing else.
    const r = await repo({ 'clusters/home/apps-copy.yaml': kustomization('apps-copy', './apps', '  postBuild:\n    substitute:\n      CLUSTER_NAME: work\n') });
    const found = complete(r, JOB_PATH, typed, cursor)!;
    assert.deepEqual(
      found.names.map((n) => [n.name, n.partial, n.differs]),
      [
        ['CLUSTER_NAME', null, 'differs by Kustomization'],
        ['DB_PASSWORD', 'only for apps; not for apps-copy', null],
        ['LONG_TEXT', 'only for apps; not for apps-copy', null],
        ['TIMEZONE', 'only for apps; not for apps-copy', null],
      ],
    );
  });

  test('nothing where Flux does not substitute: a YAML comment, `$${`, a file nothing applies (negative controls)', async () => {
    const r = await repo();
    const inComment = JOB.replace('in a comment', 'in a comment ${');
    assert.equal(complete(r, JOB_PATH, inComment, at(inComment, 'comment ${', 10)), null);
    const escaped = JOB.replace('${UNSET}', () => '$${');
    assert.equal(complete(r, JOB_PATH, escaped, at(escaped, '$${ $${HOME}', 3)), null);
    const archived = ARCHIVED.replace('${UNSET}', '${');
    assert.equal(complete(r, 'archive/job.yaml', archived, at(archived, '${ $${HOME}', 2)), null);
  });
});

describe('references', () => {
  const CLUSTER_NAME = ['def clusters/home/apps.yaml 12:6-18', `use ${JOB_PATH} ${COMMAND}:45-57`, `use ${SCRIPT_PATH} 1:8-20`];

  test('from a use: the substitute: key and every use in what `apps` builds (a script a generator reads too); never the YAML comment, never the archived Job', async () => {
    const r = await repo();
    assert.deepEqual(await references(r, JOB_PATH, at(JOB, '${CLUSTER_NAME}', 5, 1)), CLUSTER_NAME);
  });

  test('from the definition (the substitute: key) and from the script: the same', async () => {
    const r = await repo();
    assert.deepEqual(await references(r, 'clusters/home/apps.yaml', at(APPS, 'CLUSTER_NAME', 2)), CLUSTER_NAME);
    assert.deepEqual(await references(r, SCRIPT_PATH, at(SCRIPT, 'CLUSTER', 0)), CLUSTER_NAME);
  });

  test('a ConfigMap key and a SOPS-encrypted Secret key (the key name is plain in the file)', async () => {
    const r = await repo();
    assert.deepEqual(await references(r, 'clusters/home/cluster-settings.yaml', at(SETTINGS, 'TIMEZONE', 1)), ['def clusters/home/cluster-settings.yaml 6:2-10', `use ${JOB_PATH} 15:41-49`]);
    assert.deepEqual(await references(r, 'clusters/home/cluster-secrets.sops.yaml', at(SECRETS, 'DB_PASSWORD')), [
      'def clusters/home/cluster-secrets.sops.yaml 6:2-13',
      `use ${JOB_PATH} ${COMMAND}:61-72`,
    ]);
  });

  test("the contract's flux.variables entry is a definition", async () => {
    const contract = 'flux:\n  variables:\n    - {name: SECRET_DOMAIN, reason: From the password manager.}\n';
    const job = JOB.replace('${UNSET}', '${SECRET_DOMAIN}');
    const r = await repo({ [JOB_PATH]: job }, contract);
    const expected = ['def .flux-job-guard.yaml 2:13-26', `use ${JOB_PATH} ${COMMAND}:87-100`];
    assert.deepEqual(await references(r, '.flux-job-guard.yaml', at(contract, 'SECRET_DOMAIN')), expected);
    assert.deepEqual(await references(r, JOB_PATH, at(job, 'SECRET_DOMAIN')), expected);
  });

  test("several clusters: a use in a shared file joins each cluster's own definition", async () => {
    const cluster = (name: string, value: string) => ({
      [`clusters/${name}/flux-system/gotk-sync.yaml`]: GOTK_SYNC.replace('./clusters/home', `./clusters/${name}`),
      [`clusters/${name}/apps.yaml`]: kustomization('apps', './apps', '  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-settings}\n'),
      [`clusters/${name}/cluster-settings.yaml`]: SETTINGS.replace('Europe/Paris', value),
    });
    const r = await repo({
      ...Object.fromEntries(
        Object.keys(FILES)
          .filter((f) => f.startsWith('clusters/'))
          .map((f) => [f, undefined]),
      ),
      ...cluster('home', 'Europe/Paris'),
      ...cluster('work', 'UTC'),
    });
    const expected = ['def clusters/home/cluster-settings.yaml 6:2-10', 'def clusters/work/cluster-settings.yaml 6:2-10', `use ${JOB_PATH} 15:41-49`];
    assert.deepEqual(await references(r, 'clusters/work/cluster-settings.yaml', at(SETTINGS, 'TIMEZONE', 1)), expected, 'from one cluster');
    assert.deepEqual(await references(r, JOB_PATH, at(JOB, '${TIMEZONE}', 3)), expected, 'from the shared use');
  });

  test('not a variable: a key of a ConfigMap nothing substitutes from, plain text, a name in a comment', async () => {
    const r = await repo();
    assert.deepEqual(await references(r, 'clusters/home/apps.yaml', at(APPS, 'interval')), []);
    assert.deepEqual(await references(r, JOB_PATH, at(JOB, 'CLUSTER_NAME', 2)), [], 'the ${CLUSTER_NAME} in the YAML comment');
    assert.deepEqual(await references(r, 'archive/job.yaml', at(ARCHIVED, '${CLUSTER_NAME}', 3, 1)), [], 'in a file nothing applies');
  });
});

describe('rename', () => {
  async function renamed(r: Repo, file: string, offset: number, newName: string) {
    const result = await rename(r.index, r.contract, file, r.files[file], offset, newName, r.read);
    if ('error' in result) return result;
    const files = { ...r.files };
    const byFile = new Map<string, Array<{ span: [number, number]; newText: string }>>();
    for (const edit of result.edits) byFile.set(edit.file, [...(byFile.get(edit.file) ?? []), edit]);
    for (const [file, edits] of byFile) {
      let text = files[file];
      for (const edit of [...edits].sort((a, b) => b.span[0] - a.span[0])) text = text.slice(0, edit.span[0]) + edit.newText + text.slice(edit.span[1]);
      files[file] = text;
    }
    return { edits: result.edits.map((edit) => `${edit.file} ${place(r.files[edit.file], edit.span)} ${edit.newText}`), files };
  }

  test('prepareRename: the name under the cursor, or why not', async () => {
    const r = await repo();
    assert.deepEqual(prepareRename(r.index, r.contract, JOB_PATH, JOB, at(JOB, '${CLUSTER_NAME}', 8, 1)), {
      span: [at(JOB, '${CLUSTER_NAME}', 2, 1), at(JOB, '${CLUSTER_NAME}', 14, 1)],
      name: 'CLUSTER_NAME',
    });
    assert.deepEqual(prepareRename(r.index, r.contract, JOB_PATH, JOB, at(JOB, 'alpine')), { error: NOT_RENAMEABLE });
  });

  test('from a use: the key and every use get the new name, and only the name (comments, quotes kept); the archived Job is not touched', async () => {
    const r = await repo();
    // A name of the same length, so the findings compared below keep their columns.
    const result = await renamed(r, JOB_PATH, at(JOB, '${CLUSTER_NAME}', 4, 1), 'CLUSTER_CODE');
    assert.ok(!('error' in result));
    assert.deepEqual(result.edits, ['clusters/home/apps.yaml 12:6-18 CLUSTER_CODE', `${JOB_PATH} ${COMMAND}:45-57 CLUSTER_CODE`, `${SCRIPT_PATH} 1:8-20 CLUSTER_CODE`]);
    assert.equal(result.files['clusters/home/apps.yaml'], APPS.replace('CLUSTER_NAME: home # the cluster', 'CLUSTER_CODE: home # the cluster'));
    assert.equal(result.files[JOB_PATH], JOB.replace('echo ${CLUSTER_NAME}', 'echo ${CLUSTER_CODE}'), 'the comment keeps ${CLUSTER_NAME}');
    assert.equal(result.files[SCRIPT_PATH], SCRIPT.replace('${CLUSTER_NAME}', '${CLUSTER_CODE}'));
    assert.equal(result.files['archive/job.yaml'], ARCHIVED, 'a file Flux does not apply');
    // The renamed repository substitutes exactly as before: the same findings (negative control for a half rename).
    assert.deepEqual((await auditFiles(result.files)).findings.map(brief), (await auditFiles(r.files)).findings.map(brief));
  });

  test('from a ConfigMap key: the key and the use', async () => {
    const r = await repo();
    const result = await renamed(r, 'clusters/home/cluster-settings.yaml', at(SETTINGS, 'TIMEZONE', 1), 'TZ_NAME');
    assert.ok(!('error' in result));
    assert.deepEqual(result.edits, ['clusters/home/cluster-settings.yaml 6:2-10 TZ_NAME', `${JOB_PATH} 15:41-49 TZ_NAME`]);
  });

  test('refused: names Flux rejects, a name already defined, a name already used by the same Kustomizations', async () => {
    const r = await repo();
    const offset = at(JOB, '${CLUSTER_NAME}', 4, 1);
    for (const bad of ['1ST', 'app.conf', 'with-dash', '']) {
      const result = await rename(r.index, r.contract, JOB_PATH, JOB, offset, bad, r.read);
      assert.match('error' in result ? result.error : '', /Flux rejects this name: '.*' var name is invalid, must match/, bad);
    }
    assert.deepEqual(await rename(r.index, r.contract, JOB_PATH, JOB, offset, 'TIMEZONE', r.read), {
      error: 'TIMEZONE is already defined for Kustomization "apps" (ConfigMap cluster-settings): the two variables would become one.',
    });
    assert.deepEqual(await rename(r.index, r.contract, JOB_PATH, JOB, offset, 'UNSET', r.read), {
      error: '${UNSET} is already used in apps/job.yaml by the same Kustomizations: the two variables would become one.',
    });
    // A name only another Kustomization's files use is free here.
    assert.ok(!('error' in (await rename(r.index, r.contract, JOB_PATH, JOB, offset, 'INFRA_ONLY', r.read))));
  });
});

describe('inlay hints', () => {
  function hints(r: Repo, file: string, text: string, from = 0, to = text.length): Promise<string[]> {
    return Promise.resolve(inlayHints(r.index, r.contract, file, text, from, to).map((hint) => `${place(text, [hint.offset, hint.offset])} ${hint.label}`));
  }

  test('after each ${…}: the value, a secret masked, the default, a failure; after $${…} and $$$$ what the shell receives', async () => {
    const r = await repo();
    assert.deepEqual(await hints(r, JOB_PATH, JOB), [
      `${COMMAND}:58-58 = home`,
      `${COMMAND}:73-73 = ••••`,
      `${COMMAND}:84-84 = UTC (default)`,
      `${COMMAND}:93-93 (fails: strict)`,
      `${COMMAND}:102-102 → \${HOME}`,
      `${COMMAND}:107-107 → $$`,
      '15:50-50 = Europe/Paris',
    ]);
  });

  test('without strict substitution an undefined name is (unset); in a generator input too', async () => {
    const r = await repo({}, 'flux:\n  strict: false\n');
    assert.deepEqual((await hints(r, JOB_PATH, JOB))[3], `${COMMAND}:93-93 (unset)`);
    assert.deepEqual(await hints(r, SCRIPT_PATH, SCRIPT), ['1:21-21 = home', '1:53-53 → ${DIRS}']);
  });

  test('a name a Secret outside the repository may define is unknown, not a failure', async () => {
    const r = await repo({ 'clusters/home/cluster-secrets.sops.yaml': undefined });
    const all = await hints(r, JOB_PATH, JOB);
    assert.deepEqual([all[1], all[3]], [`${COMMAND}:73-73 (unknown: not in the repository)`, `${COMMAND}:93-93 (unknown: not in the repository)`]);
  });

  test('only the hints in the requested range', async () => {
    const r = await repo();
    const line15 = at(JOB, '            - {name: TIMEZONE');
    assert.deepEqual(await hints(r, JOB_PATH, JOB, line15, JOB.length), ['15:50-50 = Europe/Paris']);
    assert.deepEqual(await hints(r, JOB_PATH, JOB, 0, line15 - 1), (await hints(r, JOB_PATH, JOB)).slice(0, 6));
  });

  test('a value that differs between the Kustomizations that substitute the text says so', async () => {
    const r = await repo({ 'clusters/home/apps-copy.yaml': kustomization('apps-copy', './apps', '  postBuild:\n    substitute:\n      CLUSTER_NAME: work\n') });
    assert.equal((await hints(r, JOB_PATH, JOB))[0], `${COMMAND}:58-58 = home (differs by Kustomization)`);
  });

  test("a Secret's value never shows, decoded from data or through an operator (negative control)", async () => {
    const secret = SECRETS.replace('stringData:\n  DB_PASSWORD: ENC[AES256_GCM,data:c2VjcmV0,iv:abc,tag:def,type:str]', 'data:\n  DB_PASSWORD: aHVudGVyMg==');
    const job = JOB.replace('${UNSET}', '${DB_PASSWORD:0:3} ${UNSET:-${DB_PASSWORD}}');
    const r = await repo({ 'clusters/home/cluster-secrets.sops.yaml': secret, [JOB_PATH]: job });
    const all = inlayHints(r.index, r.contract, JOB_PATH, job, 0, job.length);
    assert.deepEqual(all.filter((hint) => hint.label === '= ••••').length, 3);
    assert.ok(!JSON.stringify(all).includes('hunter') && !JSON.stringify(all).includes('hun'), JSON.stringify(all));
  });

  test('nothing in a file Flux does not apply, nor in a YAML comment (negative control)', async () => {
    const r = await repo();
    assert.deepEqual(await hints(r, 'archive/job.yaml', ARCHIVED), []);
    assert.ok(!(await hints(r, JOB_PATH, JOB)).some((hint) => hint.startsWith('4:')), 'line 4 is the comment');
  });
});
