// The parser against go-yaml v3's own verdict on every YAML file of the shared corpus
// (../shared/oracles/go-yaml/corpus.tsv; no Go needed here): no file go-yaml decodes gets a syntax
// error, but where kustomize (Flux's build, go-yaml underneath) is itself stricter than the oracle's
// decoder; no file go-yaml rejects is read without one. The negative control reads the files known
// to disagree with YAML 1.2 (the `*app:` keys of bjw-s app-template HelmReleases, quoted scalars
// wrapped at their key's column) with the go-yaml reading switched off: the comparison must find them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseYamlFile } from '../server/src/engine/yaml/documents';
import { compareWithOracle, describeComparison, KUSTOMIZE_STRICTER, oracleAvailable, readOracle } from './go-yaml-oracle/oracle';

/** How many files of the corpus kustomize refuses for a reason the oracle's decoder does not see (each checked with `kubectl kustomize`). */
const STRICTER_BOUND: Record<string, number> = {
  [KUSTOMIZE_STRICTER.duplicateKey]: 1, // Ramblurr__home-ops/.github/yamllint.config.yaml: `comments:` twice (a yamllint config nothing applies)
  [KUSTOMIZE_STRICTER.aliasAcrossPieces]: 0,
};

/** Files YAML 1.2 (the `yaml` package alone) rejects and go-yaml decodes: what the go-yaml reading is for. */
const KNOWN_YAML_12_DISAGREEMENTS = [
  'Jdavid77__home-cluster/k8s/apps/default/live-metrics/app/helm-release.yaml',
  'Jdavid77__home-cluster/k8s/apps/default/personal-blog/app/helm-release.yaml',
  'Jdavid77__home-cluster/k8s/apps/media/booklore/app/helm-release.yaml',
  'Jdavid77__home-cluster/k8s/apps/media/shelfmark/app/helm-release.yaml',
  'gavinmcfall__home-ops/kubernetes/apps/observability/exporters/ipmi-exporter/app/helmrelease.yaml',
  'rafaribe__home-ops/kubernetes/apps/services/littlelink/app/helmrelease.yaml',
  'DoD-Platform-One__bigbang/docs/reference/configs/zarf/metallb/metallb-native-0.13.9.yaml',
  'sulibot__home-ops/ansible/_archive/lae.proxmox-legacy/collections/ansible_collections/community/general/tests/integration/targets/scaleway_user_data/defaults/main.yml',
];

test('go-yaml oracle: no syntax error on a file go-yaml decodes (but where kustomize is stricter), none missed where it rejects one', (t) => {
  if (!oracleAvailable()) {
    const message = 'ORACLE MISSING: ../shared/oracles/go-yaml/corpus.tsv or ../shared/corpus does not exist, so the parser was not compared with go-yaml.';
    console.warn(`\n!!! ${message}\n`);
    t.skip(message);
    return;
  }
  const rows = readOracle();
  assert.ok(rows.length > 20_000, `the oracle lists ${rows.length} files`);
  const comparison = compareWithOracle(rows, (text) => parseYamlFile(text));
  console.log(describeComparison(comparison));
  const falseErrors = [...comparison.weReject].filter(([cause]) => !(cause in STRICTER_BOUND));
  assert.deepEqual(falseErrors, [], 'files go-yaml decodes and we report a syntax error in');
  for (const [cause, bound] of Object.entries(STRICTER_BOUND)) {
    const files = comparison.weReject.get(cause) ?? [];
    assert.ok(files.length <= bound, `${files.length} files (at most ${bound}): ${cause}: ${files.map((f) => f.path).join(', ')}`);
  }
  assert.deepEqual([...comparison.weAccept], [], 'files go-yaml rejects and we read without an error');
});

test('go-yaml oracle, negative control: with the go-yaml reading switched off, the comparison finds the files known to disagree', (t) => {
  if (!oracleAvailable()) {
    t.skip('ORACLE MISSING');
    return;
  }
  const rows = readOracle().filter((row) => KNOWN_YAML_12_DISAGREEMENTS.includes(row.path));
  assert.equal(rows.length, KNOWN_YAML_12_DISAGREEMENTS.length, 'the oracle lists every known file');
  assert.ok(
    rows.every((row) => row.error === null),
    'go-yaml decodes them all',
  );
  const strict = compareWithOracle(rows, (text) => parseYamlFile(text, 'yaml-1.2'));
  const found = [...strict.weReject.values()].flat().map((d) => d.path);
  assert.deepEqual(found.sort(), [...KNOWN_YAML_12_DISAGREEMENTS].sort());
  assert.ok(
    [...strict.weReject.keys()].every((cause) => !(cause in STRICTER_BOUND)),
    'each is a false syntax error, not a kustomize cause',
  );
  // and the go-yaml reading, on the same files, finds none
  assert.equal(compareWithOracle(rows, (text) => parseYamlFile(text)).weReject.size, 0);
});
