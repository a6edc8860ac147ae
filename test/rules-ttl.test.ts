// The TTL rules (rules.md, "TTL contract") as tables: for each rule, Jobs that
// must give no finding, and Jobs that must give exactly the listed findings,
// with exact ranges and the exact text of every file after every quick fix.
// The harness re-analyses after each fix and checks the fixed finding is gone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RepoIndex } from '../server/src/engine/pipeline/repo-index';
import { analyse, crlf, DEFAULT_FILE, lines, ruleTable } from './helpers/table';

const PLACEHOLDER = '# converges: TODO say why a second run reaches the same state and does not fail';
const REASON = 'TODO write why this Job is an exception';
const FILE = DEFAULT_FILE; // kubernetes/apps/job.yaml
const NOTE = '# converges: migrations are versioned; a second run is a no-op';

const POD = ['  template:', '    spec:', '      restartPolicy: Never', '      containers:', '        - name: main', '          image: app:1'];

/** A Job named `name` whose spec holds `specLines` and then a pod template. `spec:` is line 4, `specLines` start at line 5. */
function job(specLines: string[], name = 'migrate'): string {
  return lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', `  name: ${name}`, 'spec:', ...specLines, ...POD);
}

/** The contract file a quick fix creates. */
function created(...ttlLines: string[]): string {
  return lines('# Flux Job Guard contract: which Jobs keep no finish timeout', '# (or another one), and why. Hover a key for its meaning.', 'ttl:', ...ttlLines);
}

const nftEntry = (jobName: string | null, indent = '    ') => [`${indent}- file: ${FILE}`, ...(jobName === null ? [] : [`${indent}  job: ${jobName}`]), `${indent}  reason: ${REASON}`];
const oftEntry = (jobName: string | null, value: number, indent = '    ') => [
  `${indent}- file: ${FILE}`,
  ...(jobName === null ? [] : [`${indent}  job: ${jobName}`]),
  `${indent}  value: ${value}`,
  `${indent}  reason: ${REASON}`,
];

const INSERT = 'Insert ttlSecondsAfterFinished: 86400 with a convergence comment';
const ADD_NFT = 'Add Job "migrate" to noFinishTimeout in .flux-job-guard.yaml';
const SET_REQUIRED = 'Set ttlSecondsAfterFinished to 86400';

/** A contract that lists the Job "migrate" of FILE in noFinishTimeout. */
const NFT_CONTRACT = lines('ttl:', '  noFinishTimeout:', `    - file: ${FILE}`, '      job: migrate', '      reason: Its completions are the record of the import.');
/** ... and every Job of FILE. */
const NFT_FILE_CONTRACT = lines('ttl:', '  noFinishTimeout:', `    - file: ${FILE}`, '      reason: Its completions are the record of the import.');
const oftContract = (jobLine: string | null, value: number) =>
  lines('ttl:', '  otherFinishTimeout:', `    - file: ${FILE}`, ...(jobLine === null ? [] : [`      job: ${jobLine}`]), `      value: ${value}`, '      reason: The upstream chart sets it.');

// ---------------------------------------------------------------------------------------------
// ttl-missing
// ---------------------------------------------------------------------------------------------

const BASIC = job(['  # retries twice', '  backoffLimit: 2']);

ruleTable('ttl-missing', {
  valid: [
    { name: 'a TTL with a convergence note', text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']) },
    { name: 'listed in noFinishTimeout by name', text: BASIC, contract: NFT_CONTRACT },
    { name: 'listed in noFinishTimeout file-wide (no job:)', text: BASIC, contract: NFT_FILE_CONTRACT },
    {
      name: 'the contract file names the Job with ./ and a ${VAR} name, as written',
      text: job(['  backoffLimit: 2'], '${CLUSTER}-migrate'),
      contract: lines('ttl:', '  noFinishTimeout:', `    - file: ./${FILE}`, '      job: ${CLUSTER}-migrate', '      reason: Kept as evidence.'),
    },
    {
      name: 'a CronJob: its jobTemplate is not a Job resource',
      text: lines(
        'apiVersion: batch/v1',
        'kind: CronJob',
        'metadata:',
        '  name: nightly',
        'spec:',
        '  schedule: "0 3 * * *"',
        '  jobTemplate:',
        '    spec:',
        '      template:',
        '        spec:',
        '          restartPolicy: Never',
      ),
    },
    { name: 'a kustomize patch of a Job (role patch) is not a Job resource', text: BASIC, role: 'patch' },
    {
      name: 'a Helm chart template (role chart-template) is skipped quietly, even though it is not YAML',
      role: 'chart-template',
      text: lines(
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: {{ include "reporter.fullname" . }}',
        'spec:',
        '  {{- with .Values.ttl }}',
        '  ttlSecondsAfterFinished: {{ . }}',
        '  {{- end }}',
      ),
    },
    {
      name: 'an Argo CD hook Job with a delete policy: Argo CD creates it per sync and deletes it',
      text: BASIC.replace('  name: migrate\n', '  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n'),
    },
    {
      name: 'a Helm hook Job with a delete policy',
      text: BASIC.replace('  name: migrate\n', '  name: migrate\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-delete-policy: hook-succeeded\n'),
    },
    { name: 'kind Job of another API group is not a Kubernetes Job', text: BASIC.replace('batch/v1', 'example.com/v1') },
    { name: 'apiVersion batch/v1 without kind Job', text: BASIC.replace('kind: Job', 'kind: Deployment') },
    { name: 'a document whose root is a list', text: lines('- apiVersion: batch/v1', '  kind: Job', '  spec:', '    backoffLimit: 1') },
    { name: 'an empty file', text: '' },
    { name: 'only comments and document markers', text: lines('# nothing here', '---', '---') },
  ],
  invalid: [
    {
      name: 'negative control: an Argo CD hook without a delete policy stays (nothing deletes it)',
      text: BASIC.replace('  name: migrate\n', '  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [6, 0, 6, 4],
          job: 'migrate',
          message: /Job "migrate" sets no spec\.ttlSecondsAfterFinished/,
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']).replace(
                '  name: migrate\n',
                '  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n',
              ),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'two-space file: insert above the first key (its comment stays with it), or list it in a new contract file',
      text: BASIC,
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          job: 'migrate',
          message: /Job "migrate" sets no spec\.ttlSecondsAfterFinished/,
          fixes: [
            { title: INSERT, preferred: true, output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']), after: ['ttl-convergence-note'] },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'four-space file: the inserted lines use four spaces',
      text: lines(
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '    name: migrate',
        'spec:  # the Job',
        '    backoffLimit: 2',
        '    template:',
        '        spec:',
        '            restartPolicy: Never',
        '            containers:',
        '                -   name: main',
        '                    image: app:1',
      ),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines(
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '    name: migrate',
                'spec:  # the Job',
                `    ${PLACEHOLDER}`,
                '    ttlSecondsAfterFinished: 86400',
                '    backoffLimit: 2',
                '    template:',
                '        spec:',
                '            restartPolicy: Never',
                '            containers:',
                '                -   name: main',
                '                    image: app:1',
              ),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'CRLF file: the inserted lines end in CRLF, and nothing else changes',
      text: crlf(BASIC),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            { title: INSERT, preferred: true, output: crlf(job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2'])), after: ['ttl-convergence-note'] },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a file that starts with a BOM keeps exactly its BOM (the fixes never add one)',
      text: '\uFEFF' + BASIC,
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: '\uFEFF' + job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a file without a final newline',
      text: BASIC.slice(0, -1),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']).slice(0, -1),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'multi-document file: each fix lands in its own Job, not in the ConfigMap or the good Job',
      text: lines(
        'apiVersion: v1', // 0
        'kind: ConfigMap',
        'metadata:',
        '  name: settings',
        'data:',
        '  spec: "not a Job"', // 5
        '--- # the first Job',
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: first', // 10
        'spec:',
        '  backoffLimit: 1',
        '---',
        'apiVersion: batch/v1',
        'kind: Job', // 15
        'metadata:',
        '  name: good',
        'spec:',
        `  ${NOTE}`,
        '  ttlSecondsAfterFinished: 86400', // 20
        '---',
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: third', // 25
        'spec:',
        '  backoffLimit: 3',
      ),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [11, 0, 11, 4],
          job: 'first',
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines(
                'apiVersion: v1',
                'kind: ConfigMap',
                'metadata:',
                '  name: settings',
                'data:',
                '  spec: "not a Job"',
                '--- # the first Job',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: first',
                'spec:',
                `  ${PLACEHOLDER}`,
                '  ttlSecondsAfterFinished: 86400',
                '  backoffLimit: 1',
                '---',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: good',
                'spec:',
                `  ${NOTE}`,
                '  ttlSecondsAfterFinished: 86400',
                '---',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: third',
                'spec:',
                '  backoffLimit: 3',
              ),
              after: ['ttl-convergence-note', 'ttl-missing'],
            },
            { title: 'Add Job "first" to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry('first')), after: ['ttl-missing'] },
          ],
        },
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [26, 0, 26, 4],
          job: 'third',
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines(
                'apiVersion: v1',
                'kind: ConfigMap',
                'metadata:',
                '  name: settings',
                'data:',
                '  spec: "not a Job"',
                '--- # the first Job',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: first',
                'spec:',
                '  backoffLimit: 1',
                '---',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: good',
                'spec:',
                `  ${NOTE}`,
                '  ttlSecondsAfterFinished: 86400',
                '---',
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: third',
                'spec:',
                `  ${PLACEHOLDER}`,
                '  ttlSecondsAfterFinished: 86400',
                '  backoffLimit: 3',
              ),
              after: ['ttl-convergence-note', 'ttl-missing'],
            },
            { title: 'Add Job "third" to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry('third')), after: ['ttl-missing'] },
          ],
        },
      ],
    },
    {
      name: 'CRLF multi-document file',
      text: crlf(
        lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', '---', 'apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec:', '    backoffLimit: 1'),
      ),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [9, 0, 9, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: crlf(
                lines(
                  'apiVersion: v1',
                  'kind: ConfigMap',
                  'metadata:',
                  '  name: settings',
                  '---',
                  'apiVersion: batch/v1',
                  'kind: Job',
                  'metadata:',
                  '  name: migrate',
                  'spec:',
                  `    ${PLACEHOLDER}`,
                  '    ttlSecondsAfterFinished: 86400',
                  '    backoffLimit: 1',
                ),
              ),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'batch/v1beta1 is a Job API version too',
      text: BASIC.replace('batch/v1', 'batch/v1beta1'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']).replace('batch/v1', 'batch/v1beta1'),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a ${VAR} in the name: the finding names the Job as written; the contract entry quotes it',
      text: job(['  backoffLimit: 2'], '${CLUSTER}-migrate'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          job: '${CLUSTER}-migrate',
          fixes: [
            { title: INSERT, preferred: true, output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2'], '${CLUSTER}-migrate'), after: ['ttl-convergence-note'] },
            {
              title: 'Add Job "${CLUSTER}-migrate" to noFinishTimeout in .flux-job-guard.yaml',
              contract: created('  noFinishTimeout:', `    - file: ${FILE}`, '      job: "${CLUSTER}-migrate"', `      reason: ${REASON}`),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: 'a name YAML would read as a number is quoted in the contract entry',
      text: job(['  backoffLimit: 2'], '"1e3"'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          job: '1e3',
          fixes: [
            { title: INSERT, preferred: true, output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2'], '"1e3"'), after: ['ttl-convergence-note'] },
            {
              title: 'Add Job "1e3" to noFinishTimeout in .flux-job-guard.yaml',
              contract: created('  noFinishTimeout:', `    - file: ${FILE}`, '      job: "1e3"', `      reason: ${REASON}`),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: 'a Job without a name: the contract entry covers the file',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  namespace: db', 'spec:', '  backoffLimit: 2'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          job: null,
          message: /this Job sets no/,
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  namespace: db', 'spec:', `  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2'),
              after: ['ttl-convergence-note'],
            },
            { title: 'Add this Job to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry(null)), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a noFinishTimeout entry for another Job of the file does not cover this one',
      text: job(['  backoffLimit: 2']),
      contract: lines('ttl:', '  noFinishTimeout:', `    - file: ${FILE}`, '      job: other', '      reason: Kept.'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            { title: INSERT, preferred: true, output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  backoffLimit: 2']), after: ['ttl-convergence-note'] },
            {
              title: ADD_NFT,
              contract: lines('ttl:', '  noFinishTimeout:', `    - file: ${FILE}`, '      job: other', '      reason: Kept.', ...nftEntry('migrate')),
              after: [],
              contractAfter: ['contract-no-job'], // the entry for "other" names a Job that is not in the file
            },
          ],
        },
      ],
    },
    {
      name: 'the required value and the marker come from the contract',
      text: job(['  backoffLimit: 2']),
      contract: lines('ttl:', '  required: 3600', '  convergenceNote: "idempotent:"'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          message: /ttlSecondsAfterFinished: 3600 with a `# idempotent:` comment/,
          fixes: [
            {
              title: 'Insert ttlSecondsAfterFinished: 3600 with a convergence comment',
              preferred: true,
              output: job(['  # idempotent: TODO say why a second run reaches the same state and does not fail', '  ttlSecondsAfterFinished: 3600', '  backoffLimit: 2']),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: lines('ttl:', '  required: 3600', '  convergenceNote: "idempotent:"', '  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'the required value comes from the settings when there is no contract file',
      text: job(['  backoffLimit: 2']),
      settings: { requiredTtl: 600 },
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: 'Insert ttlSecondsAfterFinished: 600 with a convergence comment',
              preferred: true,
              output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 600', '  backoffLimit: 2']),
              after: ['ttl-convergence-note'],
            },
            { title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a flow-style spec: no safe insertion, only the contract fix',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata: {name: migrate}', 'spec: {backoffLimit: 2, template: {spec: {restartPolicy: Never}}}'),
      findings: [{ rule: 'ttl-missing', severity: 'error', range: [3, 0, 3, 4], fixes: [{ title: ADD_NFT, contract: created('  noFinishTimeout:', ...nftEntry('migrate')), after: [] }] }],
    },
    {
      name: 'a document whose spec is a list: reported on the spec key, no fix',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec:', '  - backoffLimit: 2'),
      findings: [{ rule: 'ttl-missing', severity: 'error', range: [4, 0, 4, 4], message: /has no `spec` mapping/ }],
    },
    {
      name: 'a Job without spec: reported on its kind',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate'),
      findings: [{ rule: 'ttl-missing', severity: 'error', range: [1, 6, 1, 9], message: /has no `spec` mapping/ }],
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// The contract-side fixes: where the new entry goes in each shape of contract file
// ---------------------------------------------------------------------------------------------

const CONTRACT_SHAPES: Array<{ name: string; contract: string; after: string; contractAfter?: string[] }> = [
  {
    name: 'an empty contract file',
    contract: '',
    after: lines('ttl:', '  noFinishTimeout:', ...nftEntry('migrate')),
  },
  {
    name: 'a contract file with only a comment',
    contract: lines('# our contract'),
    after: lines('# our contract', 'ttl:', '  noFinishTimeout:', ...nftEntry('migrate')),
  },
  {
    name: 'a contract file without ttl',
    contract: lines('# keep the search narrow', 'jobs:', '  include:', '    - kubernetes/**', '# end of jobs'),
    after: lines('# keep the search narrow', 'jobs:', '  include:', '    - kubernetes/**', 'ttl:', '  noFinishTimeout:', ...nftEntry('migrate'), '# end of jobs'),
  },
  {
    name: 'a contract file without a final newline',
    contract: lines('jobs:', '  include:', '    - kubernetes/**').slice(0, -1),
    after: lines('jobs:', '  include:', '    - kubernetes/**', 'ttl:', '  noFinishTimeout:', ...nftEntry('migrate')).slice(0, -1),
  },
  {
    name: 'ttl with no value',
    contract: lines('ttl:', 'rules: {}'),
    after: lines('ttl:', '  noFinishTimeout:', ...nftEntry('migrate'), 'rules: {}'),
  },
  {
    name: 'ttl without the list',
    contract: lines('ttl:', '  required: 86400 # one day', 'flux:', '  strict: true'),
    after: lines('ttl:', '  required: 86400 # one day', '  noFinishTimeout:', ...nftEntry('migrate'), 'flux:', '  strict: true'),
  },
  {
    name: 'a four-space contract with ttl but no list',
    contract: lines('ttl:', '    required: 86400'),
    after: lines('ttl:', '    required: 86400', '    noFinishTimeout:', ...nftEntry('migrate', '      ')),
  },
  {
    name: 'the list key with no value',
    contract: lines('ttl:', '  noFinishTimeout:', '  required: 86400'),
    after: lines('ttl:', '  noFinishTimeout:', ...nftEntry('migrate'), '  required: 86400'),
  },
  {
    name: 'an empty flow list []',
    contract: lines('ttl:', '  noFinishTimeout: []', '  required: 86400'),
    after: lines('ttl:', '  noFinishTimeout:', ...nftEntry('migrate'), '  required: 86400'),
  },
  {
    name: "an empty flow list with a comment after it: the comment stays on the key's line",
    contract: lines('ttl:', '  noFinishTimeout: [] # none yet'),
    after: lines('ttl:', '  noFinishTimeout: # none yet', ...nftEntry('migrate')),
  },
  {
    name: 'a list whose last reason is a block scalar, then a comment',
    contract: lines('ttl:', '  noFinishTimeout:', '    - file: kubernetes/apps/job.yaml', '      job: other', '      reason: |', '        Kept as evidence.', '', '# end'),
    after: lines('ttl:', '  noFinishTimeout:', '    - file: kubernetes/apps/job.yaml', '      job: other', '      reason: |', '        Kept as evidence.', ...nftEntry('migrate'), '', '# end'),
    contractAfter: ['contract-no-job'],
  },
  {
    name: 'a list with items (appended after the last)',
    contract: lines('ttl:', '  noFinishTimeout:', '    - file: kubernetes/apps/job.yaml', '      job: other', '      reason: Kept.', '  required: 86400'),
    after: lines('ttl:', '  noFinishTimeout:', '    - file: kubernetes/apps/job.yaml', '      job: other', '      reason: Kept.', ...nftEntry('migrate'), '  required: 86400'),
    contractAfter: ['contract-no-job'],
  },
  {
    name: "a list with items at the key's own indentation",
    contract: lines('ttl:', '  noFinishTimeout:', '  - file: kubernetes/apps/job.yaml', '    job: other', '    reason: Kept.'),
    after: lines('ttl:', '  noFinishTimeout:', '  - file: kubernetes/apps/job.yaml', '    job: other', '    reason: Kept.', ...nftEntry('migrate', '  ')),
    contractAfter: ['contract-no-job'],
  },
  {
    name: 'a CRLF contract',
    contract: crlf(lines('ttl:', '  required: 86400')),
    after: crlf(lines('ttl:', '  required: 86400', '  noFinishTimeout:', ...nftEntry('migrate'))),
  },
  {
    name: 'a contract that starts with ---',
    contract: lines('---', 'ttl:', '  required: 86400'),
    after: lines('---', 'ttl:', '  required: 86400', '  noFinishTimeout:', ...nftEntry('migrate')),
  },
];

ruleTable('contract-side fix: add to noFinishTimeout', {
  valid: [],
  invalid: CONTRACT_SHAPES.map((shape) => ({
    name: shape.name,
    text: BASIC,
    contract: shape.contract,
    findings: [
      {
        rule: 'ttl-missing',
        severity: 'error' as const,
        range: [4, 0, 4, 4] as [number, number, number, number],
        fixes: [
          { title: INSERT, preferred: true, output: job([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400', '  # retries twice', '  backoffLimit: 2']), after: ['ttl-convergence-note'] },
          { title: ADD_NFT, contract: shape.after, after: [], contractAfter: shape.contractAfter },
        ],
      },
    ],
  })),
});

// ---------------------------------------------------------------------------------------------
// ttl-unexpected-value (and the otherFinishTimeout fixes)
// ---------------------------------------------------------------------------------------------

const T3600 = job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 3600']);
const T86400 = job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']);
const ADD_OFT = 'Add the otherFinishTimeout entry of Job "migrate" (value 3600)';
const UPDATE_OFT = 'Update the otherFinishTimeout entry of Job "migrate" (value 3600)';

ruleTable('ttl-unexpected-value', {
  valid: [
    { name: 'the required value', text: T86400 },
    { name: 'an otherFinishTimeout entry allows exactly the value', text: T3600, contract: oftContract('migrate', 3600) },
    { name: 'a file-wide otherFinishTimeout entry allows the value', text: T3600, contract: oftContract(null, 3600) },
    { name: 'a value without a note is fine when it is not the required one and is allowed', text: job(['  ttlSecondsAfterFinished: 60']), contract: oftContract('migrate', 60) },
    { name: 'the contract requires another value', text: T3600, contract: lines('ttl:', '  required: 3600') },
    { name: 'the settings require another value', text: T3600, settings: { requiredTtl: 3600 } },
    { name: 'the contract wins over the settings', text: T3600, contract: lines('ttl:', '  required: 3600'), settings: { requiredTtl: 60 } },
  ],
  invalid: [
    {
      name: 'no contract: set the required value, or record the value in a new contract file',
      text: T3600,
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          job: 'migrate',
          message: /sets ttlSecondsAfterFinished: 3600, but the required value is 86400 \(the default: no contract file sets ttl\.required\) and no otherFinishTimeout entry allows it/,
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            { title: ADD_OFT, contract: created('  otherFinishTimeout:', ...oftEntry('migrate', 3600)), after: [] },
          ],
        },
      ],
    },
    {
      name: 'zero is an integer, and unexpected',
      text: job(['  ttlSecondsAfterFinished: 0  # converges: cleaned up at once']),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [5, 27, 5, 28],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: job(['  ttlSecondsAfterFinished: 86400  # converges: cleaned up at once']), after: [] },
            { title: 'Add the otherFinishTimeout entry of Job "migrate" (value 0)', contract: created('  otherFinishTimeout:', ...oftEntry('migrate', 0)), after: [] },
          ],
        },
      ],
    },
    {
      name: 'an entry allows another value: update it',
      text: T3600,
      contract: oftContract('migrate', 60),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          message: /its otherFinishTimeout entry allows 60/,
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            { title: UPDATE_OFT, contract: oftContract('migrate', 3600), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a file-wide entry allows another value: update that entry (a second entry would be a duplicate)',
      text: T3600,
      contract: oftContract(null, 60),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            { title: UPDATE_OFT, contract: oftContract(null, 3600), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a contract with ttl but no otherFinishTimeout',
      text: T3600,
      contract: lines('ttl:', '  required: 86400'),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            { title: ADD_OFT, contract: lines('ttl:', '  required: 86400', '  otherFinishTimeout:', ...oftEntry('migrate', 3600)), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a contract with an empty otherFinishTimeout: []',
      text: T3600,
      contract: lines('ttl:', '  otherFinishTimeout: []'),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            { title: ADD_OFT, contract: lines('ttl:', '  otherFinishTimeout:', ...oftEntry('migrate', 3600)), after: [] },
          ],
        },
      ],
    },
    {
      name: 'a contract whose otherFinishTimeout lists another Job: appended',
      text: T3600,
      contract: lines('ttl:', '  otherFinishTimeout:', `    - file: ${FILE}`, '      job: other', '      value: 60', '      reason: Chart.'),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [6, 27, 6, 31],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: T86400, after: [] },
            {
              title: ADD_OFT,
              contract: lines('ttl:', '  otherFinishTimeout:', `    - file: ${FILE}`, '      job: other', '      value: 60', '      reason: Chart.', ...oftEntry('migrate', 3600)),
              after: [],
              contractAfter: ['contract-no-job'],
            },
          ],
        },
      ],
    },
    {
      name: 'a CRLF file with a trailing note keeps both',
      text: crlf(job(['  ttlSecondsAfterFinished: 7200 # converges: idempotent'])),
      findings: [
        {
          rule: 'ttl-unexpected-value',
          severity: 'error',
          range: [5, 27, 5, 31],
          fixes: [
            { title: SET_REQUIRED, preferred: true, output: crlf(job(['  ttlSecondsAfterFinished: 86400 # converges: idempotent'])), after: [] },
            { title: 'Add the otherFinishTimeout entry of Job "migrate" (value 7200)', contract: created('  otherFinishTimeout:', ...oftEntry('migrate', 7200)), after: [] },
          ],
        },
      ],
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// ttl-forbidden
// ---------------------------------------------------------------------------------------------

const REMOVE = 'Remove ttlSecondsAfterFinished (the contract lists Job "migrate" in noFinishTimeout)';

ruleTable('ttl-forbidden', {
  valid: [
    { name: 'a listed Job without a TTL', text: job(['  backoffLimit: 2']), contract: NFT_CONTRACT },
    { name: 'a TTL in a Job the entry does not name', text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400'], 'other'), contract: NFT_CONTRACT },
  ],
  invalid: [
    {
      name: 'remove the TTL and its convergence comment',
      text: job(['  backoffLimit: 2', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400', '  parallelism: 1']),
      contract: NFT_CONTRACT,
      findings: [
        {
          rule: 'ttl-forbidden',
          severity: 'error',
          range: [7, 2, 7, 25],
          job: 'migrate',
          message: /listed in noFinishTimeout \("Its completions are the record of the import\."\) but sets ttlSecondsAfterFinished/,
          fixes: [{ title: REMOVE, preferred: true, output: job(['  backoffLimit: 2', '  parallelism: 1']), after: [] }],
        },
      ],
    },
    {
      name: 'a comment above the note that is not the note stays',
      text: job(['  # the import runs once', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      contract: NFT_CONTRACT,
      findings: [{ rule: 'ttl-forbidden', severity: 'error', range: [7, 2, 7, 25], fixes: [{ title: REMOVE, preferred: true, output: job(['  # the import runs once']), after: [] }] }],
    },
    {
      name: 'a note at the end of the line goes with the line; a file-wide entry forbids it too; any value',
      text: job(['  ttlSecondsAfterFinished: 3600 # converges: x', '  backoffLimit: 2']),
      contract: NFT_FILE_CONTRACT,
      findings: [{ rule: 'ttl-forbidden', severity: 'error', range: [5, 2, 5, 25], fixes: [{ title: REMOVE, preferred: true, output: job(['  backoffLimit: 2']), after: [] }] }],
    },
    {
      name: 'the required TTL without a note: forbidden, and (literally) without a note',
      text: job(['  ttlSecondsAfterFinished: 86400']),
      contract: NFT_CONTRACT,
      findings: [
        { rule: 'ttl-forbidden', severity: 'error', range: [5, 2, 5, 25], fixes: [{ title: REMOVE, preferred: true, output: job([]), after: [] }] },
        { rule: 'ttl-convergence-note', severity: 'warning', range: [5, 2, 5, 25] },
      ],
    },
    {
      name: 'the last line of a file without a final newline',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec:', '  backoffLimit: 2', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400').slice(0, -1),
      contract: NFT_CONTRACT,
      findings: [
        {
          rule: 'ttl-forbidden',
          severity: 'error',
          range: [7, 2, 7, 25],
          fixes: [{ title: REMOVE, preferred: true, output: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec:', '  backoffLimit: 2').slice(0, -1), after: [] }],
        },
      ],
    },
    {
      name: 'a CRLF file',
      text: crlf(job(['  backoffLimit: 2', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400'])),
      contract: NFT_CONTRACT,
      findings: [{ rule: 'ttl-forbidden', severity: 'error', range: [7, 2, 7, 25], fixes: [{ title: REMOVE, preferred: true, output: crlf(job(['  backoffLimit: 2'])), after: [] }] }],
    },
    {
      name: 'an invalid TTL on a listed Job: forbidden and invalid',
      text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: "86400"']),
      contract: NFT_CONTRACT,
      findings: [
        { rule: 'ttl-forbidden', severity: 'error', range: [6, 2, 6, 25], fixes: [{ title: REMOVE, preferred: true, output: job([]), after: [] }] },
        {
          rule: 'ttl-invalid',
          severity: 'error',
          range: [6, 27, 6, 34],
          fixes: [{ title: 'Write ttlSecondsAfterFinished as the integer 86400', preferred: true, output: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']), after: ['ttl-forbidden'] }],
        },
      ],
    },
    {
      name: 'a flow-style spec: no fix (the key shares its line)',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec: {ttlSecondsAfterFinished: 60, backoffLimit: 2}'),
      contract: NFT_CONTRACT,
      findings: [{ rule: 'ttl-forbidden', severity: 'error', range: [4, 7, 4, 30] }],
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// ttl-misplaced
// ---------------------------------------------------------------------------------------------

const MOVE = 'Move ttlSecondsAfterFinished to spec';

ruleTable('ttl-misplaced', {
  valid: [
    { name: 'directly under spec', text: T86400 },
    { name: 'a key that only contains the name', text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400', '  ttlSecondsAfterFinishedNote: x']) },
    {
      name: 'under a CronJob jobTemplate (not a Job resource)',
      text: lines('apiVersion: batch/v1', 'kind: CronJob', 'metadata:', '  name: n', 'spec:', '  jobTemplate:', '    spec:', '      ttlSecondsAfterFinished: 86400'),
    },
  ],
  invalid: [
    {
      name: 'under spec.template.spec: moved with its comment, above the first key of spec',
      text: lines(
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: warmup',
        'spec:',
        '  template:',
        '    spec:',
        `      ${NOTE}`,
        '      ttlSecondsAfterFinished: 86400',
        '      restartPolicy: Never',
      ),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines(
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: warmup',
                'spec:',
                `  ${PLACEHOLDER}`,
                '  ttlSecondsAfterFinished: 86400',
                '  template:',
                '    spec:',
                `      ${NOTE}`,
                '      ttlSecondsAfterFinished: 86400',
                '      restartPolicy: Never',
              ),
              after: ['ttl-convergence-note', 'ttl-misplaced'],
            },
            { title: 'Add Job "warmup" to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry('warmup')), after: ['ttl-misplaced'] },
          ],
        },
        {
          rule: 'ttl-misplaced',
          severity: 'error',
          range: [8, 6, 8, 29],
          job: 'warmup',
          message: /under `spec\.template\.spec` of Job "warmup" has no effect there/,
          fixes: [
            {
              title: MOVE,
              preferred: true,
              output: lines(
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: warmup',
                'spec:',
                `  ${NOTE}`,
                '  ttlSecondsAfterFinished: 86400',
                '  template:',
                '    spec:',
                '      restartPolicy: Never',
              ),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: 'under metadata, with a note at the end of its line: moved to spec',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: warmup', '  ttlSecondsAfterFinished: 3600 # converges: x', 'spec:', '  backoffLimit: 1'),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [5, 0, 5, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: lines(
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: warmup',
                '  ttlSecondsAfterFinished: 3600 # converges: x',
                'spec:',
                `  ${PLACEHOLDER}`,
                '  ttlSecondsAfterFinished: 86400',
                '  backoffLimit: 1',
              ),
              after: ['ttl-convergence-note', 'ttl-misplaced'],
            },
            { title: 'Add Job "warmup" to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry('warmup')), after: ['ttl-misplaced'] },
          ],
        },
        {
          rule: 'ttl-misplaced',
          severity: 'error',
          range: [4, 2, 4, 25],
          message: /under `metadata`/,
          fixes: [
            {
              title: MOVE,
              preferred: true,
              output: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: warmup', 'spec:', '  ttlSecondsAfterFinished: 3600 # converges: x', '  backoffLimit: 1'),
              after: ['ttl-unexpected-value'],
            },
          ],
        },
      ],
    },
    {
      name: 'at the top level of the document: the message says so',
      text: lines('apiVersion: batch/v1', 'kind: Job', 'ttlSecondsAfterFinished: 86400', 'metadata:', '  name: warmup', 'spec:', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400'),
      findings: [
        {
          rule: 'ttl-misplaced',
          severity: 'error',
          range: [2, 0, 2, 23],
          message: /at the top level of Job "warmup"/,
          fixes: [
            {
              title: 'Remove the misplaced ttlSecondsAfterFinished (spec already sets one)',
              preferred: true,
              output: lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: warmup', 'spec:', `  ${NOTE}`, '  ttlSecondsAfterFinished: 86400'),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: "four spaces and CRLF: the moved lines take spec's indentation and the file's line ending",
      text: crlf(
        lines(
          'apiVersion: batch/v1',
          'kind: Job',
          'metadata:',
          '    name: warmup',
          'spec:',
          '    backoffLimit: 1',
          '    template:',
          '        spec:',
          `            ${NOTE}`,
          '            ttlSecondsAfterFinished: 86400',
          '            restartPolicy: Never',
        ),
      ),
      findings: [
        {
          rule: 'ttl-missing',
          severity: 'error',
          range: [4, 0, 4, 4],
          fixes: [
            {
              title: INSERT,
              preferred: true,
              output: crlf(
                lines(
                  'apiVersion: batch/v1',
                  'kind: Job',
                  'metadata:',
                  '    name: warmup',
                  'spec:',
                  `    ${PLACEHOLDER}`,
                  '    ttlSecondsAfterFinished: 86400',
                  '    backoffLimit: 1',
                  '    template:',
                  '        spec:',
                  `            ${NOTE}`,
                  '            ttlSecondsAfterFinished: 86400',
                  '            restartPolicy: Never',
                ),
              ),
              after: ['ttl-convergence-note', 'ttl-misplaced'],
            },
            { title: 'Add Job "warmup" to noFinishTimeout in .flux-job-guard.yaml', contract: created('  noFinishTimeout:', ...nftEntry('warmup')), after: ['ttl-misplaced'] },
          ],
        },
        {
          rule: 'ttl-misplaced',
          severity: 'error',
          range: [9, 12, 9, 35],
          fixes: [
            {
              title: MOVE,
              preferred: true,
              output: crlf(
                lines(
                  'apiVersion: batch/v1',
                  'kind: Job',
                  'metadata:',
                  '    name: warmup',
                  'spec:',
                  `    ${NOTE}`,
                  '    ttlSecondsAfterFinished: 86400',
                  '    backoffLimit: 1',
                  '    template:',
                  '        spec:',
                  '            restartPolicy: Never',
                ),
              ),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: 'spec already sets one: the misplaced copy is removed',
      text: lines(
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: warmup',
        'spec:',
        `  ${NOTE}`,
        '  ttlSecondsAfterFinished: 86400',
        '  template:',
        '    spec:',
        '      ttlSecondsAfterFinished: 60',
        '      restartPolicy: Never',
      ),
      findings: [
        {
          rule: 'ttl-misplaced',
          severity: 'error',
          range: [9, 6, 9, 29],
          fixes: [
            {
              title: 'Remove the misplaced ttlSecondsAfterFinished (spec already sets one)',
              preferred: true,
              output: lines(
                'apiVersion: batch/v1',
                'kind: Job',
                'metadata:',
                '  name: warmup',
                'spec:',
                `  ${NOTE}`,
                '  ttlSecondsAfterFinished: 86400',
                '  template:',
                '    spec:',
                '      restartPolicy: Never',
              ),
              after: [],
            },
          ],
        },
      ],
    },
    {
      name: 'the first key of a list item: no safe fix',
      text: lines(
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: warmup',
        'spec:',
        `  ${NOTE}`,
        '  ttlSecondsAfterFinished: 86400',
        '  template:',
        '    spec:',
        '      containers:',
        '        - ttlSecondsAfterFinished: 5',
        '          name: main',
      ),
      findings: [{ rule: 'ttl-misplaced', severity: 'error', range: [10, 10, 10, 33], message: /under `spec\.template\.spec\.containers\[0\]`/ }],
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// ttl-invalid
// ---------------------------------------------------------------------------------------------

const invalidCase = (written: string, fixes: Array<{ title: string; preferred: boolean; value: string; after: string[] }>, name = `written as ${written === '' ? 'nothing' : written}`) => {
  const text = job([`  ${NOTE}`, `  ttlSecondsAfterFinished:${written === '' ? '' : ' ' + written}`]);
  const range: [number, number, number, number] = written === '' ? [6, 2, 6, 25] : [6, 27, 6, 27 + written.length];
  return {
    name,
    text,
    findings: [
      {
        rule: 'ttl-invalid',
        severity: 'error' as const,
        range,
        message: written === '' ? /is no value, not a non-negative integer/ : new RegExp(`is ${written.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, not a non-negative integer`),
        fixes: fixes.map((fix) => ({ title: fix.title, preferred: fix.preferred, output: job([`  ${NOTE}`, `  ttlSecondsAfterFinished: ${fix.value}`]), after: fix.after })),
      },
    ],
  };
};
const asInteger = (n: number) => `Write ttlSecondsAfterFinished as the integer ${n}`;

ruleTable('ttl-invalid', {
  valid: [{ name: 'a plain integer', text: T86400 }],
  invalid: [
    invalidCase('"86400"', [{ title: asInteger(86400), preferred: true, value: '86400', after: [] }]),
    invalidCase("'86400'", [{ title: asInteger(86400), preferred: true, value: '86400', after: [] }]),
    invalidCase('8.64e4', [{ title: asInteger(86400), preferred: true, value: '86400', after: [] }]),
    invalidCase('86400.0', [{ title: asInteger(86400), preferred: true, value: '86400', after: [] }]),
    invalidCase('"3600"', [
      { title: asInteger(3600), preferred: true, value: '3600', after: ['ttl-unexpected-value'] },
      { title: SET_REQUIRED, preferred: false, value: '86400', after: [] },
    ]),
    invalidCase('-1', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('1.5', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('null', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('~', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('true', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('"one day"', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
    invalidCase('', [{ title: SET_REQUIRED, preferred: true, value: '86400', after: [] }]),
  ],
});

// ---------------------------------------------------------------------------------------------
// ttl-convergence-note
// ---------------------------------------------------------------------------------------------

const noteCase = (specLines: string[], keyLine: number) => ({ text: job(specLines), range: [keyLine, 2, keyLine, 25] as [number, number, number, number] });

ruleTable('ttl-convergence-note', {
  valid: [
    { name: 'the note directly above the key', text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']) },
    { name: "the note at the end of the key's line", text: job(['  ttlSecondsAfterFinished: 86400 # converges: the import skips what exists']) },
    { name: 'the note without a space after #', text: job(['  #converges: the import skips what exists', '  ttlSecondsAfterFinished: 86400']) },
    {
      name: 'the note on the first line of a comment block directly above',
      text: job(['  # converges: the import skips what exists', '  # and it never deletes', '  ttlSecondsAfterFinished: 86400']),
    },
    {
      name: 'a custom marker from the contract',
      text: job(['  # idempotent: the import skips what exists', '  ttlSecondsAfterFinished: 86400']),
      contract: lines('ttl:', '  convergenceNote: "idempotent:"'),
    },
    { name: 'a TTL other than the required one needs no note', text: job(['  ttlSecondsAfterFinished: 60']), contract: oftContract('migrate', 60) },
    { name: 'a note on a TTL written across two lines', text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished:', '    86400']) },
  ],
  invalid: [
    {
      name: 'no comment at all',
      ...noteCase(['  ttlSecondsAfterFinished: 86400'], 5),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [5, 2, 5, 25], job: 'migrate', message: /has no `# converges:` comment/ }],
    },
    {
      name: 'the inserted placeholder above the key',
      ...noteCase([`  ${PLACEHOLDER}`, '  ttlSecondsAfterFinished: 86400'], 6),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [6, 2, 6, 25], message: /still has the placeholder/ }],
    },
    {
      name: 'the placeholder at the end of the line',
      ...noteCase([`  ttlSecondsAfterFinished: 86400 ${PLACEHOLDER}`], 5),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [5, 2, 5, 25], message: /still has the placeholder/ }],
    },
    {
      name: 'the placeholder text still inside a longer comment',
      ...noteCase(['  # converges: idempotent. TODO say why a second run reaches the same state and does not fail', '  ttlSecondsAfterFinished: 86400'], 6),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [6, 2, 6, 25], message: /still has the placeholder/ }],
    },
    {
      name: 'the marker with nothing after it',
      ...noteCase(['  # converges:', '  ttlSecondsAfterFinished: 86400'], 6),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [6, 2, 6, 25] }],
    },
    {
      name: 'a blank line between the note and the key',
      ...noteCase([`  ${NOTE}`, '', '  ttlSecondsAfterFinished: 86400'], 7),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [7, 2, 7, 25], message: /has no `# converges:` comment/ }],
    },
    {
      name: 'the note above another key',
      ...noteCase([`  ${NOTE}`, '  backoffLimit: 2', '  ttlSecondsAfterFinished: 86400'], 7),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [7, 2, 7, 25] }],
    },
    {
      name: 'a comment that does not start with the marker',
      ...noteCase(['  # this converges: because', '  ttlSecondsAfterFinished: 86400'], 6),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [6, 2, 6, 25] }],
    },
    { name: 'the note on the next line', ...noteCase(['  ttlSecondsAfterFinished: 86400', `  ${NOTE}`], 5), findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [5, 2, 5, 25] }] },
    {
      name: 'the default marker when the contract sets another',
      text: job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400']),
      contract: lines('ttl:', '  convergenceNote: "idempotent:"'),
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [6, 2, 6, 25], message: /has no `# idempotent:` comment/ }],
    },
    {
      name: 'the contract raises its severity',
      text: job(['  ttlSecondsAfterFinished: 86400']),
      contract: lines('rules:', '  ttl-convergence-note: error'),
      // analyzeFile reports default severities; the audit and the server apply `rules:` (see contract.test.ts)
      findings: [{ rule: 'ttl-convergence-note', severity: 'warning', range: [5, 2, 5, 25] }],
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// Which documents are Jobs: the roles the repository index gives files
// ---------------------------------------------------------------------------------------------

describe('file roles: kustomize patches and Helm chart templates are not Job resources', () => {
  const index = new RepoIndex();
  index.update(
    'apps/kustomization.yaml',
    lines(
      'resources:',
      '  - job.yaml',
      'patches:',
      '  - path: patch-a.yaml',
      '  - path: ./sub/patch-b.yaml',
      '    target: {kind: Job}',
      'patchesStrategicMerge:',
      '  - patch-c.yaml',
      'patchesJson6902:',
      '  - path: patch-d.yaml',
      '    target: {kind: Job, name: x}',
    ),
  );
  index.update('charts/reporter/Chart.yaml', lines('apiVersion: v2', 'name: reporter'));
  const cases: Array<[string, string]> = [
    ['apps/job.yaml', 'resource'],
    ['apps/patch-a.yaml', 'patch'],
    ['apps/sub/patch-b.yaml', 'patch'],
    ['apps/patch-c.yaml', 'patch'],
    ['apps/patch-d.yaml', 'patch'],
    ['other/patch-a.yaml', 'resource'],
    ['charts/reporter/templates/job.yaml', 'chart-template'],
    ['charts/reporter/templates/sub/job.yaml', 'chart-template'],
    ['charts/reporter/values.yaml', 'resource'],
    ['charts/other/templates/job.yaml', 'resource'],
  ];
  for (const [path, role] of cases) test(`${path} is a ${role}`, () => assert.equal(index.roleOf(path), role));

  test('a patch file is a resource again once the kustomization no longer lists it (negative control)', () => {
    const changing = new RepoIndex();
    changing.update('k/kustomization.yaml', lines('patches:', '  - path: p.yaml'));
    assert.equal(changing.roleOf('k/p.yaml'), 'patch');
    changing.update('k/kustomization.yaml', lines('resources:', '  - p.yaml'));
    assert.equal(changing.roleOf('k/p.yaml'), 'resource');
    changing.update('k/kustomization.yaml', undefined);
    assert.equal(changing.roleOf('k/p.yaml'), 'resource');
  });

  test('the same Job text is checked as a resource and skipped as a patch or chart template', () => {
    assert.deepEqual(
      analyse(BASIC).analysis.findings.map((f) => f.rule),
      ['ttl-missing'],
    );
    assert.deepEqual(analyse(BASIC).analysis.jobs, [{ name: 'migrate', ttl: null }]);
    for (const role of ['patch', 'chart-template'] as const) {
      const { analysis } = analyse(BASIC, { role });
      assert.deepEqual(analysis.findings, [], role);
      assert.deepEqual(analysis.jobs, [], `${role}: not counted as a Job`);
    }
  });

  test('a patch file that is not valid YAML is still reported; a chart template is not', () => {
    const broken = lines('kind: Job', 'spec:', '  a: 1', '   b: 2');
    assert.deepEqual(
      analyse(broken, { role: 'patch' }).analysis.findings.map((f) => f.rule),
      ['yaml-syntax'],
    );
    assert.deepEqual(analyse(broken, { role: 'chart-template' }).analysis.findings, []);
  });
});

describe('JobRecord facts the summary and contract checks use', () => {
  test('names, TTL values (null when invalid), no TTL', () => {
    const text = [job([`  ${NOTE}`, '  ttlSecondsAfterFinished: 86400'], 'a'), job(['  ttlSecondsAfterFinished: "1"'], 'b'), job([], 'c')].join('---\n');
    assert.deepEqual(analyse(text).analysis.jobs, [
      { name: 'a', ttl: { value: 86400 } },
      { name: 'b', ttl: { value: null } },
      { name: 'c', ttl: null },
    ]);
  });
});

test('ttl-unexpected-value names who requires the value: the contract file, the setting, or the default (never "the contract" without a file that sets it)', () => {
  const message = (options: Parameters<typeof analyse>[1]) => analyse(T3600, options).analysis.findings.find((f) => f.rule === 'ttl-unexpected-value')?.message ?? '';
  assert.match(message({ contract: lines('ttl:', '  required: 86400') }), /but the contract requires 86400 and/);
  assert.match(message({ settings: { requiredTtl: 60 } }), /but the ttl\.required setting requires 60 and/);
  assert.match(message({ contract: lines('ttl:', '  required: 86400'), settings: { requiredTtl: 60 } }), /but the contract requires 86400 and/, 'the contract wins');
  const none = message({});
  assert.match(none, /but the required value is 86400 \(the default: no contract file sets ttl\.required\) and/);
  assert.doesNotMatch(none, /the contract requires/);
  assert.equal(message({ settings: { requiredTtl: 86400 } }), none, "the editor's setting at its default is the default (editor = audit)");
  assert.doesNotMatch(message({ contract: lines('jobs:', '  include: ["**/*.yaml"]') }), /the contract requires/, 'a contract file that does not set ttl.required');
});
