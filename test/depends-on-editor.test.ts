// dependsOn as you type, engine-level, over the repository of
// helpers/depends-on-fixture.ts: completion of names (exact replace ranges and
// texts), go-to-definition, references and rename (exact edits, refusals).
// Places are `file line:start-end` (0-based lines and UTF-16 columns, as LSP
// counts them). Each feature has its negative controls: the dependent itself,
// a HelmRelease for a Kustomization's entry, the same-named `apps` of team-a
// (never reached from flux-system's entries, never touched by its rename), and
// the audit of the edited repository (clean after a whole edit, not after half).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dependsOnCompletion, type DependsOnCompletion } from '../server/src/engine/editor/depends-on-completion';
import { dependsOnDefinitions, objectSites, objectTargetAt } from '../server/src/engine/editor/depends-on-sites';
import { NOT_RENAMEABLE, prepareRename, rename, type RenameEdit } from '../server/src/engine/editor/rename';
import { APPS, DEPENDS_ON_FILES, INGRESS, ks, MONITORING, WEB } from './helpers/depends-on-fixture';
import { gotkSync } from './helpers/flux-fixtures';
import { auditFiles } from './helpers/memory-fs';
import { at, place, repo, Repo } from './helpers/symbols-fixture';

const APPS_PATH = 'clusters/home/apps.yaml';
const MONITORING_PATH = 'clusters/home/monitoring.yaml';
const WEB_PATH = 'clusters/home/team-a/web.yaml';
const INGRESS_PATH = 'infra/ingress-nginx.yaml';

const fixture = (changes: Record<string, string | undefined> = {}) => repo(changes, undefined, DEPENDS_ON_FILES);

/** The candidates as `name namespace → newText` (and the inserted line with its place), the completion's replace place first. */
function table(text: string, found: DependsOnCompletion | null): string[] {
  assert.ok(found, 'a completion');
  return [
    `replace ${place(text, found.replace)}${found.item ? ' (item)' : ''}`,
    ...found.candidates.map(
      (c) =>
        `${c.name} ${c.namespace} ${c.preferred ? 'preferred' : 'other'}${c.cycle ? ' cycle' : ''} → ${JSON.stringify(c.newText)}${c.insert ? ` + ${place(text, [c.insert.at, c.insert.at])} ${JSON.stringify(c.insert.text)}` : ''}`,
    ),
  ];
}

/** Applies the edits of one file (offsets in its text). */
function applied(text: string, edits: Array<{ span: [number, number]; newText: string }>): string {
  return [...edits].sort((a, b) => b.span[0] - a.span[0]).reduce((out, edit) => out.slice(0, edit.span[0]) + edit.newText + out.slice(edit.span[1]), text);
}

/** The repository's files after a rename's edits. */
function renamedFiles(r: Repo, edits: RenameEdit[]): Record<string, string> {
  const files = { ...r.files };
  for (const file of new Set(edits.map((edit) => edit.file)))
    files[file] = applied(
      files[file],
      edits.filter((edit) => edit.file === file),
    );
  return files;
}

const dependsOnFindings = async (files: Record<string, string>) =>
  (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('flux-depends-on')).map((f) => `${f.rule} ${f.file} ${f.range.start.line}:${f.range.start.character}`);

describe('completion of dependsOn names', () => {
  test("on a Kustomization's name: value: its namespace's Kustomizations first, another namespace's with their namespace: line, a cycle last; never itself, never a HelmRelease", async () => {
    const r = await fixture();
    const text = APPS.replace('infra-controllers #', 'inf #');
    assert.deepEqual(table(text, dependsOnCompletion(r.index, APPS_PATH, text, at(text, 'inf #', 3))), [
      'replace 11:12-15',
      'flux-system flux-system preferred → "flux-system"',
      'infra-controllers flux-system preferred → "infra-controllers"',
      // A comment follows the name: the namespace line goes after the line's end, the comment stays where it is.
      'apps team-a other → "apps" + 11:39-39 "\\n      namespace: team-a"',
      // Written without a namespace: its folder's kustomization puts it in team-b.
      'cache team-b other → "cache" + 11:39-39 "\\n      namespace: team-b"',
      'web team-a other → "web" + 11:39-39 "\\n      namespace: team-a"',
      'monitoring flux-system preferred cycle → "monitoring"',
    ]);
    const monitoring = dependsOnCompletion(r.index, APPS_PATH, text, at(text, 'inf #', 3))!.candidates.find((c) => c.name === 'monitoring')!;
    assert.equal(monitoring.detail, 'Kustomization in namespace flux-system — clusters/home/monitoring.yaml (it waits for apps: a cycle)');
  });

  test('on a bare `- ` item: `name: ` written too, the namespace line inside the edit; a name the list has already is not offered', async () => {
    const r = await fixture();
    const text = APPS + '    - \n';
    assert.deepEqual(table(text, dependsOnCompletion(r.index, APPS_PATH, text, text.length - 1)), [
      'replace 12:6-6 (item)',
      'flux-system flux-system preferred → "name: flux-system"',
      'apps team-a other → "name: apps\\n      namespace: team-a"',
      'cache team-b other → "name: cache\\n      namespace: team-b"',
      'web team-a other → "name: web\\n      namespace: team-a"',
      'monitoring flux-system preferred cycle → "name: monitoring"',
    ]);
  });

  test("inside quotes: only the name's characters; the entry that says team-a already keeps team-a's apps out", async () => {
    const r = await fixture();
    const text = MONITORING.replace('"apps"', '"ap"');
    assert.deepEqual(table(text, dependsOnCompletion(r.index, MONITORING_PATH, text, at(text, '"ap"', 3))), [
      'replace 11:13-15',
      'apps flux-system preferred → "apps"',
      'flux-system flux-system preferred → "flux-system"',
      'infra-controllers flux-system preferred → "infra-controllers"',
      'cache team-b other → "cache" + 11:16-16 "\\n      namespace: team-b"',
      'web team-a other → "web" + 11:16-16 "\\n      namespace: team-a"',
    ]);
  });

  test("a HelmRelease's entry: HelmReleases only, the namespace the entry says preferred; never itself", async () => {
    const r = await fixture();
    const found = dependsOnCompletion(r.index, INGRESS_PATH, INGRESS, at(INGRESS, 'name: cert-manager', 18));
    assert.deepEqual(table(INGRESS, found), ['replace 10:12-24', 'cert-manager cert-manager preferred → "cert-manager"']);
    assert.equal(found!.candidates[0].detail, 'HelmRelease in namespace cert-manager — infra/cert-manager.yaml');
  });

  test('nothing outside a dependsOn list: metadata.name, another list of name: items, a flow list, a document Flux does not read as a dependent', async () => {
    const r = await fixture();
    const none = (path: string, text: string, offset: number) => assert.equal(dependsOnCompletion(r.index, path, text, offset), null, text.slice(offset - 20, offset));
    none(APPS_PATH, APPS, at(APPS, 'name: apps', 8));
    const substituteFrom = APPS + '  postBuild:\n    substituteFrom:\n      - name: cl\n';
    none(APPS_PATH, substituteFrom, at(substituteFrom, '- name: cl', 10));
    const flow = APPS.replace(/ {2}dependsOn:\n.*\n/, '  dependsOn: [{name: inf}]\n');
    none(APPS_PATH, flow, at(flow, 'inf}', 3));
    const kustomize = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ndependsOn:\n  - name: inf\n';
    none('apps/kustomization.yaml', kustomize, kustomize.length - 1);
  });

  test('the chosen item, applied, is an entry Flux resolves: clean; without its namespace line it names nothing (negative control)', async () => {
    const r = await fixture();
    const text = APPS + '    - \n';
    const found = dependsOnCompletion(r.index, APPS_PATH, text, text.length - 1)!;
    const cache = found.candidates.find((c) => c.name === 'cache')!;
    const chosen = applied(text, [{ span: found.replace, newText: cache.newText }]);
    assert.equal(chosen, APPS + '    - name: cache\n      namespace: team-b\n');
    assert.deepEqual(await dependsOnFindings({ ...DEPENDS_ON_FILES, [APPS_PATH]: chosen }), []);
    assert.deepEqual(await dependsOnFindings({ ...DEPENDS_ON_FILES, [APPS_PATH]: APPS + '    - name: cache\n' }), ['flux-depends-on-missing clusters/home/apps.yaml 12:12']);
  });
});

describe('go to definition and references', () => {
  function definitions(r: Repo, path: string, text: string, offset: number): string[] {
    return dependsOnDefinitions(r.index, path, text, offset).map((d) => `${d.file} ${place(r.files[d.file], d.span)}`);
  }

  async function references(r: Repo, path: string, offset: number): Promise<string[]> {
    const target = objectTargetAt(r.index, path, r.files[path], offset);
    if (!target) return [];
    const found = await objectSites(target, path, r.files[path], r.read);
    return found.sites.map((site) => `${site.definition ? 'def' : 'use'} ${site.file} ${place(r.files[site.file], site.span)}`);
  }

  test('an entry leads to the metadata.name it names, in the namespace Flux looks in', async () => {
    const r = await fixture();
    assert.deepEqual(definitions(r, APPS_PATH, APPS, at(APPS, 'infra-controllers', 3)), ['clusters/home/infra.yaml 3:8-25']);
    assert.deepEqual(definitions(r, MONITORING_PATH, MONITORING, at(MONITORING, '"apps"', 2)), ['clusters/home/apps.yaml 3:8-12']);
    // The same name with `namespace: team-a`, and team-a's own entry: team-a's apps, not flux-system's.
    assert.deepEqual(definitions(r, MONITORING_PATH, MONITORING, at(MONITORING, 'name: apps\n', 7)), ['clusters/home/team-a/apps.yaml 3:8-12']);
    assert.deepEqual(definitions(r, WEB_PATH, WEB, at(WEB, "'apps'", 2)), ['clusters/home/team-a/apps.yaml 3:8-12']);
    assert.deepEqual(definitions(r, INGRESS_PATH, INGRESS, at(INGRESS, 'cert-manager', 1)), ['infra/cert-manager.yaml 3:8-20']);
  });

  test('nowhere from a name nothing declares, from a metadata.name, or off the names (negative controls)', async () => {
    const r = await fixture();
    const typo = APPS.replace('infra-controllers', 'infra-controlers');
    assert.deepEqual(definitions(r, APPS_PATH, typo, at(typo, 'infra-controlers', 3)), []);
    assert.deepEqual(definitions(r, APPS_PATH, APPS, at(APPS, 'name: apps', 8)), []);
    assert.deepEqual(definitions(r, APPS_PATH, APPS, at(APPS, 'interval', 2)), []);
  });

  test("references of flux-system's apps: its name and the entry that names it; never team-a's (same name, other namespace)", async () => {
    const r = await fixture();
    const expected = ['def clusters/home/apps.yaml 3:8-12', 'use clusters/home/monitoring.yaml 11:13-17'];
    assert.deepEqual(await references(r, APPS_PATH, at(APPS, 'name: apps', 8)), expected);
    assert.deepEqual(await references(r, MONITORING_PATH, at(MONITORING, '"apps"', 3)), expected);
    assert.deepEqual(await references(r, WEB_PATH, at(WEB, "'apps'", 3)), [
      'def clusters/home/team-a/apps.yaml 3:8-12',
      'use clusters/home/monitoring.yaml 12:12-16',
      'use clusters/home/team-a/web.yaml 11:13-17',
    ]);
  });

  test('a Kustomization written without a namespace is found in the namespace its folder gives it', async () => {
    const web = WEB + '    - name: cache\n      namespace: team-b\n';
    const r = await fixture({ [WEB_PATH]: web });
    assert.deepEqual(await references(r, 'clusters/home/team-b/cache.yaml', at(r.files['clusters/home/team-b/cache.yaml'], 'name: cache', 7)), [
      'def clusters/home/team-b/cache.yaml 3:8-13',
      'use clusters/home/team-a/web.yaml 12:12-17',
    ]);
    // Negative control: the same entry in team-a (its own namespace by default) names nothing.
    const wrong = await fixture({ [WEB_PATH]: WEB + '    - name: cache\n' });
    assert.deepEqual(await references(wrong, 'clusters/home/team-b/cache.yaml', at(wrong.files['clusters/home/team-b/cache.yaml'], 'name: cache', 7)), ['def clusters/home/team-b/cache.yaml 3:8-13']);
  });
});

describe('rename', () => {
  async function renamed(r: Repo, path: string, offset: number, newName: string): Promise<RenameEdit[]> {
    const result = await rename(r.index, r.contract, path, r.files[path], offset, newName, r.read);
    if ('error' in result) throw new Error(result.error);
    return result.edits;
  }
  const brief = (r: Repo, edits: RenameEdit[]) => edits.map((edit) => `${edit.file} ${place(r.files[edit.file], edit.span)} ${edit.newText}`);

  test("flux-system's apps from its metadata.name: the name and the quoted entry, quotes and comments kept; team-a's apps and its dependents untouched", async () => {
    const r = await fixture();
    const edits = await renamed(r, APPS_PATH, at(APPS, 'name: apps', 8), 'applications');
    assert.deepEqual(brief(r, edits), ['clusters/home/apps.yaml 3:8-12 applications', 'clusters/home/monitoring.yaml 11:13-17 applications']);
    const files = renamedFiles(r, edits);
    assert.equal(files[APPS_PATH], APPS.replace('name: apps', 'name: applications'));
    assert.equal(files[MONITORING_PATH], MONITORING.replace('"apps"', '"applications"'));
    assert.equal(files[WEB_PATH], WEB);
    assert.equal(files['clusters/home/team-a/apps.yaml'], DEPENDS_ON_FILES['clusters/home/team-a/apps.yaml']);
    // The renamed repository resolves as before; half the rename (the name alone) would leave the entry naming nothing.
    assert.deepEqual(await dependsOnFindings(files), []);
    assert.deepEqual(await dependsOnFindings({ ...DEPENDS_ON_FILES, [APPS_PATH]: files[APPS_PATH] }), ['flux-depends-on-missing clusters/home/monitoring.yaml 11:12']);
  });

  test("from an entry: team-a's apps, the entry that says its namespace and team-a's own entry; flux-system's apps untouched", async () => {
    const r = await fixture();
    const edits = await renamed(r, WEB_PATH, at(WEB, "'apps'", 2), 'team-apps');
    assert.deepEqual(brief(r, edits), ['clusters/home/team-a/apps.yaml 3:8-12 team-apps', 'clusters/home/monitoring.yaml 12:12-16 team-apps', 'clusters/home/team-a/web.yaml 11:13-17 team-apps']);
    const files = renamedFiles(r, edits);
    assert.equal(files[APPS_PATH], APPS);
    assert.equal(files[WEB_PATH], WEB.replace("'apps'", "'team-apps'"));
    assert.deepEqual(await dependsOnFindings(files), []);
  });

  test("a HelmRelease: its name and its dependents' entries", async () => {
    const r = await fixture();
    const edits = await renamed(r, INGRESS_PATH, at(INGRESS, 'cert-manager', 1), 'certs');
    assert.deepEqual(brief(r, edits), ['infra/cert-manager.yaml 3:8-20 certs', 'infra/ingress-nginx.yaml 10:12-24 certs']);
  });

  test("another cluster's Kustomization of the same name and namespace: not offered, not reached, not renamed", async () => {
    const r = await fixture({
      'clusters/work/flux-system/gotk-sync.yaml': gotkSync('./clusters/work'),
      'clusters/work/infra.yaml': ks('infra-controllers', './infra'),
      'clusters/work/databases.yaml': ks('databases', './apps', '  dependsOn:\n    - name: infra-controllers\n'),
    });
    const text = APPS + '    - \n';
    const offered = dependsOnCompletion(r.index, APPS_PATH, text, text.length - 1)!.candidates.map((c) => c.name);
    assert.ok(offered.includes('web') && !offered.includes('databases'), offered.join());
    const edits = await renamed(r, 'clusters/home/infra.yaml', at(r.files['clusters/home/infra.yaml'], 'name: infra', 7), 'controllers');
    assert.deepEqual(brief(r, edits), ['clusters/home/infra.yaml 3:8-25 controllers', 'clusters/home/apps.yaml 11:12-29 controllers']);
    assert.deepEqual(await dependsOnFindings(renamedFiles(r, edits)), []);
  });

  test('prepareRename: the name inside its quotes; a name nothing declares, or no name at all, says what can be renamed', async () => {
    const r = await fixture();
    const prepared = prepareRename(r.index, r.contract, MONITORING_PATH, MONITORING, at(MONITORING, '"apps"', 1));
    assert.ok(!('error' in prepared));
    assert.deepEqual([place(MONITORING, prepared.span), prepared.name], ['11:13-17', 'apps']);
    const typo = APPS.replace('infra-controllers', 'infra-controlers');
    assert.deepEqual(prepareRename(r.index, r.contract, APPS_PATH, typo, at(typo, 'infra-controlers', 3)), {
      error: 'No Kustomization named "infra-controlers" is declared where this entry looks: there is nothing to rename.',
    });
    assert.deepEqual(prepareRename(r.index, r.contract, APPS_PATH, APPS, at(APPS, 'interval', 2)), { error: NOT_RENAMEABLE });
  });

  test('refused: a name Kubernetes or YAML would not take, one another Kustomization has there, an entry that may name it through a variable', async () => {
    const r = await fixture();
    const offset = at(APPS, 'name: apps', 8);
    const refusal = async (newName: string, repository = r) => {
      const result = await rename(repository.index, repository.contract, APPS_PATH, APPS, offset, newName, repository.read);
      return 'error' in result ? result.error : `edits: ${result.edits.length}`;
    };
    assert.equal(await refusal('Apps'), "\"Apps\" is not a valid object name: lowercase letters, digits, '-' and '.', beginning and ending with a letter or digit.");
    assert.match(await refusal('a'.repeat(64)), /is longer than 63 characters: Flux writes the name into a label/);
    assert.equal(await refusal('123'), '"123" written without quotes is read as a number, not a name: rename by hand and quote it.');
    assert.equal(await refusal('yes'), '"yes" written without quotes is read as a boolean, not a name: rename by hand and quote it.');
    assert.equal(await refusal('infra-controllers'), 'Kustomization "infra-controllers" already exists in namespace flux-system (clusters/home/infra.yaml): the dependsOn entries would name both.');
    // Negative control: team-a's web has the name too, but in another namespace.
    assert.equal(await refusal('web'), 'edits: 2');
    assert.equal(await refusal('apps'), 'edits: 0');
    const variable = await fixture({ 'clusters/home/extra.yaml': ks('extra', './apps', '  dependsOn:\n    - name: ap${SUFFIX}\n') });
    assert.equal(await refusal('applications', variable), '"apps" is named in clusters/home/extra.yaml where it is not written as such (a variable or a ResourceSet input): rename it there by hand.');
  });
});
