// The Flux version a FluxInstance pins decides what an undefined ${NAME} does
// (issue 26.6): strict substitution is kustomize-controller's default only from
// Flux 2.9 (shared/spec/flux-substitution.md), so under an older pinned Flux the
// name is blanked and the message must say so. A contract that writes
// flux.strict wins; an unknown or newer version keeps the default (strict).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newestMinor, predatesStrictDefault } from '../server/src/engine/flux/model/flux-version';
import { inlayHints } from '../server/src/engine/editor/inlay-hints';
import { defaultContract } from '../server/src/engine/contract/load';
import { RepoIndex } from '../server/src/engine/pipeline/repo-index';
import { buildRepoIndex } from '../server/src/engine/pipeline/audit';
import { hoverAt } from '../server/src/engine/editor/hover';
import { plainLink } from '../server/src/engine/editor/link';
import { auditFiles, memoryFs } from './helpers/memory-fs';

const SCRIPT = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    echo ${UNSET}\n';

function ks(name: string, path: string): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      CLUSTER: main\n`;
}

/** A FluxInstance that syncs clusters/<cluster>; `version` null: no distribution.version. */
function fluxInstance(version: string | null, cluster = 'main'): string {
  const distribution = version === null ? '' : `  distribution:\n    version: "${version}"\n    registry: ghcr.io/fluxcd\n`;
  return `apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n${distribution}  sync:\n    kind: GitRepository\n    url: https://github.com/example/fleet\n    ref: refs/heads/main\n    path: clusters/${cluster}\n`;
}

/** The same FluxInstance as the flux-instance chart's HelmRelease writes it (spec.values.instance). */
function instanceRelease(version: string): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  interval: 1h\n  chartRef:\n    kind: OCIRepository\n    name: flux-instance\n  values:\n    instance:\n      distribution:\n        version: ${version}\n      sync:\n        kind: GitRepository\n        url: https://github.com/example/fleet\n        path: clusters/main\n`;
}

function fleet(instance: string, contract?: string): Record<string, string> {
  return {
    'clusters/main/flux-system/flux-instance.yaml': instance,
    'clusters/main/apps.yaml': ks('apps', './apps'),
    'apps/config.yaml': SCRIPT,
    ...(contract === undefined ? {} : { '.flux-job-guard.yaml': contract }),
  };
}

/** The message of the one flux-substitution-undefined finding. */
async function undefinedMessage(files: Record<string, string>): Promise<string> {
  const found = (await auditFiles(files)).findings.filter((f) => f.rule === 'flux-substitution-undefined');
  assert.equal(found.length, 1, JSON.stringify(found.map((f) => f.message)));
  assert.equal(found[0].severity, 'error');
  return found[0].message;
}

const FAILS = /: Flux fails the reconcile \(strict substitution\)\./;
const BLANKS = /: Flux replaces it with an empty string \(clusters\/main\/flux-system\/flux-instance\.yaml pins Flux 2\.6\.x: strict substitution is the default only from Flux 2\.9\)\./;

describe('a FluxInstance pins the Flux version', () => {
  test('pinned before 2.9: the undefined name is blanked, and the message says which pin makes it so', async () => {
    assert.match(await undefinedMessage(fleet(fluxInstance('2.6.x'))), BLANKS);
  });

  test('pinned at 2.9 or later, or a version without an upper minor (2.x), or none: Flux fails the reconcile (negative controls)', async () => {
    for (const version of ['2.9.x', '2.10.0', '2.x', '>=2.3.0', null]) assert.match(await undefinedMessage(fleet(fluxInstance(version))), FAILS, String(version));
  });

  test('a FluxInstance inside a HelmRelease’s values pins it too', async () => {
    assert.match(await undefinedMessage(fleet(instanceRelease('2.6.x'))), BLANKS);
    assert.match(await undefinedMessage(fleet(instanceRelease('2.9.x'))), FAILS);
  });

  test('the contract’s flux.strict wins over the pin, either way', async () => {
    assert.match(await undefinedMessage(fleet(fluxInstance('2.6.x'), 'flux:\n  strict: true\n')), FAILS);
    const lenient = await undefinedMessage(fleet(fluxInstance('2.9.x'), 'flux:\n  strict: false\n'));
    assert.match(lenient, /: Flux replaces it with an empty string\./);
    // Without flux.strict written, a contract keeps the pin's say.
    assert.match(await undefinedMessage(fleet(fluxInstance('2.6.x'), 'ttl:\n  required: 86400\n')), BLANKS);
  });

  test('per world: of two clusters, only the one pinned before 2.9 blanks', async () => {
    const files = {
      'clusters/old/flux-system/flux-instance.yaml': fluxInstance('2.6.x', 'old'),
      'clusters/old/apps.yaml': ks('apps', './apps'),
      'clusters/new/flux-system/flux-instance.yaml': fluxInstance('2.9.x', 'new'),
      'clusters/new/apps.yaml': ks('apps', './apps'),
      'apps/config.yaml': SCRIPT,
    };
    const message = await undefinedMessage(files);
    assert.match(
      message,
      /Flux fails the reconcile \(strict substitution\) in Kustomization "apps" \(clusters\/new\), and replaces it with an empty string \(clusters\/old\/flux-system\/flux-instance\.yaml pins Flux 2\.6\.x: [^)]*\) in "apps" \(clusters\/old\)\./,
    );
  });

  test('the editor follows the pin too: the inlay hint says (unset), not (fails: strict)', () => {
    const hintsFor = (files: Record<string, string>, strict?: boolean) => {
      const index = new RepoIndex();
      index.setFiles(Object.keys(files));
      for (const [path, text] of Object.entries(files)) index.update(path, text);
      const contract = { ...defaultContract('.flux-job-guard.yaml'), ...(strict === undefined ? {} : { strict, strictFrom: 'contract' as const }) };
      return inlayHints(index, contract, 'apps/config.yaml', SCRIPT, 0, SCRIPT.length).map((hint) => hint.label);
    };
    assert.deepEqual(hintsFor(fleet(fluxInstance('2.6.x'))), ['(unset)']);
    assert.deepEqual(hintsFor(fleet(fluxInstance('2.9.x'))), ['(fails: strict)']);
    assert.deepEqual(hintsFor(fleet(fluxInstance('2.6.x')), true), ['(fails: strict)']);
  });

  test('the hover says what the pinned Flux does with the name', async () => {
    const hover = async (files: Record<string, string>) => {
      const contract = defaultContract('.flux-job-guard.yaml');
      const index = await buildRepoIndex(memoryFs(files), Object.keys(files), contract);
      const found = hoverAt(
        index,
        contract,
        'apps/config.yaml',
        SCRIPT,
        SCRIPT.indexOf('${UNSET}') + 2,
        plainLink((file) => files[file]),
      );
      assert.ok(found, 'a hover');
      return found.markdown;
    };
    const old = await hover(fleet(fluxInstance('2.6.x')));
    assert.match(old, /is not defined by Kustomization `apps` \([^)]*\): Flux makes it empty\./);
    assert.match(old, /Flux renders this line as:\n\n```text\necho \n```/);
    const current = await hover(fleet(fluxInstance('2.9.x')));
    assert.match(current, /is not defined by Kustomization `apps` \([^)]*\): Flux fails the reconcile \(strict substitution\)\./);
    assert.match(current, /Flux fails: variable not set \(strict mode\): "UNSET"/);
  });
});

describe('reading distribution.version as the operator does (a semver constraint)', () => {
  test('the newest minor each form admits', () => {
    const cases: Array<[string, string | null]> = [
      ['2.6.x', '2.6'],
      ['2.6.3', '2.6'],
      ['v2.7.0', '2.7'],
      ['~2.8', '2.8'],
      ['>=2.3.0 <2.9.0', '2.8'],
      ['<2.9.1', '2.9'],
      ['<=2.8.2', '2.8'],
      ['2.4.x || 2.5.x', '2.5'],
      ['2.x', '2.Infinity'],
      ['^2.3', '2.Infinity'],
      ['>=2.3', null],
      ['2.4.x || >=2.6', null],
      ['latest', null],
    ];
    for (const [version, expected] of cases) {
      const found = newestMinor(version);
      assert.equal(found === null ? null : `${found.major}.${found.minor}`, expected, version);
    }
  });

  test('older than 2.9 only where every admitted version is', () => {
    assert.deepEqual(
      ['2.8.x', '1.x', '<2.9', '2.9.0', '2.9.x', '2.10', '2.x', '3.0', 'main'].map((v) => [v, predatesStrictDefault(v)]),
      [
        ['2.8.x', true],
        ['1.x', true],
        ['<2.9', true],
        ['2.9.0', false],
        ['2.9.x', false],
        ['2.10', false],
        ['2.x', false],
        ['3.0', false],
        ['main', false],
      ],
    );
  });
});
