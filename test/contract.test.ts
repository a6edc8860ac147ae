// The contract file (contract.md): its schema checks (loadContract), and every
// check of the contract against the manifests, each with a passing repository
// and a mutation of it that must go red (the negative control). The checks run
// through the engine's own audit() over an in-memory repository.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { audit, AuditResult } from '../server/src/engine/pipeline/audit';
import { loadContract } from '../server/src/engine/contract/load';
import { DEFAULT_INCLUDE } from '../server/src/engine/contract/model';
import type { ReadResult, RepoFs } from '../server/src/engine/base/repo-fs';
import { RULE_IDS } from '../server/src/engine/rules/registry';
import type { Finding } from '../server/src/engine/base/types';
import { applyFileEdits, lines } from './helpers/table';

const CONTRACT = '.flux-job-guard.yaml';

/** A RepoFs over a map of repository-relative paths to texts. */
function memoryFs(files: Record<string, string>): RepoFs {
  const map = new Map(Object.entries(files));
  return {
    listFiles: () => Promise.resolve([...map.keys()]),
    read: (path: string): Promise<ReadResult> => Promise.resolve(map.has(path) ? { kind: 'text', text: map.get(path)! } : { kind: 'missing' }),
  };
}

/** `rule file line:char-line:char` (0-based), the form every assertion below compares. */
function where(finding: Finding): string {
  const { start, end } = finding.range;
  return `${finding.rule} ${finding.file} ${start.line}:${start.character}-${end.line}:${end.character}`;
}

async function run(files: Record<string, string>): Promise<AuditResult> {
  return audit(memoryFs(files));
}

async function findingsOf(files: Record<string, string>): Promise<string[]> {
  return (await run(files)).findings.map(where);
}

function load(text: string | undefined) {
  return loadContract(CONTRACT, text, {}, RULE_IDS);
}

// ---------------------------------------------------------------------------------------------
// Schema checks: each error is contract-invalid, on the key, and its message names the key.
// ---------------------------------------------------------------------------------------------

describe('loadContract: schema', () => {
  test('the example of contract.md loads without a problem (the negative control of every schema case)', () => {
    const example = lines(
      '# .flux-job-guard.yaml',
      'jobs:',
      '  include:                  # globs relative to this file; default: ["**/*.yaml", "**/*.yml"]',
      '    - kubernetes/flux/infrastructure/**',
      '  exclude: []               # globs; node_modules/ and .git/ are always excluded',
      'ttl:',
      '  required: 86400           # the finish timeout every Job must set; default 86400',
      '  convergenceNote: "converges:"   # marker of the comment that says why a re-run converges',
      '  noFinishTimeout:          # Jobs that must keep NO ttlSecondsAfterFinished',
      '    - file: kubernetes/flux/infrastructure/forgejo-users/repository-bootstrap.yaml',
      '      job: binjovi-repository-bootstrap-v1      # optional; without it: every Job in the file',
      '      reason: The 40 indexed completions are the import evidence for the 40 repositories.',
      '  otherFinishTimeout:       # Jobs that keep another exact value on purpose',
      '    - file: kubernetes/flux/infrastructure/argocd/manifest.yaml',
      '      job: argocd-redis-secret-init',
      '      value: 60',
      '      reason: Rendered output of the upstream Argo CD chart; the value comes from the chart.',
      'serviceAccounts:',
      '  external:                 # accounts that something outside this repository creates',
      '    - name: platform-bot',
      '      namespace: bake       # optional',
      "      reason: Created by the platform team's own repository.",
      'flux:',
      '  substitution: auto        # auto: as the Flux Kustomizations in the repo say | always | never (see flux-substitution.md)',
      '  strict: true              # Flux >= 2.9 default; false for clusters that opt out of strict substitution',
      'rules:                      # optional severity overrides: error | warning | info | off',
      '  ttl-convergence-note: warning',
    );
    const { contract, findings } = load(example);
    assert.deepEqual(findings, []);
    assert.deepEqual(contract.include, ['kubernetes/flux/infrastructure/**']);
    assert.equal(contract.requiredTtl, 86400);
    assert.equal(contract.convergenceNote, 'converges:');
    assert.deepEqual(
      contract.noFinishTimeout.map((e) => [e.list, e.file, e.job, e.reason]),
      [
        [
          'noFinishTimeout',
          'kubernetes/flux/infrastructure/forgejo-users/repository-bootstrap.yaml',
          'binjovi-repository-bootstrap-v1',
          'The 40 indexed completions are the import evidence for the 40 repositories.',
        ],
      ],
    );
    assert.deepEqual(
      contract.otherFinishTimeout.map((e) => [e.file, e.job, e.value]),
      [['kubernetes/flux/infrastructure/argocd/manifest.yaml', 'argocd-redis-secret-init', 60]],
    );
    assert.deepEqual(
      contract.externalAccounts.map((a) => [a.name, a.namespace]),
      [['platform-bot', 'bake']],
    );
    assert.equal(contract.strict, true);
    assert.equal(contract.substitution, 'auto');
    assert.deepEqual(contract.rules, { 'ttl-convergence-note': 'warning' });
    assert.deepEqual(contract.includeSpan, [example.indexOf('include:'), example.indexOf('include:') + 'include'.length]);
  });

  const cases: Array<{ name: string; text: string; range: [number, number, number, number]; message: string; rule?: string }> = [
    { name: 'unknown top-level key, with a suggestion', text: lines('rulez:', '  ttl-missing: off'), range: [0, 0, 0, 5], message: 'Unknown key `rulez` (did you mean `rules`?).' },
    { name: 'unknown nested key, with a suggestion', text: lines('ttl:', '  requird: 3600'), range: [1, 2, 1, 9], message: 'Unknown key `ttl.requird` (did you mean `required`?).' },
    { name: 'unknown key without a close name', text: lines('colour: blue'), range: [0, 0, 0, 6], message: 'Unknown key `colour`.' },
    {
      name: 'unknown key in a list entry',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: a.yaml', '      jobb: x', '      reason: r'),
      range: [3, 6, 3, 10],
      message: 'Unknown key `ttl.noFinishTimeout[0].jobb` (did you mean `job`?).',
    },
    { name: 'ttl is not a mapping', text: lines('ttl: 5'), range: [0, 5, 0, 6], message: '`ttl` must be a mapping.' },
    { name: 'the root is not a mapping', text: lines('- a', '- b'), range: [0, 0, 2, 0], message: '`(root)` must be a mapping.' },
    { name: 'jobs.include is not a list', text: lines('jobs:', '  include: "k/**"'), range: [1, 11, 1, 17], message: '`jobs.include` must be a list.' },
    { name: 'a list item is not a string', text: lines('jobs:', '  exclude:', '    - 5'), range: [2, 6, 2, 7], message: '`jobs.exclude[0]` must be a string.' },
    { name: 'noFinishTimeout is not a list', text: lines('ttl:', '  noFinishTimeout: {}'), range: [1, 19, 1, 21], message: '`ttl.noFinishTimeout` must be a list.' },
    { name: 'an entry is not a mapping', text: lines('ttl:', '  noFinishTimeout:', '    - a.yaml'), range: [2, 6, 2, 12], message: '`ttl.noFinishTimeout[0]` must be a mapping.' },
    {
      name: 'job is not a string',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: a.yaml', '      job: 5', '      reason: r'),
      range: [3, 11, 3, 12],
      message: '`ttl.noFinishTimeout[0].job` must be a string.',
    },
    {
      name: 'an entry without file',
      text: lines('ttl:', '  noFinishTimeout:', '    - job: x', '      reason: r'),
      range: [2, 6, 2, 12],
      message: '`ttl.noFinishTimeout[0]` has no `file`: name the manifest the entry is about.',
    },
    {
      name: 'an otherFinishTimeout entry without value',
      text: lines('ttl:', '  otherFinishTimeout:', '    - file: a.yaml', '      reason: r'),
      range: [2, 6, 2, 18],
      message: '`ttl.otherFinishTimeout[0]` has no `value`: say which finish timeout the Job keeps.',
    },
    { name: 'a negative required value', text: lines('ttl:', '  required: -1'), range: [1, 12, 1, 14], message: '`ttl.required` must be a non-negative integer.' },
    { name: 'a non-integer required value', text: lines('ttl:', '  required: 1.5'), range: [1, 12, 1, 15], message: '`ttl.required` must be a non-negative integer.' },
    { name: 'a quoted required value', text: lines('ttl:', '  required: "3600"'), range: [1, 12, 1, 18], message: '`ttl.required` must be a non-negative integer.' },
    { name: 'a float written as an exponent', text: lines('ttl:', '  required: 8.64e4'), range: [1, 12, 1, 18], message: '`ttl.required` must be a non-negative integer.' },
    {
      name: 'a negative otherFinishTimeout value',
      text: lines('ttl:', '  otherFinishTimeout:', '    - file: a.yaml', '      value: -5', '      reason: r'),
      range: [3, 13, 3, 15],
      message: '`ttl.otherFinishTimeout[0].value` must be a non-negative integer.',
    },
    { name: 'an empty convergence marker', text: lines('ttl:', '  convergenceNote: ""'), range: [1, 19, 1, 21], message: '`ttl.convergenceNote` must not be empty.' },
    {
      name: 'file: with .. outside the repository',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: k/../../x.yaml', '      reason: r'),
      range: [2, 12, 2, 26],
      message: '`ttl.noFinishTimeout[0].file` points outside the repository (k/../../x.yaml): entries name files inside it.',
    },
    {
      name: 'file: an absolute path',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: /etc/x.yaml', '      reason: r'),
      range: [2, 12, 2, 23],
      message: '`ttl.noFinishTimeout[0].file` points outside the repository (/etc/x.yaml): entries name files inside it.',
    },
    {
      name: 'file: a glob',
      text: lines('ttl:', '  otherFinishTimeout:', '    - file: k/*.yaml', '      value: 60', '      reason: r'),
      range: [2, 12, 2, 20],
      message: '`ttl.otherFinishTimeout[0].file` must name one file, not a glob.',
    },
    {
      name: 'file: empty',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: ""', '      reason: r'),
      range: [2, 12, 2, 14],
      message: '`ttl.noFinishTimeout[0].file` is empty: name the manifest the entry is about.',
    },
    { name: 'a malformed glob in include', text: lines('jobs:', '  include:', '    - "k/[z-a]"'), range: [2, 6, 2, 15], message: '`jobs.include[0]`: the glob "k/[z-a]" is malformed.' },
    { name: 'an unclosed brace in include', text: lines('jobs:', '  include:', '    - "k/{a,b"'), range: [2, 6, 2, 14], message: '`jobs.include[0]`: the glob "k/{a,b" is malformed.' },
    {
      name: 'an include glob outside the repository',
      text: lines('jobs:', '  include:', '    - ../other/**'),
      range: [2, 6, 2, 17],
      message: '`jobs.include[0]`: the glob "../other/**" points outside the repository.',
    },
    { name: 'a key written twice', text: lines('ttl:', '  required: 3600', '  required: 60'), range: [2, 2, 2, 10], message: 'Key `ttl.required` is written twice.' },
    { name: 'a top-level key written twice', text: lines('jobs:', '  include: ["k/**"]', 'jobs:', '  exclude: []'), range: [2, 0, 2, 4], message: 'Key `jobs` is written twice.' },
    {
      name: 'a key written twice in an entry',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: a.yaml', '      file: b.yaml', '      reason: r'),
      range: [3, 6, 3, 10],
      message: 'Key `ttl.noFinishTimeout[0].file` is written twice.',
    },
    { name: 'a rule written twice', text: lines('rules:', '  ttl-missing: off', '  ttl-missing: error'), range: [2, 2, 2, 13], message: 'Key `rules.ttl-missing` is written twice.' },
    { name: 'an unknown rule id, with a suggestion', text: lines('rules:', '  ttl-misng: off'), range: [1, 2, 1, 11], message: 'Unknown rule `rules.ttl-misng` (did you mean `ttl-missing`?).' },
    { name: 'an unknown severity', text: lines('rules:', '  ttl-missing: loud'), range: [1, 15, 1, 19], message: '`rules.ttl-missing` must be one of error, warning, info, off.' },
    { name: 'flux.strict not a boolean', text: lines('flux:', '  strict: yes'), range: [1, 10, 1, 13], message: '`flux.strict` must be true or false.' },
    { name: 'flux.substitution not a mode', text: lines('flux:', '  substitution: sometimes'), range: [1, 16, 1, 25], message: '`flux.substitution` must be one of auto, always, never.' },
    {
      name: 'not YAML',
      text: lines('ttl:', '  required: [1, 2'),
      range: [2, 0, 2, 0],
      message: 'The contract file is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    },
    { name: 'two documents', text: lines('ttl: {}', '---', 'jobs: {}'), range: [2, 0, 3, 0], message: 'The contract file must hold one YAML document.' },
    {
      name: 'an entry without a reason',
      rule: 'contract-reason-missing',
      text: lines('ttl:', '  noFinishTimeout:', '    - file: a.yaml'),
      range: [2, 6, 2, 18],
      message: '`ttl.noFinishTimeout[0]` has no reason: write down why this is an exception.',
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const { findings } = load(c.text);
      assert.deepEqual(
        findings.map((f) => ({ rule: f.rule, severity: f.severity, file: f.file, range: [f.range.start.line, f.range.start.character, f.range.end.line, f.range.end.character], message: f.message })),
        [{ rule: c.rule ?? 'contract-invalid', severity: 'error', file: CONTRACT, range: c.range, message: c.message }],
      );
    });
  }

  test('a file: that goes down and up again stays inside and is normalized (negative control of ..)', () => {
    const { contract, findings } = load(lines('ttl:', '  noFinishTimeout:', '    - file: ./k/sub/../import.yaml', '      reason: r'));
    assert.deepEqual(findings, []);
    assert.deepEqual(
      contract.noFinishTimeout.map((e) => [e.file, e.fileAsWritten]),
      [['k/import.yaml', './k/sub/../import.yaml']],
    );
  });

  test("file: paths are relative to the contract file's folder", () => {
    const { contract, findings } = loadContract('ops/guard.yaml', lines('ttl:', '  noFinishTimeout:', '    - file: ../k/import.yaml', '      reason: r'), {}, RULE_IDS);
    assert.deepEqual(findings, []);
    assert.equal(contract.noFinishTimeout[0].file, 'k/import.yaml');
  });

  test('the rest of a contract still counts when one key is wrong', () => {
    const { contract, findings } = load(lines('ttl:', '  required: 3600', '  requird: 60', 'rules:', '  ttl-convergence-note: error'));
    assert.deepEqual(
      findings.map((f) => f.message),
      ['Unknown key `ttl.requird` (did you mean `required`?).'],
    );
    assert.equal(contract.requiredTtl, 3600);
    assert.deepEqual(contract.rules, { 'ttl-convergence-note': 'error' });
  });

  for (const [name, text] of [
    ['an empty file', ''],
    ['a file with only comments', lines('# nothing yet')],
    ['a file with only ---', lines('---')],
    ['no file at all', undefined],
  ] as const) {
    test(`${name}: every default applies`, () => {
      const { contract, findings } = load(text);
      assert.deepEqual(findings, []);
      assert.equal(contract.exists, text !== undefined);
      assert.deepEqual(contract.include, DEFAULT_INCLUDE);
      assert.deepEqual(contract.exclude, []);
      assert.equal(contract.requiredTtl, 86400);
      assert.equal(contract.convergenceNote, 'converges:');
      assert.deepEqual([contract.noFinishTimeout, contract.otherFinishTimeout, contract.externalAccounts], [[], [], []]);
      assert.equal(contract.strict, true);
      assert.equal(contract.substitution, 'auto');
      assert.equal(contract.includeSpan, null);
    });
  }

  test('settings fill in what the file does not say; the file wins where both speak', () => {
    assert.equal(loadContract(CONTRACT, lines('jobs: {}'), { requiredTtl: 600 }, RULE_IDS).contract.requiredTtl, 600);
    assert.equal(loadContract(CONTRACT, lines('ttl:', '  required: 3600'), { requiredTtl: 600 }, RULE_IDS).contract.requiredTtl, 3600);
    const rules = loadContract(CONTRACT, lines('rules:', '  ttl-missing: warning'), { rules: { 'ttl-missing': 'off', 'ttl-invalid': 'info' } }, RULE_IDS).contract.rules;
    assert.deepEqual(rules, { 'ttl-missing': 'warning', 'ttl-invalid': 'info' });
  });
});

// ---------------------------------------------------------------------------------------------
// The contract checked against the manifests: a passing repository, and mutations that go red.
// ---------------------------------------------------------------------------------------------

const IMPORT = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: import-v1', 'spec:', '  backoffLimit: 2');
const IMPORT_WITH_TTL = lines(
  'apiVersion: batch/v1',
  'kind: Job',
  'metadata:',
  '  name: import-v1',
  'spec:',
  '  # converges: the import skips repositories that exist',
  '  ttlSecondsAfterFinished: 86400',
  '  backoffLimit: 2',
);
const chart = (ttl: string) =>
  lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: redis-init', 'spec:', '  # converges: the init only creates the secret when it is missing', `  ttlSecondsAfterFinished: ${ttl}`);
const CONFIG = lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', 'data:', '  A: "1"');
const NIGHTLY = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: nightly', 'spec:', '  # converges: it only reads', '  ttlSecondsAfterFinished: 86400');

/** The contract of the passing repository; line numbers are 0-based. */
const NFT_IMPORT = ['    - file: k/import.yaml', '      job: import-v1', '      reason: Its completions are the record of the import.']; // lines 2-4
const OFT_CHART = ['    - file: k/chart.yaml', '      job: redis-init', '      value: 60', '      reason: The upstream chart sets it.']; // lines 6-9
const contractOf = (nft: string[], oft: string[], ...rest: string[]) => lines('ttl:', '  noFinishTimeout:', ...nft, '  otherFinishTimeout:', ...oft, ...rest);
const BASE_CONTRACT = contractOf(NFT_IMPORT, OFT_CHART);
const BASE = { [CONTRACT]: BASE_CONTRACT, 'k/import.yaml': IMPORT, 'k/chart.yaml': chart('60'), 'k/config.yaml': CONFIG, 'k/nightly.yaml': NIGHTLY };

describe('contract checks: the passing repository', () => {
  test('no finding, and the summary counts what the spec says', async () => {
    const result = await run(BASE);
    assert.deepEqual(result.findings.map(where), []);
    assert.deepEqual(result.summary, { files: 3, jobs: 3, withTtl: 2, keepNone: 1, errors: 0, warnings: 0 });
  });
});

describe('contract-file-missing', () => {
  test('passing: the named file exists', async () => assert.deepEqual(await findingsOf(BASE), []));
  test('red: the named file does not exist (and the Job it was about is no longer covered)', async () => {
    const files = { ...BASE, [CONTRACT]: contractOf(['    - file: k/gone.yaml', ...NFT_IMPORT.slice(1)], OFT_CHART) };
    const found = await run(files);
    assert.deepEqual(found.findings.map(where), ['contract-file-missing .flux-job-guard.yaml 2:12-2:23', 'ttl-missing k/import.yaml 4:0-4:4']);
    assert.match(found.findings[0].message, /names k\/gone\.yaml, which does not exist/);
  });
  test('red: the manifest was deleted', async () => {
    const { ['k/import.yaml']: _removed, ...files } = BASE;
    void _removed;
    assert.deepEqual(await findingsOf(files), ['contract-file-missing .flux-job-guard.yaml 2:12-2:25']);
  });
});

describe('contract-no-job', () => {
  test('passing: the file holds the named Job', async () => assert.deepEqual(await findingsOf(BASE), []));
  test('red: the file holds no Job at all', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(['    - file: k/config.yaml', ...NFT_IMPORT.slice(1)], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-no-job .flux-job-guard.yaml 2:12-2:25', 'ttl-missing k/import.yaml 4:0-4:4']);
    assert.match(result.findings[0].message, /names k\/config\.yaml, which holds no Job resource/);
  });
  test('red: a file-wide entry names a file without a Job', async () => {
    assert.deepEqual(await findingsOf({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT, '    - file: k/config.yaml', '      reason: Settings.'], OFT_CHART) }), [
      'contract-no-job .flux-job-guard.yaml 5:12-5:25',
    ]);
  });
  test('red: the job name is not in the file (reported on job:, naming the Jobs the file holds)', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(['    - file: k/import.yaml', '      job: import-v2', NFT_IMPORT[2]], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-no-job .flux-job-guard.yaml 3:11-3:20', 'ttl-missing k/import.yaml 4:0-4:4']);
    assert.match(result.findings[0].message, /it holds "import-v1"/);
  });
  test('red: a Job in a file the audit treats as a kustomize patch is not a Job', async () => {
    const files = { ...BASE, 'k/kustomization.yaml': lines('resources:', '  - chart.yaml', 'patches:', '  - path: import.yaml') };
    assert.deepEqual(await findingsOf(files), ['contract-no-job .flux-job-guard.yaml 2:12-2:25']);
  });
});

describe('contract-stale', () => {
  test('passing: the noFinishTimeout Job sets no TTL and the otherFinishTimeout Job keeps its value', async () => assert.deepEqual(await findingsOf(BASE), []));
  test('red: a noFinishTimeout Job now sets a TTL', async () => {
    const result = await run({ ...BASE, 'k/import.yaml': IMPORT_WITH_TTL });
    assert.deepEqual(result.findings.map(where), ['contract-stale .flux-job-guard.yaml 3:11-3:20', 'ttl-forbidden k/import.yaml 6:2-6:25']);
    assert.match(result.findings[0].message, /Job "import-v1" now sets ttlSecondsAfterFinished/);
  });
  test('red: a file-wide noFinishTimeout entry, one of whose Jobs now sets a TTL (reported on file:)', async () => {
    const result = await run({ ...BASE, 'k/import.yaml': IMPORT_WITH_TTL, [CONTRACT]: contractOf([NFT_IMPORT[0], NFT_IMPORT[2]], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-stale .flux-job-guard.yaml 2:12-2:25', 'ttl-forbidden k/import.yaml 6:2-6:25']);
  });
  test("red: an otherFinishTimeout Job's value differs (reported on value:)", async () => {
    const result = await run({ ...BASE, 'k/chart.yaml': chart('120') });
    assert.deepEqual(result.findings.map(where), ['contract-stale .flux-job-guard.yaml 8:13-8:15', 'ttl-unexpected-value k/chart.yaml 6:27-6:30']);
    assert.match(result.findings[0].message, /it allows 60, but Job "redis-init" sets 120/);
  });
  test('red: an otherFinishTimeout Job no longer sets a TTL', async () => {
    const result = await run({ ...BASE, 'k/chart.yaml': lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: redis-init', 'spec:', '  backoffLimit: 1') });
    assert.deepEqual(result.findings.map(where), ['contract-stale .flux-job-guard.yaml 8:13-8:15', 'ttl-missing k/chart.yaml 4:0-4:4']);
    assert.match(result.findings[0].message, /sets no TTL/);
  });
});

describe('contract-duplicate', () => {
  test('passing: two entries for two different Jobs of one file', async () => {
    const pair = lines(
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: a',
      'spec:',
      '  backoffLimit: 1',
      '---',
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: b',
      'spec:',
      '  backoffLimit: 1',
    );
    const contract = contractOf([...NFT_IMPORT, '    - file: k/pair.yaml', '      job: a', '      reason: Kept.', '    - file: k/pair.yaml', '      job: b', '      reason: Kept.'], OFT_CHART);
    const result = await run({ ...BASE, 'k/pair.yaml': pair, [CONTRACT]: contract });
    assert.deepEqual(result.findings.map(where), []);
    assert.equal(result.summary.keepNone, 3);
  });
  test('red: twice in one list (reported on the second entry)', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT, ...NFT_IMPORT], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-duplicate .flux-job-guard.yaml 6:11-6:20']);
    assert.match(result.findings[0].message, /Job "import-v1" is covered twice in noFinishTimeout/);
  });
  test('red: in both lists', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(NFT_IMPORT, [...OFT_CHART, '    - file: k/import.yaml', '      job: import-v1', '      value: 60', '      reason: Both.']) });
    // the second entry is also stale (the Job sets no TTL, the entry says 60)
    assert.deepEqual(result.findings.map(where), ['contract-duplicate .flux-job-guard.yaml 11:11-11:20', 'contract-stale .flux-job-guard.yaml 12:13-12:15']);
    assert.match(result.findings[0].message, /by both noFinishTimeout and otherFinishTimeout/);
  });
  test('red: a file-wide entry and a job entry for the same file', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf([NFT_IMPORT[0], '      reason: All of them.', ...NFT_IMPORT], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-duplicate .flux-job-guard.yaml 5:11-5:20']);
  });
  test('red: the same missing file named twice', async () => {
    const gone = ['    - file: k/gone.yaml', '      reason: Gone.'];
    const result = await run({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT, ...gone, ...gone], OFT_CHART) });
    assert.deepEqual(result.findings.map(where), [
      'contract-file-missing .flux-job-guard.yaml 5:12-5:23',
      'contract-duplicate .flux-job-guard.yaml 7:12-7:23',
      'contract-file-missing .flux-job-guard.yaml 7:12-7:23',
    ]);
  });
});

describe('contract-reason-missing', () => {
  test('passing: every entry has a reason', async () => assert.deepEqual(await findingsOf(BASE), []));
  test("red: no reason (reported on the entry's first line)", async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(NFT_IMPORT.slice(0, 2), OFT_CHART) });
    assert.deepEqual(result.findings.map(where), ['contract-reason-missing .flux-job-guard.yaml 2:6-2:25']);
    assert.match(result.findings[0].message, /`ttl\.noFinishTimeout\[0\]` has no reason/);
  });
  test('red: an empty reason', async () => {
    assert.deepEqual(await findingsOf({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT.slice(0, 2), '      reason: ""'], OFT_CHART) }), ['contract-reason-missing .flux-job-guard.yaml 4:14-4:16']);
  });
  test('red: a reason of only whitespace', async () => {
    assert.deepEqual(await findingsOf({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT.slice(0, 2), '      reason: "   "'], OFT_CHART) }), ['contract-reason-missing .flux-job-guard.yaml 4:14-4:19']);
  });
  test('red: a reason key without a value', async () => {
    assert.deepEqual(await findingsOf({ ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT.slice(0, 2), '      reason:'], OFT_CHART) }), ['contract-reason-missing .flux-job-guard.yaml 4:13-4:13']);
  });
  test('red: an otherFinishTimeout entry without reason', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(NFT_IMPORT, OFT_CHART.slice(0, 3)) });
    assert.deepEqual(result.findings.map(where), ['contract-reason-missing .flux-job-guard.yaml 6:6-6:24']);
    assert.match(result.findings[0].message, /`ttl\.otherFinishTimeout\[0\]` has no reason/);
  });
});

describe('contract-invalid', () => {
  test('passing: the schema fits', async () => assert.deepEqual(await findingsOf(BASE), []));
  test('red: an unknown key; the rest of the contract still applies', async () => {
    const result = await run({ ...BASE, [CONTRACT]: contractOf(NFT_IMPORT, OFT_CHART, 'rulez: {}') });
    assert.deepEqual(result.findings.map(where), ['contract-invalid .flux-job-guard.yaml 10:0-10:5']);
  });
  test('red: not YAML: the defaults apply and the Jobs are still checked', async () => {
    const result = await run({ ...BASE, [CONTRACT]: lines('ttl:', '  noFinishTimeout: [') });
    assert.deepEqual(result.findings.map(where), ['contract-invalid .flux-job-guard.yaml 2:0-2:0', 'ttl-unexpected-value k/chart.yaml 6:27-6:29', 'ttl-missing k/import.yaml 4:0-4:4']);
  });
});

describe('contract-no-jobs', () => {
  const NO_JOBS = { 'k/config.yaml': CONFIG, 'k/cron.yaml': lines('apiVersion: batch/v1', 'kind: CronJob', 'metadata:', '  name: c', 'spec:', '  jobTemplate:', '    spec: {}') };
  test('passing: one Job under include', async () => {
    const result = await run({ ...NO_JOBS, 'k/nightly.yaml': NIGHTLY });
    assert.deepEqual(result.findings.map(where), []);
    assert.deepEqual(result.summary, { files: 1, jobs: 1, withTtl: 1, keepNone: 0, errors: 0, warnings: 0 });
  });
  test('zero Jobs and no contract file: no finding (a repository without Jobs is ok: 0 Job(s))', async () => {
    const result = await run(NO_JOBS);
    assert.deepEqual(result.findings.map(where), []);
    assert.deepEqual(result.summary, { files: 0, jobs: 0, withTtl: 0, keepNone: 0, errors: 0, warnings: 0 });
  });
  test('red: zero Jobs and an empty contract file: on its first line', async () => {
    const result = await run({ ...NO_JOBS, [CONTRACT]: '' });
    assert.deepEqual(result.findings.map(where), ['contract-no-jobs .flux-job-guard.yaml 0:0-0:0']);
    assert.equal(result.findings[0].severity, 'error');
    assert.deepEqual(result.summary, { files: 0, jobs: 0, withTtl: 0, keepNone: 0, errors: 1, warnings: 0 });
  });
  test('red: zero Jobs, a contract file without jobs.include: on its first line', async () => {
    assert.deepEqual(await findingsOf({ ...NO_JOBS, [CONTRACT]: lines('ttl:', '  required: 86400') }), ['contract-no-jobs .flux-job-guard.yaml 0:0-0:4']);
  });
  test('red: Jobs exist but jobs.include misses them: on jobs.include', async () => {
    const files = { ...NO_JOBS, 'k/nightly.yaml': NIGHTLY, [CONTRACT]: lines('# the search', 'jobs:', '  include:', '    - kubernetes/**') };
    const result = await run(files);
    assert.deepEqual(result.findings.map(where), ['contract-no-jobs .flux-job-guard.yaml 2:2-2:9']);
    assert.match(result.findings[0].message, /under kubernetes\/\*\*/);
  });
  test('passing again: the same contract with the right include', async () => {
    assert.deepEqual(await findingsOf({ ...NO_JOBS, 'k/nightly.yaml': NIGHTLY, [CONTRACT]: lines('# the search', 'jobs:', '  include:', '    - k/**') }), []);
  });
  test('red: jobs.exclude removes every Job', async () => {
    assert.deepEqual(await findingsOf({ ...NO_JOBS, 'k/nightly.yaml': NIGHTLY, [CONTRACT]: lines('jobs:', '  include:', '    - k/**', '  exclude:', '    - k/nightly.yaml') }), [
      'contract-no-jobs .flux-job-guard.yaml 1:2-1:9',
    ]);
  });
  test('red: only patches and chart templates hold Jobs', async () => {
    const files = {
      'k/kustomization.yaml': lines('patches:', '  - path: patch.yaml'),
      'k/patch.yaml': IMPORT,
      'charts/c/Chart.yaml': lines('apiVersion: v2', 'name: c'),
      'charts/c/templates/job.yaml': IMPORT,
      [CONTRACT]: '# the contract\n',
    };
    assert.deepEqual(await findingsOf(files), ['contract-no-jobs .flux-job-guard.yaml 0:0-0:14']);
  });
});

describe('rules: severity overrides in the audit', () => {
  const files = { 'k/nightly.yaml': lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: nightly', 'spec:', '  ttlSecondsAfterFinished: 86400') };
  test('default: ttl-convergence-note is a warning', async () => {
    const result = await run(files);
    assert.deepEqual(
      result.findings.map((f) => [f.rule, f.severity]),
      [['ttl-convergence-note', 'warning']],
    );
    assert.deepEqual([result.summary.errors, result.summary.warnings], [0, 1]);
  });
  test('raised to error', async () => {
    const result = await run({ ...files, [CONTRACT]: lines('rules:', '  ttl-convergence-note: error') });
    assert.deepEqual(
      result.findings.map((f) => [f.rule, f.severity]),
      [['ttl-convergence-note', 'error']],
    );
    assert.deepEqual([result.summary.errors, result.summary.warnings], [1, 0]);
  });
  test('turned off', async () => {
    const result = await run({ ...files, [CONTRACT]: lines('rules:', '  ttl-convergence-note: off') });
    assert.deepEqual(result.findings, []);
  });
  test('a contract rule can be lowered too', async () => {
    const result = await run({
      ...files,
      [CONTRACT]: lines('ttl:', '  noFinishTimeout:', '    - file: k/gone.yaml', '      reason: r', 'rules:', '  contract-file-missing: info', '  ttl-convergence-note: off'),
    });
    assert.deepEqual(
      result.findings.map((f) => [f.rule, f.severity]),
      [['contract-file-missing', 'info']],
    );
    assert.equal(result.summary.errors, 0);
  });
});

// ---------------------------------------------------------------------------------------------
// Quick fixes in the contract file: every finding that a text edit can settle has one, and the
// edited contract no longer has the finding (nor a new one).
// ---------------------------------------------------------------------------------------------

describe('contract quick fixes', () => {
  /** The one fix titled `title` of the finding `rule`, applied to the contract; the findings after it. */
  async function fixed(files: Record<string, string>, rule: string, title: string): Promise<{ text: string; after: string[] }> {
    const finding = (await run(files)).findings.find((f) => f.rule === rule);
    assert.ok(finding, `a ${rule} finding`);
    const fix = finding.fixes?.find((candidate) => candidate.title === title);
    assert.ok(fix, `fix "${title}" among ${JSON.stringify(finding.fixes?.map((f) => f.title))}`);
    const text = applyFileEdits(
      files[CONTRACT],
      fix.edits.filter((edit) => edit.file === CONTRACT),
    );
    return { text, after: await findingsOf({ ...files, [CONTRACT]: text }) };
  }

  test('an unknown key is renamed to the one it was meant to be', async () => {
    const { text, after } = await fixed({ ...BASE, [CONTRACT]: BASE_CONTRACT + 'rulez:\n  ttl-missing: error\n' }, 'contract-invalid', 'Rename to `rules`');
    assert.equal(text, BASE_CONTRACT + 'rules:\n  ttl-missing: error\n');
    assert.deepEqual(after, []);
  });

  test('an entry whose file is gone is removed (its lines, nothing else)', async () => {
    const stale = contractOf(NFT_IMPORT, OFT_CHART, '  # kept: a comment below the lists', '');
    const files = { ...BASE, [CONTRACT]: stale.replace('k/import.yaml', 'k/gone.yaml') };
    const { text, after } = await fixed(files, 'contract-file-missing', 'Remove the noFinishTimeout entry');
    assert.equal(text, contractOf([], OFT_CHART, '  # kept: a comment below the lists', ''));
    assert.deepEqual(after, ['ttl-missing k/import.yaml 4:0-4:4'], 'the Job the entry no longer covers: its own finding');
  });

  test('a stale value is updated to the one the Job sets', async () => {
    const { text, after } = await fixed({ ...BASE, 'k/chart.yaml': chart('90') }, 'contract-stale', 'Update the value to 90');
    assert.equal(text, BASE_CONTRACT.replace('value: 60', 'value: 90'));
    assert.deepEqual(after, []);
  });

  test('a Job covered twice: the second entry is removed', async () => {
    const files = { ...BASE, [CONTRACT]: contractOf([...NFT_IMPORT, ...NFT_IMPORT], OFT_CHART) };
    const { text, after } = await fixed(files, 'contract-duplicate', 'Remove the noFinishTimeout entry');
    assert.equal(text, BASE_CONTRACT);
    assert.deepEqual(after, []);
  });

  test('a placeholder reason (what a quick fix wrote) is flagged like a missing one', async () => {
    const files = { ...BASE, [CONTRACT]: BASE_CONTRACT.replace('Its completions are the record of the import.', 'TODO write why this Job is an exception') };
    assert.deepEqual(await findingsOf(files), ['contract-reason-missing .flux-job-guard.yaml 4:14-4:53']);
  });
});
