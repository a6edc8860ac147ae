// Excessive aliasing: kustomize decodes manifests with go-yaml, which stops a
// document whose aliases expand too far ("yaml: document contains excessive
// aliasing"), so Flux fails to build the file. The engine counts what go-yaml
// counts without expanding anything and reports a yaml-syntax error at the
// alias where the limit is crossed. A table of documents, with negative
// controls (ordinary anchors, merge keys, a bomb too small for the limit), then
// the same through the CLI audit and the editor (language server, default settings).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { analyzeFile } from '../server/src/engine/pipeline/analyze';
import { defaultContract } from '../server/src/engine/contract/load';
import { excessiveAliasing, mayAlias, parseYamlFile } from '../server/src/engine/yaml/documents';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { lines } from './helpers/table';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/** The billion laughs: `levels` anchors, each a list of `fanout` aliases of the one before (the first holds scalars). */
function laughs(levels: number, fanout: number, indent = ''): string {
  let text = `${indent}a0: &a0 [${Array(fanout).fill('lol').join(', ')}]\n`;
  for (let level = 1; level < levels; level++)
    text += `${indent}a${level}: &a${level} [${Array(fanout)
      .fill(`*a${level - 1}`)
      .join(', ')}]\n`;
  return text;
}

const JOB_HEAD = lines('apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: laughing', '  labels:');
const JOB_TAIL = lines(
  'spec:',
  '  # converges: it only prints',
  '  ttlSecondsAfterFinished: 86400',
  '  template:',
  '    spec:',
  '      restartPolicy: Never',
  '      containers:',
  '        - name: main',
  '          image: busybox:1.36',
);

interface Case {
  name: string;
  text: string;
  /** 1-based line and column of the alias where go-yaml's limit is crossed; null: no finding. */
  at: [number, number] | null;
}

const CASES: Case[] = [
  {
    name: 'a few ordinary aliases: a shared list and a merge key (negative control)',
    text: lines(
      'defaults: &defaults {restartPolicy: Never}',
      'env: &env [{name: A, value: "1"}, {name: B, value: "2"}]',
      'first: {<<: *defaults, env: *env}',
      'second: {<<: *defaults, env: *env}',
      'third: *env',
    ),
    at: null,
  },
  {
    name: 'an anchor defined twice, the alias takes the later one (negative control)',
    text: lines('first: &x one', 'second: &x two', 'third: *x'),
    at: null,
  },
  // go-yaml v3 decodes laughs(3, 10) (1,358 nodes, 97% aliased) and refuses laughs(4, 10)
  { name: 'three levels of ten: 97% of 1,358 nodes from aliases, under the limit (negative control)', text: laughs(3, 10), at: null },
  { name: 'four levels of ten: the limit (99%) is crossed at the third alias of the last level', text: laughs(4, 10), at: [4, 20] },
  { name: 'a billion laughs (9 levels of 9): stopped at the fourth alias of level 3', text: laughs(9, 9), at: [4, 25] },
  { name: 'thirty levels (9^30 nodes if anything expanded them): stopped where the billion laughs is', text: laughs(30, 9), at: [4, 25] },
  { name: 'a bomb in the labels of a Job: the twelve nodes before it move the limit to the fifth alias', text: JOB_HEAD + laughs(9, 9, '    ') + JOB_TAIL, at: [9, 34] },
];

const contract = defaultContract('.flux-job-guard.yaml');

describe('excessive aliasing, as go-yaml refuses it', () => {
  for (const { name, text, at } of CASES) {
    test(name, () => {
      const findings = analyzeFile({ file: 'apps/laughs.yaml', text, role: 'resource', contract }).findings;
      const syntax = findings.filter((f) => f.rule === 'yaml-syntax');
      if (at === null) {
        assert.deepEqual(syntax, [], 'no yaml-syntax finding');
        assert.equal(excessiveAliasing(parseYamlFile(text)[0].doc), null);
        return;
      }
      assert.deepEqual(
        findings.map((f) => f.rule),
        ['yaml-syntax'],
        'only the syntax error: the document is not analysed further, as Flux does not build it',
      );
      const [finding] = syntax;
      assert.equal(finding.severity, 'error');
      assert.deepEqual([finding.range.start.line + 1, finding.range.start.character + 1], at);
      const line = text.split('\n')[at[0] - 1];
      const alias = line.slice(at[1] - 1, finding.range.end.character);
      assert.match(alias, /^\*a\d+$/, `the range is the alias: ${alias}`);
      // the file's own analysis says where go-yaml stops; that Flux then fails to build the file is said where the model knows Flux reads it (test/yaml-syntax-scope.test.ts)
      assert.match(finding.message, /^Not valid YAML: .*"document contains excessive aliasing" here$/);
    });
  }

  test('one bombed document among clean ones: only it is an error, the Job after it is still checked', () => {
    const text =
      laughs(9, 9) +
      '---\n' +
      JOB_HEAD.replace('  labels:\n', '') +
      'spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: busybox:1.36\n';
    const findings = analyzeFile({ file: 'apps/laughs.yaml', text, role: 'resource', contract }).findings;
    assert.deepEqual(
      findings.map((f) => [f.rule, f.range.start.line + 1]),
      [
        ['yaml-syntax', 4],
        ['ttl-missing', 15],
      ],
    );
  });
});

describe('mayAlias: the text test that spares the walk (and, in the editor, the parse)', () => {
  const table: Array<[string, string, boolean]> = [
    ['an anchor and its alias', lines('a: &x 1', 'b: *x'), true],
    ['in a flow sequence', '[&x 1, *x]\n', true],
    ['a tag before the anchor', lines('a: !!str &x one', 'b: *x'), true],
    ['a sequence item and a merge key', lines('- &base {a: 1}', '- {<<: *base}'), true],
    ['the laughs', laughs(3, 10), true],
    ['prose of a CRD: `a && b` and **bold** (negative control)', lines('description: run a && b, then **bold** text', '  && apt-get install -y curl'), false],
    ['an alias of another name (negative control)', lines('a: &x 1', 'b: *y'), false],
    ['no anchor at all (negative control)', lines('a: 1', 'b: *x'), false],
  ];
  for (const [name, text, expected] of table) test(name, () => assert.equal(mayAlias(text), expected));

  test('every document the walk finds aliasing in passes the text test (the bombs of the table above)', () => {
    for (const { text, at } of CASES) if (at !== null) assert.equal(mayAlias(text), true);
  });
});

after(removeTempRepos);

describe('excessive aliasing through the CLI and the editor', () => {
  const bombJob = JOB_HEAD + laughs(9, 9, '    ') + JOB_TAIL;

  test('the audit reports the file and fails', () => {
    const repo = tempRepo('fjg-aliasing-', { 'apps/laughs.yaml': bombJob, 'apps/ok.yaml': JOB_HEAD.replace('  labels:\n', '') + JOB_TAIL });
    const run = spawnSync(process.execPath, [CLI, 'audit', repo, '--no-git'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^apps\/laughs\.yaml:9:34: error yaml-syntax Not valid YAML: .*excessive aliasing/m);
    assert.match(run.stdout, /FAIL: 1 error\(s\), 0 warning\(s\) in 1 Job\(s\) in 1 file\(s\)$/m);
  });

  test('the editor shows it with default settings (YAML extensions do not), and not once the bomb is defused', async () => {
    const repo = tempRepo('fjg-aliasing-', { 'apps/laughs.yaml': bombJob });
    const uri = fileUri(join(repo, 'apps/laughs.yaml'));
    const client = new TestLspClient();
    try {
      await client.initialize(repo);
      client.open(uri, bombJob);
      const [diagnostic] = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'yaml-syntax'), 30_000);
      assert.deepEqual(diagnostic.range.start, { line: 8, character: 33 });
      assert.equal(diagnostic.severity, 1, 'an error');
      assert.match(messageText(diagnostic), /excessive aliasing/);
      const defused = JOB_HEAD + laughs(3, 10, '    ') + JOB_TAIL;
      client.change(uri, defused);
      assert.deepEqual(await client.waitForDiagnostics(uri, (d) => d.length === 0, 30_000), []);
    } finally {
      await client.shutdown();
    }
  });
});
