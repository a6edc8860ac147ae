// What the repository cannot show: each outside source (a Secret made by an
// ExternalSecret with dataFrom, an object no file declares) is one finding,
// not one per Kustomization; its declare fix writes every name the repository
// uses from it, so the next audit has no new error; the contract's `from`
// items are checked like every other list; an optional source nothing
// creates is a warning at the use. Each case has its negative control.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuditResult } from '../server/src/engine/pipeline/audit';
import type { Finding, Fix } from '../server/src/engine/base/types';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { envJob, EXTERNAL_SECRET, FROM_SECRETS, TWO_CLUSTERS } from './helpers/outside-fixture';
import { auditFiles, brief } from './helpers/memory-fs';
import { applyFileEdits } from './helpers/table';

const CONTRACT = '.flux-job-guard.yaml';

function fluxFindings(result: AuditResult): string[] {
  return result.findings.filter((f) => f.rule.startsWith('flux-') || f.rule.startsWith('contract-')).map(brief);
}

function errors(result: AuditResult): string[] {
  return result.findings.filter((f) => f.severity === 'error').map(brief);
}

/** The files after a fix (each edit applied to its file, a file created where the fix creates it). */
function applied(files: Record<string, string>, fix: Fix): Record<string, string> {
  const out = { ...files };
  for (const file of new Set(fix.edits.map((edit) => edit.file))) {
    out[file] = applyFileEdits(
      out[file] ?? '',
      fix.edits.filter((edit) => edit.file === file),
    );
  }
  return out;
}

function only(result: AuditResult, rule: string): Finding {
  const found = result.findings.filter((f) => f.rule === rule);
  assert.equal(found.length, 1, `one ${rule}: ${found.map(brief).join(', ')}`);
  return found[0];
}

describe('one finding per outside source', () => {
  test("at the producer's dataFrom, with every Kustomization that takes it (per world) as a related location", async () => {
    const result = await auditFiles(TWO_CLUSTERS);
    assert.deepEqual(fluxFindings(result), ['flux-variables-unknown clusters/a/secrets.yaml:10:3'], 'one finding for 4 Kustomizations in 2 clusters (was one per Kustomization)');
    const info = only(result, 'flux-variables-unknown');
    assert.equal(info.severity, 'info');
    assert.equal(
      info.message,
      "The names in Secret cluster-secrets (namespace flux-system) cannot be known here: ExternalSecret cluster-secrets fills it from the secret store with dataFrom. 4 Kustomizations take it, and their files use 4 names nothing in the repository defines (EMAIL, NFS_HOST_0, NFS_HOST_2, SECRET_DOMAIN); those uses are not checked. Declare its names in the contract's flux.variables (from: { kind: Secret, name: cluster-secrets }, names: […]) to check every use.",
    );
    assert.deepEqual(
      info.related!.map((r) => `${r.file}:${r.range.start.line + 1} ${r.message}`),
      [
        'clusters/a/apps.yaml:2 Kustomization "apps" uses EMAIL, SECRET_DOMAIN from it',
        'clusters/a/infra.yaml:2 Kustomization "infra" uses NFS_HOST_0, SECRET_DOMAIN from it',
        'clusters/b/apps.yaml:2 Kustomization "apps" uses EMAIL, SECRET_DOMAIN from it',
        'clusters/b/media.yaml:2 Kustomization "media" uses NFS_HOST_2 from it',
      ],
    );
  });

  test('no producer in the repository: at the first substituteFrom reference in (file, offset) order', async () => {
    const files = { ...TWO_CLUSTERS, 'clusters/a/secrets.yaml': '', 'clusters/b/secrets.yaml': '' };
    const info = only(await auditFiles(files), 'flux-variables-unknown');
    assert.equal(brief(info), 'flux-variables-unknown clusters/a/apps.yaml:13:9');
    assert.match(info.message, /cannot be known here: no Secret cluster-secrets is in the repository\. 4 Kustomizations take it/);
  });

  test('known in one world, unknown in the other: the finding names the world where it is unknown', async () => {
    const sops =
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\nstringData:\n  SECRET_DOMAIN: ENC[AES256_GCM,data:x]\n  EMAIL: ENC[AES256_GCM,data:y]\nsops:\n  version: 3.9.0\n';
    const result = await auditFiles({ ...TWO_CLUSTERS, 'clusters/a/secrets.yaml': sops });
    const info = only(result, 'flux-variables-unknown');
    assert.equal(brief(info), 'flux-variables-unknown clusters/b/secrets.yaml:10:3');
    assert.match(
      info.message,
      /2 Kustomizations take it in clusters\/b \(the repository shows its keys in clusters\/a\), and their files use 3 names nothing in the repository defines \(EMAIL, NFS_HOST_2, SECRET_DOMAIN\)/,
    );
    // In cluster a the SOPS Secret's keys are known: infra's NFS_HOST_0 is undefined there (an error), apps' names are not.
    assert.deepEqual(
      result.findings.filter((f) => f.rule === 'flux-substitution-undefined').map((f) => `${brief(f)} ${f.severity}`),
      ['flux-substitution-undefined infra/job.yaml:15:34 error'],
    );
  });
});

test('a Kustomization that takes two unknown sources: its names may come from either, and the related line says so', async () => {
  const files = { ...TWO_CLUSTERS, 'clusters/b/media.yaml': kustomization('media', './media', FROM_SECRETS + '      - kind: ConfigMap\n        name: platform-settings\n') };
  const result = await auditFiles(files);
  const infos = result.findings.filter((f) => f.rule === 'flux-variables-unknown');
  assert.deepEqual(infos.map(brief), ['flux-variables-unknown clusters/a/secrets.yaml:10:3', 'flux-variables-unknown clusters/b/media.yaml:15:9']);
  assert.deepEqual(
    infos[1].related!.map((r) => r.message),
    ['Kustomization "media" uses NFS_HOST_2 from it (or from Secret cluster-secrets)'],
  );
  assert.ok(infos[0].related!.some((r) => r.message === 'Kustomization "media" uses NFS_HOST_2 from it (or from ConfigMap platform-settings)'));
});

describe('the declare fix converges', () => {
  test('one item with every name (all Kustomizations, all worlds); then no new error but the placeholder reason; a typo is one error whose fix converges too', async () => {
    const before = await auditFiles(TWO_CLUSTERS);
    const info = only(before, 'flux-variables-unknown');
    assert.deepEqual(
      info.fixes!.map((f) => [f.title, f.preferred ?? false]),
      [
        ["Declare Secret cluster-secrets (namespace flux-system) in the contract's flux.variables with the 4 names used from it", true],
        ['Declare Secret cluster-secrets (namespace flux-system) in flux.variables without names (its names stay unknown, their uses unchecked)', false],
      ],
    );
    const fixed = applied(TWO_CLUSTERS, info.fixes![0]);
    // the contract is created: its header of two comment lines, then the item
    assert.equal(
      fixed[CONTRACT],
      '# Flux Job Guard contract: which Jobs keep no finish timeout\n# (or another one), and why. Hover a key for its meaning.\nflux:\n  variables:\n    - from: { kind: Secret, name: cluster-secrets, namespace: flux-system }\n      names: [EMAIL, NFS_HOST_0, NFS_HOST_2, SECRET_DOMAIN]\n      reason: TODO say where this comes from\n',
    );
    const after = await auditFiles(fixed);
    assert.deepEqual(fluxFindings(after), ['contract-reason-missing .flux-job-guard.yaml:7:15'], 'no unknown source, no undefined name: only the placeholder reason');
    assert.deepEqual(errors(after), ['contract-reason-missing .flux-job-guard.yaml:7:15']);

    // Negative control: a typo in one file is exactly one error, with the fix that adds the name.
    const typo = { ...fixed, 'media/job.yaml': envJob('media', ['NFS_HOST_2', 'SECRET_DOMIAN']) };
    const withTypo = await auditFiles(typo);
    const undefinedName = only(withTypo, 'flux-substitution-undefined');
    assert.equal(brief(undefinedName), 'flux-substitution-undefined media/job.yaml:16:34');
    assert.equal(undefinedName.severity, 'error');
    const add = undefinedName.fixes!.find((f) => f.title.startsWith('Add SECRET_DOMIAN'))!;
    assert.equal(add.title, 'Add SECRET_DOMIAN to the names of Secret cluster-secrets (namespace flux-system) in flux.variables');
    const added = applied(typo, add);
    assert.match(added[CONTRACT], /names: \[EMAIL, NFS_HOST_0, NFS_HOST_2, SECRET_DOMAIN, SECRET_DOMIAN\]/);
    assert.deepEqual(fluxFindings(await auditFiles(added)), ['contract-reason-missing .flux-job-guard.yaml:7:15']);
  });

  test('where the contract has an item for the source, the fix adds the missing names to it (one edit, comments kept), in a block list too', async () => {
    const contract = (names: string) => `# outside\nflux:\n  variables:\n    - from: { kind: Secret, name: cluster-secrets }\n${names}      reason: Synced from 1Password. # why\n`;
    const block = contract('      names:\n        - EMAIL # the admin\n');
    const result = await auditFiles({ ...TWO_CLUSTERS, [CONTRACT]: block });
    // Declared with one name: each other use is an error, each with the fix that adds every missing name.
    const undefinedNames = result.findings.filter((f) => f.rule === 'flux-substitution-undefined');
    assert.equal(undefinedNames.length, 4);
    const fix = undefinedNames[0].fixes!.find((f) => f.title.startsWith('Add '))!;
    assert.equal(fix.title, 'Add SECRET_DOMAIN to the names of Secret cluster-secrets (namespace flux-system) in flux.variables (and 2 more names used from it)');
    const fixed = applied({ ...TWO_CLUSTERS, [CONTRACT]: block }, fix);
    assert.equal(fixed[CONTRACT], contract('      names:\n        - EMAIL # the admin\n        - NFS_HOST_0\n        - NFS_HOST_2\n        - SECRET_DOMAIN\n'));
    assert.deepEqual(errors(await auditFiles(fixed)), []);
  });

  test('declared without names: no finding, uses unchecked (said in the docs); a silenced source is not an error', async () => {
    const info = only(await auditFiles(TWO_CLUSTERS), 'flux-variables-unknown');
    const fixed = applied(TWO_CLUSTERS, info.fixes![1]);
    assert.match(fixed[CONTRACT], /- from: \{ kind: Secret, name: cluster-secrets, namespace: flux-system \}\n {6}reason: TODO/);
    assert.deepEqual(fluxFindings(await auditFiles(fixed)), ['contract-reason-missing .flux-job-guard.yaml:6:15']);
  });

  test('the old {name} items keep their meaning where no from item covers the source; an undefined name there offers the from item with every name', async () => {
    const legacy = 'flux:\n  variables:\n    - { name: SECRET_DOMAIN, reason: From 1Password. }\n    - { name: EMAIL, reason: From 1Password. }\n';
    const files = { ...TWO_CLUSTERS, [CONTRACT]: legacy };
    const result = await auditFiles(files);
    assert.deepEqual(result.findings.filter((f) => f.rule.startsWith('flux-')).map(brief), ['flux-substitution-undefined infra/job.yaml:15:34', 'flux-substitution-undefined media/job.yaml:15:34']);
    const fix = result.findings[0].fixes!.find((f) => f.title.startsWith('Add '))!;
    assert.equal(fix.title, 'Add NFS_HOST_0 to the names of Secret cluster-secrets (namespace flux-system) in flux.variables (and 3 more names used from it)');
    assert.deepEqual(errors(await auditFiles(applied(files, fix))), ['contract-reason-missing .flux-job-guard.yaml:7:15']);
  });
});

describe("the contract's from items rot like every list", () => {
  const declared = (names: string, from = 'cluster-secrets') => `flux:\n  variables:\n    - from: { kind: Secret, name: ${from} }\n      names: [${names}]\n      reason: Synced from 1Password.\n`;

  test('a name no file built with the source uses, and a source no Kustomization takes from outside: contract-stale, with the fix that removes it', async () => {
    const stale = await auditFiles({ ...TWO_CLUSTERS, [CONTRACT]: declared('EMAIL, NFS_HOST_0, NFS_HOST_2, OLD_NAME, SECRET_DOMAIN') });
    const finding = only(stale, 'contract-stale');
    assert.equal(brief(finding), 'contract-stale .flux-job-guard.yaml:4:46');
    assert.equal(finding.message, 'OLD_NAME is stale in the names of Secret cluster-secrets: no file built with Secret cluster-secrets uses it. Remove it from the list.');
    const removed = applied({ ...TWO_CLUSTERS, [CONTRACT]: declared('EMAIL, NFS_HOST_0, NFS_HOST_2, OLD_NAME, SECRET_DOMAIN') }, finding.fixes![0]);
    assert.equal(removed[CONTRACT], declared('EMAIL, NFS_HOST_0, NFS_HOST_2, SECRET_DOMAIN'));
    assert.deepEqual(fluxFindings(await auditFiles(removed)), [], 'negative control: every name used, nothing stale');

    const nobody = await auditFiles({ ...TWO_CLUSTERS, [CONTRACT]: declared('X', 'other-secrets') });
    assert.equal(
      only(nobody, 'contract-stale').message,
      'The flux.variables item for Secret other-secrets is stale: no live Kustomization takes Secret other-secrets from outside the repository, and no live HelmRelease reads it (where the repository shows it, its keys are read there). Remove the item.',
    );
  });

  test('a from item without a reason, or with the placeholder, is flagged once', async () => {
    const result = await auditFiles({ ...TWO_CLUSTERS, [CONTRACT]: declared('EMAIL, NFS_HOST_0, NFS_HOST_2, SECRET_DOMAIN').replace('Synced from 1Password.', 'TODO say') });
    assert.deepEqual(fluxFindings(result), ['contract-reason-missing .flux-job-guard.yaml:5:15']);
  });

  test('contract-invalid: both name and from, no kind, names without from', async () => {
    const contract = 'flux:\n  variables:\n    - { name: A, from: { kind: Secret, name: s }, reason: r }\n    - { from: { name: s }, reason: r }\n    - { name: B, names: [C], reason: r }\n';
    const result = await auditFiles({ ...TWO_CLUSTERS, [CONTRACT]: contract });
    assert.deepEqual(
      result.findings.filter((f) => f.rule === 'contract-invalid').map((f) => `${brief(f)} ${f.message}`),
      [
        'contract-invalid .flux-job-guard.yaml:3:18 `flux.variables[0]` has both `name` and `from`: write one variable, or one source with its `names`.',
        'contract-invalid .flux-job-guard.yaml:4:15 `flux.variables[1].from` has no `kind`.',
        'contract-invalid .flux-job-guard.yaml:5:18 `flux.variables[2].names` lists the names of a source: add `from`, or write one item per name.',
      ],
    );
  });
});

describe('an optional source nothing creates', () => {
  const optional = (extra = '') => ({
    'clusters/a/flux-system/gotk-sync.yaml': gotkSync('./clusters/a'),
    'clusters/a/apps.yaml': kustomization(
      'apps',
      './apps',
      `  postBuild:\n    substitute:\n      CLUSTER: a\n    substituteFrom:\n      - kind: Secret\n        name: extra-secrets\n        optional: true\n${extra}`,
    ),
    'apps/job.yaml': envJob('app', ['CLUSTER', 'TOKEN']),
  });

  test('a name only it could define: a warning at the use saying Flux blanks it whenever the Secret is absent; fixes: default, declare', async () => {
    const result = await auditFiles(optional());
    const warning = only(result, 'flux-substitution-undefined');
    assert.equal(`${brief(warning)} ${warning.severity}`, 'flux-substitution-undefined apps/job.yaml:16:34 warning');
    assert.equal(
      warning.message,
      '${TOKEN} is not defined by Kustomization "apps": Flux fails the reconcile (strict substitution) whenever Secret extra-secrets is absent (optional, and nothing in this repository creates it). Define TOKEN in the Kustomization\'s postBuild, or give it a default (${TOKEN:=value}).',
    );
    assert.deepEqual(
      warning.fixes!.map((f) => f.title),
      [
        'Define TOKEN in the postBuild.substitute of Kustomization "apps" (a value to fill in)',
        'Give ${TOKEN} a default: ${TOKEN:=…}',
        'Add TOKEN to the names of Secret extra-secrets (namespace flux-system) in flux.variables',
      ],
    );
    assert.deepEqual(fluxFindings(await auditFiles(applied(optional(), warning.fixes![2]))), ['contract-reason-missing .flux-job-guard.yaml:7:15']);
    assert.equal(result.findings.filter((f) => f.rule === 'flux-variables-unknown').length, 0, 'not an unknown source');
  });

  test('negative controls: not optional, it is an unknown source (info); optional but made by an ExternalSecret, its keys are unknown (info)', async () => {
    const required = optional();
    required['clusters/a/apps.yaml'] = required['clusters/a/apps.yaml'].replace('        optional: true\n', '');
    assert.deepEqual(fluxFindings(await auditFiles(required)), ['flux-variables-unknown clusters/a/apps.yaml:15:9']);
    const produced = { ...optional(), 'clusters/a/secrets.yaml': EXTERNAL_SECRET.replace(/cluster-secrets/g, 'extra-secrets') };
    assert.deepEqual(fluxFindings(await auditFiles(produced)), ['flux-variables-unknown clusters/a/secrets.yaml:10:3']);
  });

  test("a custom resource that names the Secret in its spec (an operator's order to make it): an outside source, not nothing", async () => {
    const client = 'apiVersion: pocketid.internal/v1alpha1\nkind: PocketIDOIDCClient\nmetadata:\n  name: app\nspec:\n  clientID: app\n  secret:\n    name: extra-secrets\n';
    const result = await auditFiles({ ...optional(), 'clusters/a/oidc.yaml': client });
    assert.deepEqual(fluxFindings(result), ['flux-variables-unknown clusters/a/oidc.yaml:7:3']);
    assert.match(only(result, 'flux-variables-unknown').message, /PocketIDOIDCClient app names it in spec\.secret: its operator may make it, with keys the repository does not show/);
    // Negative control: a resource that names another Secret changes nothing.
    assert.deepEqual(fluxFindings(await auditFiles({ ...optional(), 'clusters/a/oidc.yaml': client.replace('extra-secrets', 'other') })), ['flux-substitution-undefined apps/job.yaml:16:34']);
  });
});
