// Root choice builds only the Kustomizations that may apply themselves: those on a cycle of the
// edges the build bounds allow (flux/model/build-bounds.ts). The bound must hold every file a
// real build adds, or a bootstrap is missed and the audit falls back to guessing its roots. A
// table of layouts, a property over random ones against the real build, and a bootstrap whose
// own file is reached only through a `../` reference, with its control.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as fc from 'fast-check';
import { dirnameOf } from '../server/src/engine/base/paths';
import type { FileFacts, KustomizeConfig, PathRef } from '../server/src/engine/flux/facts/model';
import { ArtifactIndex, makeArtifact } from '../server/src/engine/flux/model/artifact';
import { buildKustomization } from '../server/src/engine/flux/model/build';
import { BuildBounds, isBelow } from '../server/src/engine/flux/model/build-bounds';
import { Layout } from '../server/src/engine/flux/model/layout';
import { syntheticKustomization } from '../server/src/engine/flux/model/roots';
import { auditFiles, brief } from './helpers/memory-fs';

/** A kustomization file in `dir` whose resources are the given repository paths (null: leaves the repository). */
function config(dir: string, resources: Array<string | null>): KustomizeConfig {
  const refs: PathRef[] = resources.map((path) => ({ path, written: path ?? '../../..', span: null }));
  return { file: `${dir === '' ? '' : dir + '/'}kustomization.yaml`, resources: refs, components: [], patches: [], kustomizationPatches: [], namespace: null, generators: [] };
}

describe('the bound of a build', () => {
  const table: Array<[string, KustomizeConfig[], string, string[]]> = [
    ['a folder without a kustomization file', [], 'apps', ['apps']],
    ['references inside the folder', [config('apps', ['apps/web', 'apps/db.yaml'])], 'apps', ['apps']],
    ['a base beside it', [config('apps/prod', ['apps/base'])], 'apps/prod', ['apps/prod', 'apps/base']],
    ['the base, from the folder above both', [config('apps/prod', ['apps/base'])], 'apps', ['apps']],
    ['a chain of bases', [config('apps/prod', ['shared/base']), config('shared/base', ['common/crds.yaml'])], 'apps/prod', ['apps/prod', 'shared/base', 'common/crds.yaml']],
    ['a reference from a sub-folder', [config('clusters/prod/infra', ['infra/base'])], 'clusters/prod', ['clusters/prod', 'infra/base']],
    ['a cycle of references', [config('a', ['b']), config('b', ['a'])], 'a', ['a', 'b']],
    ['a reference out of the repository', [config('apps', [null])], 'apps', ['apps']],
    ['the root holds everything', [config('apps', ['other'])], '', ['']],
  ];
  for (const [what, configs, start, expected] of table) {
    test(what, () => assert.deepEqual(new BuildBounds(configs).reach([start]), expected));
  }
});

/** A random repository: files in a few folders, kustomization files referencing anything anywhere. */
const layoutArb = fc
  .record({
    files: fc.uniqueArray(fc.constantFrom('a/x.yaml', 'a/b/y.yaml', 'a/b/c/z.yaml', 'd/w.yaml', 'd/e/v.yaml', 'f.yaml', 'a/e/u.yaml'), { minLength: 1 }),
    configs: fc.array(
      fc.record({
        dir: fc.constantFrom('', 'a', 'a/b', 'a/b/c', 'd', 'd/e', 'a/e'),
        refs: fc.array(fc.constantFrom('a', 'a/b', 'a/b/c', 'd', 'd/e', 'a/e', 'a/x.yaml', 'd/e/v.yaml', 'f.yaml', null), { maxLength: 4 }),
      }),
      { maxLength: 5 },
    ),
    start: fc.constantFrom('', 'a', 'a/b', 'a/b/c', 'd', 'd/e', 'a/e'),
  })
  .map(({ files, configs, start }) => {
    const byDir = new Map(configs.map((c) => [c.dir, config(c.dir, c.refs)]));
    return { files: new Set([...files, ...[...byDir.values()].map((c) => c.file)]), configs: [...byDir.values()], start };
  });

test('every file a real build adds lies below its bound (random layouts, 2,000 cases)', () => {
  fc.assert(
    fc.property(layoutArb, ({ files, configs, start }) => {
      const facts = new Map(configs.map((c) => [c.file, { kustomize: c } as unknown as FileFacts]));
      const layout = new Layout(files, facts);
      if (!layout.hasDir(start)) return;
      const artifact = new ArtifactIndex(makeArtifact('test', 'the repository', '', new Map(), null, ''));
      const k = syntheticKustomization('k', 'flux-system', 'k.yaml', [0, 0], `./${start}`, 'GitRepository', 'flux-system');
      const roots = new BuildBounds(configs).reach([start]);
      for (const file of buildKustomization(k, artifact, layout).files.keys()) {
        assert.ok(
          roots.some((root) => isBelow(file, root)),
          `${file} (built from ${start || '.'}) lies below none of ${JSON.stringify(roots)}; ${JSON.stringify(configs.map((c) => [dirnameOf(c.file), c.resources.map((r) => r.path)]))}`,
        );
      }
    }),
    { numRuns: 2000, seed: 24 },
  );
});

describe('a bootstrap whose own file only a `../` reference reaches', () => {
  const ks = (name: string, path: string, extra = '') =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
  const gitRepository =
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://github.com/example/home-ops\n  ref:\n    branch: main\n';
  const script = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    echo ${UNSET}\n';
  const files = {
    'flux/config/sync.yaml': `${gitRepository}---\n${ks('flux-system', './clusters/prod')}`,
    'clusters/prod/kustomization.yaml': 'resources:\n  - ../../flux/config/sync.yaml\n  - apps.yaml\n',
    'clusters/prod/apps.yaml': ks('apps', './apps/prod', '  postBuild:\n    substitute:\n      CLUSTER: prod\n'),
    'apps/prod/config.yaml': script,
  };
  const modelFindings = async (repo: Record<string, string>) => (await auditFiles(repo)).findings.filter((f) => f.rule.startsWith('flux-')).map(brief);

  test('it applies itself: it is the root, no root is assumed', async () => {
    assert.deepEqual(await modelFindings(files), ['flux-substitution-undefined apps/prod/config.yaml:7:10']);
  });

  test('control: without the reference it applies nothing of its own, and the root is assumed', async () => {
    const findings = await modelFindings({ ...files, 'clusters/prod/kustomization.yaml': 'resources:\n  - apps.yaml\n' });
    assert.ok(
      findings.some((finding) => finding.startsWith('flux-no-root')),
      findings.join('\n'),
    );
  });
});

test('Kustomizations that start at one folder share its build; spec.components adds to a copy, never to it', () => {
  const files = new Set(['apps/web.yaml', 'apps/db.yaml', 'extra/cm.yaml', 'extra/kustomization.yaml']);
  const extra = { ...config('extra', ['extra/cm.yaml']), file: 'extra/kustomization.yaml' };
  const layout = new Layout(files, new Map([[extra.file, { kustomize: extra } as unknown as FileFacts]]));
  const artifact = new ArtifactIndex(makeArtifact('test', 'the repository', '', new Map(), null, ''));
  const plain = (name: string) => syntheticKustomization(name, 'flux-system', `${name}.yaml`, [0, 0], './apps', 'GitRepository', 'flux-system');
  const withComponent = { ...plain('c'), components: [{ path: 'extra', written: '../extra', span: null }] };
  const first = buildKustomization(plain('a'), artifact, layout);
  const componentBuild = buildKustomization(withComponent, artifact, layout);
  const second = buildKustomization(plain('b'), artifact, layout);
  assert.deepEqual([...first.files.keys()], ['apps/web.yaml', 'apps/db.yaml']);
  assert.deepEqual([...componentBuild.files.keys()], ['apps/web.yaml', 'apps/db.yaml', 'extra/kustomization.yaml', 'extra/cm.yaml']);
  assert.deepEqual([...second.files.keys()], ['apps/web.yaml', 'apps/db.yaml'], 'the shared folder build is unchanged');
  assert.equal(second.files, first.files, 'one map for both');
});
