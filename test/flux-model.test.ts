// The Flux model, stage by stage (design/flux-model.md): where Flux starts
// (roots), what a source's artifact holds, what a build outputs (generator
// inputs and inline text included), and which variables reach it from
// outside the files. Each case is a small repository built the way real ones
// are, with a negative control: the same fixture without the root, without
// the annotation, without the contract key goes red.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles, brief } from './helpers/memory-fs';
import { applyFileEdits } from './helpers/table';

/** A Flux Kustomization; `extra` is appended under spec (indented by 2). */
function ks(name: string, path: string, extra = '', source = 'flux-system'): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: ${source}\n${extra}`;
}

const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: home\n';

/** What `flux bootstrap --path=<path>` writes. */
function gotkSync(path: string, extraGit = ''): string {
  return `---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: ssh://git@github.com/example/home-ops\n${extraGit}---\n${ks('flux-system', `./${path}`)}`;
}

/** A ConfigMap holding a shell script (its key says so). */
const CONFIGMAP = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  run.sh: |\n    ${value}\n`;

/** The findings the model decides: substitution, references, roots, unknown names. */
function modelFindings(findings: Finding[]): string[] {
  return findings.filter((f) => f.rule.startsWith('flux-') || f.rule === 'kustomize-reference').map(brief);
}

async function model(files: Record<string, string>): Promise<string[]> {
  return modelFindings((await auditFiles(files)).findings);
}

describe('roots: where Flux starts', () => {
  const cluster = {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home'),
    'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE),
    'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
    // An archived tree: its Kustomizations lie outside every live path and nothing applies them.
    'archive/old/apps.yaml': ks('old-apps', './archive/old/apps', SUBSTITUTE),
    'archive/old/apps/config.yaml': CONFIGMAP('b', 'echo ${UNSET}'),
    'archive/old/broken.yaml': ks('broken', './archive/missing'),
  };

  test('a bootstrap (gotk-sync.yaml) is the root: only what it applies is checked, the archive is dead', async () => {
    assert.deepEqual(await model(cluster), ['flux-substitution-undefined apps/config.yaml:7:10']);
  });

  test('red without the root: every Kustomization nothing builds is a root, said once (flux-no-root), and the archive is checked', async () => {
    const { 'clusters/home/flux-system/gotk-sync.yaml': _root, ...rest } = cluster;
    assert.deepEqual(await model(rest), [
      'flux-substitution-undefined apps/config.yaml:7:10',
      'flux-no-root archive/old/apps.yaml:2:1',
      'flux-substitution-undefined archive/old/apps/config.yaml:7:10',
      'kustomize-reference archive/old/broken.yaml:8:9',
    ]);
  });

  test('a FluxInstance sync is a root when a world applies the FluxInstance; a stale one is not', async () => {
    const instance =
      'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: GitRepository\n    url: https://github.com/example/home-ops\n    path: clusters/home\n';
    const files = { 'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE), 'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'), 'apps/flux/instance.yaml': instance };
    assert.deepEqual(await model(files), ['flux-substitution-undefined apps/config.yaml:7:10']);
    // The same sync written in the values of the flux-instance chart (a HelmRelease) counts the same.
    const helmRelease =
      'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  values:\n    instance:\n      sync:\n        kind: GitRepository\n        path: clusters/home\n';
    assert.deepEqual(await model({ ...files, 'apps/flux/instance.yaml': helmRelease }), ['flux-substitution-undefined apps/config.yaml:7:10']);
  });

  test('one artifact synced per cluster (d2-fleet): the folder it holds is assumed once, naming the other syncs; another artifact is its own guess', async () => {
    const instance = (cluster: string, artifact = 'flux-system') =>
      `apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: OCIRepository\n    name: ${artifact}\n    url: oci://ghcr.io/example/fleet\n    path: clusters/${cluster}\n`;
    const files = {
      'clusters/a/flux-system/instance.yaml': instance('a'),
      'clusters/a/apps.yaml': ks('apps', './apps', SUBSTITUTE).replace('kind: GitRepository', 'kind: OCIRepository'),
      'clusters/b/flux-system/instance.yaml': instance('b'),
      'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
    };
    const result = await auditFiles(files);
    const roots = result.findings.filter((f) => f.rule === 'flux-no-root');
    assert.deepEqual(roots.map(brief), ['flux-no-root clusters/a/flux-system/instance.yaml:11:11']);
    assert.match(
      roots[0].message,
      /assumed it holds the repository root, the only folder with clusters\/a\/\. Say so in flux\.sources to be sure\. The same is assumed for the syncs in clusters\/b\/flux-system\/instance\.yaml\.$/,
    );
    const other = await auditFiles({ ...files, 'clusters/b/flux-system/instance.yaml': instance('b', 'fleet-b') });
    assert.deepEqual(
      other.findings.filter((f) => f.rule === 'flux-no-root').map(brief),
      ['flux-no-root clusters/a/flux-system/instance.yaml:11:11', 'flux-no-root clusters/b/flux-system/instance.yaml:11:11'],
      'negative control: two artifacts, two guesses',
    );
  });

  test('the contract names the roots (flux.roots): exactly what they apply, and a root that is no folder is contract-file-missing', async () => {
    const files = {
      'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE),
      'apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
      'other/apps.yaml': ks('other', './other/x', SUBSTITUTE),
      'other/x/config.yaml': CONFIGMAP('b', 'echo ${UNSET}'),
    };
    const result = await auditFiles({ ...files, '.flux-job-guard.yaml': 'flux:\n  roots:\n    - clusters/home\n    - clusters/gone\n' });
    assert.deepEqual(modelFindings(result.findings), ['flux-substitution-undefined apps/config.yaml:7:10']);
    assert.deepEqual(result.findings.filter((f) => f.rule.startsWith('contract-file')).map(brief), ['contract-file-missing .flux-job-guard.yaml:4:7']);
  });

  test('"this repository" is the source the root names, not the most common sourceRef name', async () => {
    const archived = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`archive/k${i}.yaml`, ks(`k${i}`, `./archive/gone${i}`, '', 'flux-system')]));
    const files = {
      'k8s/flux/config/cluster.yaml': `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: home-kubernetes\n  namespace: flux-system\nspec:\n  url: https://github.com/example/home-ops\n---\n${ks('cluster', './k8s/flux', '', 'home-kubernetes')}`,
      'k8s/flux/apps.yaml': ks('apps', './k8s/apps', SUBSTITUTE, 'home-kubernetes'),
      'k8s/apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
      ...archived,
    };
    assert.deepEqual(await model(files), ['flux-substitution-undefined k8s/apps/config.yaml:7:10']);
  });

  test('several clusters are several worlds: the finding says which one breaks', async () => {
    const settings = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  ${value}\n`;
    const fromSettings = '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n';
    const files = {
      'clusters/a/flux-system/gotk-sync.yaml': gotkSync('clusters/a'),
      'clusters/a/settings.yaml': settings('DOMAIN: a.example.org'),
      'clusters/a/apps.yaml': ks('apps', './apps', fromSettings),
      'clusters/b/flux-system/gotk-sync.yaml': gotkSync('clusters/b'),
      'clusters/b/settings.yaml': settings('OTHER: b'),
      'clusters/b/apps.yaml': ks('apps', './apps', fromSettings),
      'apps/config.yaml': CONFIGMAP('a', 'echo ${DOMAIN}'),
    };
    const result = await auditFiles(files);
    assert.deepEqual(modelFindings(result.findings), ['flux-substitution-undefined apps/config.yaml:7:10']);
    assert.match(result.findings.find((f) => f.rule === 'flux-substitution-undefined')!.message, /Kustomization "apps" \(clusters\/b\)/);
    // Negative control: with DOMAIN in both clusters, no world breaks.
    assert.deepEqual(await model({ ...files, 'clusters/b/settings.yaml': settings('DOMAIN: b.example.org') }), []);
  });
});

describe('the source artifact: what Flux cannot build', () => {
  const base = {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home'),
    'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE),
    'apps/kustomization.yaml': 'resources:\n  - ./job\n',
    'apps/job/kustomization.yaml': 'resources:\n  - config.yaml\n',
    'apps/job/config.yaml': CONFIGMAP('a', 'echo ${CLUSTER}'),
  };

  test('a .sourceignore pattern leaves a folder out: the reference to it fails, and the message says which pattern', async () => {
    assert.deepEqual(await model(base), []);
    const result = await auditFiles({ ...base, '.sourceignore': '# keep the artifact small\napps/job/\n' });
    assert.deepEqual(modelFindings(result.findings), ['kustomize-reference apps/kustomization.yaml:2:5']);
    assert.match(result.findings[0].message, /\.sourceignore:2/);
  });

  test("GitRepository spec.ignore (read last, so a `!` re-includes) and Flux's default exclusions", async () => {
    const ignoring = (lines: string) => ({ ...base, 'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home', `  ignore: |\n${lines}`) });
    assert.deepEqual(await model(ignoring('    /*\n    !/clusters\n')), ['kustomize-reference clusters/home/apps.yaml:8:9']);
    assert.deepEqual(await model(ignoring('    /*\n    !/clusters\n    !/apps\n')), []);
    // `.github/` is excluded by default: a Kustomization cannot build a folder there.
    assert.deepEqual(await model({ ...base, 'clusters/home/apps.yaml': ks('apps', './.github/apps', SUBSTITUTE), '.github/apps/a.yaml': CONFIGMAP('a', 'x') }), [
      'kustomize-reference clusters/home/apps.yaml:8:9',
    ]);
  });

  test('a spec.path that climbs above the root: Flux clamps it (securejoin), an info where the clamped folder builds, an error where it does not exist', async () => {
    const climbing = { ...base, 'clusters/home/apps.yaml': ks('apps', '../apps', SUBSTITUTE), 'apps/job/config.yaml': CONFIGMAP('a', 'echo ${UNSET}') };
    const result = await auditFiles(climbing);
    const clamp = result.findings.filter((f) => f.rule === 'kustomize-reference');
    assert.deepEqual(
      clamp.map((f) => [brief(f), f.severity]),
      [['kustomize-reference clusters/home/apps.yaml:8:9', 'info']],
    );
    assert.equal(
      clamp[0].message,
      'spec.path "../apps" of Kustomization "apps" climbs above the root of GitRepository flux-system; Flux clamps it there and builds "./apps", which works: write "./apps" to say so.',
    );
    // The clamped build is the real one: its findings are there as for "./apps".
    assert.deepEqual(
      modelFindings(result.findings).filter((f) => !f.startsWith('kustomize-reference')),
      ['flux-substitution-undefined apps/job/config.yaml:7:10'],
    );
    // Negative control: where the clamped folder does not exist, the Kustomization fails: an error.
    const missing = (await auditFiles({ ...base, 'clusters/home/apps.yaml': ks('apps', '../nowhere', SUBSTITUTE) })).findings.filter((f) => f.rule === 'kustomize-reference');
    assert.deepEqual(
      missing.map((f) => [brief(f), f.severity]),
      [['kustomize-reference clusters/home/apps.yaml:8:9', 'error']],
    );
  });

  test('a pattern of its own (a .sourceignore, spec.ignore) drops the default exclusions but .git, as source-controller does', async () => {
    const icons = {
      ...base,
      'apps/job/kustomization.yaml': 'resources:\n  - config.yaml\nconfigMapGenerator:\n  - name: icons\n    files:\n      - icons/logo.png\n',
      'apps/job/icons/logo.png': 'PNG',
    };
    // Negative control: without a pattern of the repository's own, `*.png` is a default exclusion and the build fails.
    assert.deepEqual(await model(icons), ['kustomize-reference apps/job/kustomization.yaml:6:9']);
    assert.deepEqual(await model({ ...icons, '.sourceignore': '# docs stay out\ndocs/\n' }), []);
    assert.deepEqual(await model({ ...icons, 'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home', '  ignore: |\n    docs/\n') }), []);
    // A .sourceignore of comments only gives no pattern: the defaults stay.
    assert.deepEqual(await model({ ...icons, '.sourceignore': '# nothing yet\n\n' }), ['kustomize-reference apps/job/kustomization.yaml:6:9']);
    // The CI exclusions go too: with a pattern of its own, a folder under .github/ is in the artifact.
    const ci = { ...base, 'clusters/home/apps.yaml': ks('apps', './.github/apps', SUBSTITUTE), '.github/apps/a.yaml': CONFIGMAP('a', 'x') };
    assert.deepEqual(await model(ci), ['kustomize-reference clusters/home/apps.yaml:8:9']);
    assert.deepEqual(await model({ ...ci, '.sourceignore': 'docs/\n' }), []);
  });
});

describe('generated ConfigMaps: the files generators read are substituted text', () => {
  const repo = (kustomization: string, script: string, extra: Record<string, string> = {}) => ({
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home'),
    'clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE),
    'apps/kustomization.yaml': kustomization,
    'apps/scripts/run.sh': script,
    ...extra,
  });
  const generator = (options = '') => `configMapGenerator:\n  - name: scripts\n    files:\n      - run.sh=scripts/run.sh\n${options}`;

  test('files: findings in the script itself, with exact positions, escape fixes and an opt-out that nothing in the file needs', async () => {
    const result = await auditFiles(repo(generator(), '#!/bin/sh\nfor f in ${FILES}; do echo "$$"; done\n'));
    assert.deepEqual(modelFindings(result.findings), ['flux-substitution-undefined apps/scripts/run.sh:2:10', 'flux-substitution-pid apps/scripts/run.sh:2:29']);
    const undefinedName = result.findings.find((f) => f.rule === 'flux-substitution-undefined')!;
    assert.deepEqual(
      undefinedName.fixes!.map((fix) => [fix.title, fix.preferred ?? false, fix.edits.map((e) => [e.file, e.range.start.line, e.range.start.character, e.newText])]),
      [
        ['Escape ${FILES} from Flux ($${ → the shell sees ${)', true, [['apps/scripts/run.sh', 1, 9, '$']]],
        ['Define FILES in the postBuild.substitute of Kustomization "apps" (a value to fill in)', false, [['clusters/home/apps.yaml', 14, 19, '\n      FILES: ""']]],
        ['Give ${FILES} a default: ${FILES:=…}', false, [['apps/scripts/run.sh', 1, 16, ':=']]],
        [
          'Turn off Flux substitution for configMapGenerator "scripts" (nothing in this file is meant for Flux)',
          false,
          [['apps/kustomization.yaml', 3, 29, '\n    options:\n      annotations:\n        kustomize.toolkit.fluxcd.io/substitute: disabled']],
        ],
      ],
    );
    assert.deepEqual(
      undefinedName.related?.map((r) => [r.file, r.range.start.line, r.message]),
      [['clusters/home/apps.yaml', 1, 'Kustomization "apps" substitutes this file']],
    );
    // Each fix removes what it is for: the opt-out leaves no finding in the script, the escape leaves the PID only.
    const files = repo(generator(), '#!/bin/sh\nfor f in ${FILES}; do echo "$$"; done\n');
    const optedOut = applyFileEdits(files['apps/kustomization.yaml'], undefinedName.fixes![3].edits);
    assert.deepEqual(await model({ ...files, 'apps/kustomization.yaml': optedOut }), []);
    const escaped = applyFileEdits(files['apps/scripts/run.sh'], undefinedName.fixes![0].edits);
    assert.deepEqual(await model({ ...files, 'apps/scripts/run.sh': escaped }), ['flux-substitution-pid apps/scripts/run.sh:2:30']);
    const defined = applyFileEdits(files['clusters/home/apps.yaml'], undefinedName.fixes![1].edits);
    assert.deepEqual(await model({ ...files, 'clusters/home/apps.yaml': defined }), ['flux-substitution-pid apps/scripts/run.sh:2:29']);
    const defaulted = applyFileEdits(files['apps/scripts/run.sh'], undefinedName.fixes![2].edits);
    assert.deepEqual(await model({ ...files, 'apps/scripts/run.sh': defaulted }), ['flux-substitution-default apps/scripts/run.sh:2:10', 'flux-substitution-pid apps/scripts/run.sh:2:31']);
  });

  test('the opt-out annotation (generator options, or generatorOptions) turns it off; a Secret generator is never substituted (its data is base64)', async () => {
    const script = '#!/bin/sh\necho ${FILES}\n';
    assert.deepEqual(await model(repo(generator('    options:\n      annotations:\n        kustomize.toolkit.fluxcd.io/substitute: disabled\n'), script)), []);
    assert.deepEqual(await model(repo(generator() + 'generatorOptions:\n  labels:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n', script)), []);
    assert.deepEqual(await model(repo(generator().replace('configMapGenerator', 'secretGenerator'), script)), []);
    // Negative control: `Disabled` is not `disabled`.
    assert.deepEqual(await model(repo(generator('    options:\n      annotations:\n        kustomize.toolkit.fluxcd.io/substitute: Disabled\n'), script)), [
      'flux-substitution-undefined apps/scripts/run.sh:2:6',
    ]);
  });

  test('a file that uses a defined variable is meant for Flux: no opt-out offered there', async () => {
    const result = await auditFiles(repo(generator(), '#!/bin/sh\necho ${CLUSTER} ${TYPO}\n'));
    assert.deepEqual(
      result.findings.find((f) => f.rule === 'flux-substitution-undefined')!.fixes!.map((fix) => fix.title),
      ['Escape ${TYPO} from Flux ($${ → the shell sees ${)', 'Define TYPO in the postBuild.substitute of Kustomization "apps" (a value to fill in)', 'Give ${TYPO} a default: ${TYPO:=…}'],
    );
  });

  test('envs: the values of KEY=VALUE lines (comments are not data); literals in the kustomization file', async () => {
    const kustomization = 'configMapGenerator:\n  - name: settings\n    envs:\n      - settings.env\n    literals:\n      - GREETING=hello ${WHO}\n';
    const env = '# ${NOT_DATA} in a comment\nURL=https://${HOST}/x\n';
    assert.deepEqual(await model(repo(kustomization, '', { 'apps/settings.env': env })), [
      'flux-substitution-undefined apps/kustomization.yaml:6:24',
      'flux-substitution-undefined apps/settings.env:2:13',
    ]);
  });

  test('a generated ConfigMap defines variables for substituteFrom (envs and literals)', async () => {
    const files = {
      'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home'),
      'clusters/home/kustomization.yaml':
        'resources:\n  - apps.yaml\n  - flux-system\nconfigMapGenerator:\n  - name: cluster-settings\n    namespace: flux-system\n    envs:\n      - settings.env\n    literals:\n      - ZONE=eu\n',
      'clusters/home/flux-system/kustomization.yaml': 'resources:\n  - gotk-sync.yaml\n',
      'clusters/home/settings.env': 'DOMAIN=example.org\n',
      'clusters/home/apps.yaml': ks('apps', './apps', '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n'),
      'apps/config.yaml': CONFIGMAP('a', 'echo ${DOMAIN} ${ZONE} ${NOPE}'),
    };
    assert.deepEqual(await model(files), ['flux-substitution-undefined apps/config.yaml:7:28']);
  });

  test('a generator input that does not exist is a reference kustomize fails on; a remote URL is not checked', async () => {
    const missing = repo('configMapGenerator:\n  - name: s\n    files:\n      - gone.sh\n      - dash.json=https://example.org/dash.json\n', '');
    assert.deepEqual(await model(missing), ['kustomize-reference apps/kustomization.yaml:4:9']);
  });

  test('inline patches of a kustomization file are substituted text too', async () => {
    // A JSON 6902 patch needs a target (without one kustomize fails the build).
    const kustomization = 'resources:\n  - config.yaml\npatches:\n  - target:\n      kind: ConfigMap\n    patch: |\n      - op: add\n        path: /data/x\n        value: ${INLINE}\n';
    assert.deepEqual(await model(repo(kustomization, '', { 'apps/config.yaml': CONFIGMAP('a', 'ok') })), ['flux-substitution-undefined apps/kustomization.yaml:9:16']);
  });
});

describe('what the repository cannot show', () => {
  const files = {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('clusters/home'),
    'clusters/home/apps.yaml': ks('apps', './apps'),
    'apps/config.yaml': CONFIGMAP('a', 'echo ${DOMAIN} $${SHELL_VAR}'),
  };

  test('without postBuild nothing substitutes: a needless escape, an unsubstituted name passes', async () => {
    assert.deepEqual(await model(files), ['flux-substitution-needless-escape apps/config.yaml:7:20']);
  });

  test('flux.substituteFrom (an admission webhook adds it to every Kustomization): the escape is right, the names come from the object', async () => {
    const settings = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  DOMAIN: example.org\n';
    const contract = 'flux:\n  substituteFrom:\n    - kind: ConfigMap\n      name: cluster-settings\n';
    assert.deepEqual(await model({ ...files, 'clusters/home/settings.yaml': settings, '.flux-job-guard.yaml': contract }), []);
    // The object is not in the repository: its names are unknown, said once where it is named first (the contract's reference).
    assert.deepEqual(await model({ ...files, '.flux-job-guard.yaml': contract }), ['flux-variables-unknown .flux-job-guard.yaml:3:7']);
  });

  test('a known webhook in the repository (kustomize-mutating-webhook values) counts as flux.substituteFrom', async () => {
    const values = 'image:\n  repository: ghcr.io/xunholy/kustomize-mutating-webhook\nconfigMaps:\n  - name: cluster-settings\n';
    const settings = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\ndata:\n  DOMAIN: example.org\n';
    const webhook = {
      'clusters/home/webhook/kustomization.yaml': 'configMapGenerator:\n  - name: webhook-values\n    files:\n      - values.yaml\n',
      'clusters/home/webhook/values.yaml': values,
      'clusters/home/settings.yaml': settings,
    };
    assert.deepEqual(await model({ ...files, ...webhook }), []);
    // Negative control: the same values file where nothing applies it (a dead folder) changes nothing.
    const dead = Object.fromEntries(Object.entries(webhook).map(([path, text]) => [path.replace('clusters/home/webhook', 'unused/webhook'), text]));
    assert.deepEqual(await model({ ...files, ...dead, 'clusters/home/settings.yaml': settings }), ['flux-substitution-needless-escape apps/config.yaml:7:20']);
  });

  test('flux.sources: an OCIRepository that CI pushes from a folder is followed there', async () => {
    const oci = {
      'kubernetes/clusters/home/flux-system/gotk-sync.yaml': gotkSync('kubernetes/clusters/home'),
      'kubernetes/clusters/home/apps.yaml': ks('apps', './apps', SUBSTITUTE).replace('kind: GitRepository\n    name: flux-system', 'kind: OCIRepository\n    name: manifests'),
      'kubernetes/apps/config.yaml': CONFIGMAP('a', 'echo ${UNSET}'),
    };
    assert.deepEqual(await model(oci), [], 'negative control: an OCIRepository nothing maps is another source');
    const contract = 'flux:\n  sources:\n    - kind: OCIRepository\n      name: manifests\n      path: kubernetes\n';
    assert.deepEqual(await model({ ...oci, '.flux-job-guard.yaml': contract }), ['flux-substitution-undefined kubernetes/apps/config.yaml:7:10']);
  });
});
