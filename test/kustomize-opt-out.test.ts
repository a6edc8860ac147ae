// The substitution opt-out as kustomize's build writes it (issue 26 point 2):
// Flux reads `kustomize.toolkit.fluxcd.io/substitute: disabled` on what
// kustomize outputs, so a patch, commonAnnotations, labels, a component or
// the Flux Kustomization's own spec.patches opt a resource or a generated
// ConfigMap out as surely as its own metadata does. Each case has its
// negative control: the same repository without the opt-out gives the
// findings back, so a model that ignores patches again goes red here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles, brief } from './helpers/memory-fs';
import { gotkSync, kustomization } from './helpers/flux-fixtures';

const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: home\n';
const OPT_OUT = 'kustomize.toolkit.fluxcd.io/substitute: disabled';

/** A ConfigMap holding a shell script with a name nothing defines and an escaped shell variable. */
const SCRIPT_CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n  run.sh: |\n    echo ${UNSET} $${HOME}\n';

function repo(files: Record<string, string>, fluxExtra = ''): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/apps.yaml': kustomization('apps', './apps', SUBSTITUTE + fluxExtra),
    ...files,
  };
}

function substitutionFindings(findings: Finding[]): string[] {
  return findings.filter((f) => f.rule.startsWith('flux-substitution') || f.rule === 'kustomize-reference').map(brief);
}

async function findings(files: Record<string, string>): Promise<string[]> {
  return substitutionFindings((await auditFiles(files)).findings);
}

/** What the script gives where Flux substitutes it: the undefined name (the escape is right). */
const SUBSTITUTED = ['flux-substitution-undefined apps/config.yaml:7:10'];
/** What it gives opted out: nothing unescapes `$$`, so the shell sees its PID (item 4). */
const OPTED_OUT = ['flux-substitution-needless-escape apps/config.yaml:7:19'];

describe('resources: the opt-out on what kustomize outputs', () => {
  const resources = 'resources:\n  - config.yaml\n';
  const cases: Array<[string, string, Record<string, string>?]> = [
    [
      'a JSON 6902 patch by target kind and name',
      `${resources}patches:\n  - target:\n      kind: ConfigMap\n      name: scripts\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value:\n          ${OPT_OUT}\n`,
    ],
    [
      'a JSON 6902 patch by a label selector',
      `${resources}patches:\n  - target:\n      labelSelector: app=scripts\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value:\n          ${OPT_OUT}\n`,
    ],
    [
      'a strategic-merge patch file',
      `${resources}patches:\n  - path: opt-out.yaml\n`,
      { 'apps/opt-out.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\n  annotations:\n    ${OPT_OUT}\n` },
    ],
    ['commonAnnotations', `${resources}commonAnnotations:\n  ${OPT_OUT}\n`],
    ['labels', `${resources}labels:\n  - pairs:\n      ${OPT_OUT}\n`],
    ['commonLabels', `${resources}commonLabels:\n  ${OPT_OUT}\n`],
    [
      'a component (its commonAnnotations)',
      `${resources}components:\n  - ../components/no-substitution\n`,
      { 'components/no-substitution/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  ${OPT_OUT}\n` },
    ],
  ];
  // The label-selector case needs the label on the resource; the rest build the plain ConfigMap.
  const configFor = (name: string) => (name.includes('label selector') ? SCRIPT_CONFIGMAP.replace('  name: scripts\n', '  name: scripts\n  labels:\n    app: scripts\n') : SCRIPT_CONFIGMAP);

  for (const [name, kustomizationText, extra = {}] of cases) {
    test(name, async () => {
      const config = configFor(name);
      const at = (expected: string[]) => (config === SCRIPT_CONFIGMAP ? expected : expected.map((line) => line.replace(':7:', ':9:'))); // two lines of labels
      assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': kustomizationText, 'apps/config.yaml': config, ...extra })), at(OPTED_OUT));
      // Negative control: the same build without the opt-out substitutes the script.
      assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': resources, 'apps/config.yaml': config, ...extra })), at(SUBSTITUTED));
    });
  }

  test('a patch whose target is another resource opts nothing out', async () => {
    const other = `${resources}patches:\n  - target:\n      kind: ConfigMap\n      name: other\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value:\n          ${OPT_OUT}\n`;
    const otherConfig = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  a: b\n';
    assert.deepEqual(
      await findings(
        repo({ 'apps/kustomization.yaml': other.replace('  - config.yaml\n', '  - config.yaml\n  - other.yaml\n'), 'apps/config.yaml': SCRIPT_CONFIGMAP, 'apps/other.yaml': otherConfig }),
      ),
      SUBSTITUTED,
    );
  });

  test("the Flux Kustomization's own spec.patches (Flux writes them into the kustomization it builds)", async () => {
    const patches = `  patches:\n    - target:\n        kind: ConfigMap\n        name: scripts\n      patch: |\n        - op: add\n          path: /metadata/annotations\n          value:\n            ${OPT_OUT}\n`;
    assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': resources, 'apps/config.yaml': SCRIPT_CONFIGMAP }, patches)), OPTED_OUT);
  });

  test('one Kustomization opts out, another substitutes the same file: the substituted build decides the findings', async () => {
    const files: Record<string, string> = {
      ...repo({ 'apps/kustomization.yaml': resources, 'apps/config.yaml': SCRIPT_CONFIGMAP }),
      'clusters/home/quiet.yaml': kustomization('quiet', './overlay', SUBSTITUTE),
      'overlay/kustomization.yaml': `resources:\n  - ../apps\ncommonAnnotations:\n  ${OPT_OUT}\n`,
    };
    assert.deepEqual(await findings(files), SUBSTITUTED);
    // Negative control: with only the opted-out overlay, nothing substitutes the script.
    const quietOnly = { ...files };
    delete quietOnly['clusters/home/apps.yaml'];
    assert.deepEqual(await findings(quietOnly), OPTED_OUT);
  });
});

describe('generated ConfigMaps: the opt-out on what kustomize outputs', () => {
  const generator = 'configMapGenerator:\n  - name: scripts\n    files:\n      - run.sh\n';
  const script = '#!/bin/sh\necho ${UNSET} $${HOME}\n';
  const SCRIPT_SUBSTITUTED = ['flux-substitution-undefined apps/run.sh:2:6'];
  const SCRIPT_OPTED_OUT = ['flux-substitution-needless-escape apps/run.sh:2:15'];

  test('a JSON 6902 patch that annotates the generated ConfigMap (by its name before the hash)', async () => {
    const patched = `${generator}patches:\n  - target:\n      kind: ConfigMap\n      name: scripts\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value:\n          ${OPT_OUT}\n`;
    assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': patched, 'apps/run.sh': script })), SCRIPT_OPTED_OUT);
    // Negative control: without the patch the script is substituted.
    assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': generator, 'apps/run.sh': script })), SCRIPT_SUBSTITUTED);
  });

  test('commonAnnotations of a parent folder reach the ConfigMap its child generates', async () => {
    const files = repo({ 'apps/kustomization.yaml': `resources:\n  - ./scripts\ncommonAnnotations:\n  ${OPT_OUT}\n`, 'apps/scripts/kustomization.yaml': generator, 'apps/scripts/run.sh': script });
    assert.deepEqual(await findings(files), ['flux-substitution-needless-escape apps/scripts/run.sh:2:15']);
    assert.deepEqual(await findings({ ...files, 'apps/kustomization.yaml': 'resources:\n  - ./scripts\n' }), ['flux-substitution-undefined apps/scripts/run.sh:2:6']);
  });

  test('literals of a generator a patch opts out are not substituted either', async () => {
    const literals = 'configMapGenerator:\n  - name: scripts\n    literals:\n      - run.sh=echo ${UNSET}\n';
    const patched = `${literals}patches:\n  - target:\n      kind: ConfigMap\n      name: scripts\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value:\n          ${OPT_OUT}\n`;
    assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': patched })), []);
    assert.deepEqual(await findings(repo({ 'apps/kustomization.yaml': literals })), ['flux-substitution-undefined apps/kustomization.yaml:4:21']);
  });
});
