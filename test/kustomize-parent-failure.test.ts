// The auricom__home-ops shape: a configMapGenerator beside `configurations:`
// (a nameReference file) and `generatorOptions`, in a folder a child Flux
// Kustomization with postBuild.substitute builds. The generator is built and
// its script substituted, so an undefined `${section}` is found. The same
// repository with one broken sibling folder under the parent's path (a
// resource that does not exist) makes kustomize fail the parent's build: the
// generated kustomization of `./apps` lists every folder that has a
// kustomization file, Flux applies nothing of it, the child Kustomization is
// never created, and the one finding left is the cause, said as an error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditFiles, brief } from './helpers/memory-fs';
import { gotkSync, kustomization } from './helpers/flux-fixtures';

const NAME_REFERENCE = 'nameReference:\n  - kind: ConfigMap\n    version: v1\n    fieldSpecs:\n      - path: spec/values/persistence/scripts/name\n        kind: HelmRelease\n';

const APP_KUSTOMIZATION = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: default
resources:
  - ./helmrelease.yaml
configMapGenerator:
  - name: bazarr-scripts
    files:
      - post-process.sh=./scripts/post-process.sh
configurations:
  - ./patches/kustomizeconfig.yaml
generatorOptions:
  disableNameSuffixHash: true
`;

const HELMRELEASE = 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: bazarr\nspec:\n  values:\n    persistence:\n      scripts:\n        name: bazarr-scripts\n';

function repo(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    // No apps/kustomization.yaml: Flux generates one from the folders below.
    'clusters/home/apps.yaml': kustomization('apps', './apps'),
    'apps/default/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./bazarr/ks.yaml\n',
    'apps/default/bazarr/ks.yaml': kustomization('bazarr', './apps/default/bazarr/app', '  postBuild:\n    substitute:\n      APP: bazarr\n'),
    'apps/default/bazarr/app/kustomization.yaml': APP_KUSTOMIZATION,
    'apps/default/bazarr/app/helmrelease.yaml': HELMRELEASE,
    'apps/default/bazarr/app/patches/kustomizeconfig.yaml': NAME_REFERENCE,
    'apps/default/bazarr/app/scripts/post-process.sh': '#!/bin/sh\necho "${APP}"\ncase "${section}" in\n  movies) exit 0 ;;\nesac\n',
    ...extra,
  };
}

async function findings(files: Record<string, string>): Promise<string[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('flux-') || f.rule.startsWith('kustomize-')).map(brief);
}

describe('a generator beside configurations:, under a parent whose build may fail', () => {
  test('the parent builds: the generated script is substituted and ${section} is undefined', async () => {
    assert.deepEqual(await findings(repo()), ['flux-substitution-undefined apps/default/bazarr/app/scripts/post-process.sh:3:7']);
  });

  test('a sibling folder references a missing file: the parent fails, only the cause is reported', async () => {
    const broken = { 'apps/observability/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./nut-exporter/ks.yaml\n' };
    const { findings: all } = await auditFiles(repo(broken));
    const reported = all.filter((f) => f.rule.startsWith('flux-') || f.rule.startsWith('kustomize-'));
    assert.deepEqual(reported.map(brief), ['kustomize-reference apps/observability/kustomization.yaml:4:5']);
    assert.equal(reported[0].severity, 'error');
    assert.match(reported[0].message, /Kustomization "apps" fails and applies nothing/);
  });
});
