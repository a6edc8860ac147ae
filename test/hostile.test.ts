// Hostile inputs, each a fixture (test/fixtures/hostile/, or generated here when
// big: a 50 MB file, a 1.5 MB CRD, a 10,000-entry contract, a scalar of
// 100,000 `$`, symbolic links), run through the CLI (`audit --format json`),
// audit() and analyzeFile: nothing crashes or hangs, every finding names a
// file, line and column inside that file, and the rest of the run goes on.
// The security tests check that nothing outside the repository is ever read.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyzeFile } from '../server/src/engine/pipeline/analyze';
import { audit } from '../server/src/engine/pipeline/audit';
import { defaultContract } from '../server/src/engine/contract/load';
import { decodeFile, DEFAULT_MAX_FILE_SIZE } from '../server/src/engine/base/repo-fs';
import { RULE_IDS } from '../server/src/engine/rules/registry';
import { LineIndex } from '../server/src/engine/yaml/line-index';
import type { Finding } from '../server/src/engine/base/types';
import { NodeRepoFs } from '../server/src/node/node-repo-fs';
import { applyLspEdits, LspText, rangeOffsets } from './helpers/arbitraries';
import type { JsonFinding } from '../server/src/cli/formats';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'hostile');
const CLI = join(ROOT, 'dist', 'cli.js');
const SECRET = 'SECRET-MARKER-7f3a';

interface JsonReport {
  version: number;
  summary: { files: number; jobs: number; errors: number; warnings: number };
  findings: JsonFinding[];
}

/** Runs the CLI; a run that does not end within two minutes is a hang and fails the test (not a timing assertion). */
function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 30 });
  if (run.error) throw new Error(`flux-job-guard ${args.join(' ')} did not finish: ${run.error.message}`);
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function auditJson(dir: string, ...flags: string[]): JsonReport & { status: number | null; stdout: string } {
  const run = cli(['audit', dir, '--format', 'json', ...flags]);
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}, never 2 (or a crash): ${run.stderr}`);
  assert.equal(run.stderr, '', 'nothing on stderr');
  return { ...(JSON.parse(run.stdout) as JsonReport), status: run.status, stdout: run.stdout };
}

const JOB = (name: string) =>
  `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n  backoffLimit: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: busybox:1.36\n`;

/** Every finding's file exists (or is the contract), and its 1-based range lies inside the text the engine read. */
function assertPositionsInside(dir: string, findings: JsonFinding[]): void {
  const texts = new Map<string, LspText>();
  for (const f of findings) {
    assert.ok(RULE_IDS.has(f.rule), `unknown rule ${f.rule}`);
    assert.ok(f.file && f.line >= 1 && f.column >= 1, `file, line and column: ${JSON.stringify(f)}`);
    if (!texts.has(f.file)) {
      let text: string;
      try {
        const read = decodeFile(readFileSync(join(dir, f.file)), Number.MAX_SAFE_INTEGER);
        text = read.kind === 'text' ? read.text : '';
      } catch {
        text = ''; // the contract file may not exist (contract-no-jobs sits at 1:1)
      }
      texts.set(f.file, new LspText(text));
    }
    const lsp = texts.get(f.file)!;
    const where = rangeOffsets(lsp, { start: { line: f.line - 1, character: f.column - 1 }, end: { line: f.endLine - 1, character: f.endColumn - 1 } });
    assert.equal(typeof where, 'object', `${f.rule} ${f.file}:${f.line}:${f.column}: ${String(where)}`);
  }
}

const of = (report: JsonReport, file: string) => report.findings.filter((f) => f.file === file);
const rules = (findings: Array<{ rule: string }>) => findings.map((f) => f.rule).sort();

// ---- one repository holding every hostile file --------------------------------------------------

describe('a repository of hostile files, through the CLI', () => {
  let work: string;
  let repo: string;
  let report: JsonReport & { status: number | null; stdout: string };

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'fjg-hostile-'));
    repo = join(work, 'repo');
    cpSync(FIXTURES, repo, { recursive: true, filter: (src) => !src.includes('contract-escape') && !src.endsWith('.gitattributes') && !src.endsWith('README.md') });
    // Generated, never committed: a 50 MB file, a 1.5 MB single-document CRD, a scalar of 100,000 `$`.
    mkdirSync(join(repo, 'big'));
    const line = `# ${'x'.repeat(98)}\n`;
    writeFileSync(join(repo, 'big', 'huge.yaml'), JOB('huge') + line.repeat(Math.ceil((50 * 1024 * 1024) / line.length)));
    writeFileSync(join(repo, 'big', 'crd.yaml'), bigCrd(1.5 * 1024 * 1024));
    writeFileSync(join(repo, 'dollars.yaml'), dollarsJob());
    // A Flux Kustomization that substitutes the whole repository, so the substitution scanner meets every file.
    mkdirSync(join(repo, 'clusters'));
    writeFileSync(
      join(repo, 'clusters', 'flux.yaml'),
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: everything\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      APP: demo\n',
    );
    // Symbolic links: dangling, looping, self, a folder loop, one inside and two leading outside.
    const outside = join(work, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret-job.yaml'), `# ${SECRET}\n${JOB('secret-outside-job')}`);
    mkdirSync(join(repo, 'links'));
    symlinkSync('missing-target.yaml', join(repo, 'links', 'dangling.yaml'));
    symlinkSync('loop-b.yaml', join(repo, 'links', 'loop-a.yaml'));
    symlinkSync('loop-a.yaml', join(repo, 'links', 'loop-b.yaml'));
    symlinkSync('self.yaml', join(repo, 'links', 'self.yaml'));
    symlinkSync('..', join(repo, 'links', 'up'));
    symlinkSync('../bom.yaml', join(repo, 'links', 'inside.yaml'));
    symlinkSync(join(outside, 'secret-job.yaml'), join(repo, 'links', 'outside.yaml'));
    symlinkSync(outside, join(repo, 'links', 'outside-dir'));
    report = auditJson(repo);
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  test('the run ends (exit 1: there are errors, never 2), every finding inside its file', () => {
    assert.equal(report.status, 1);
    assertPositionsInside(repo, report.findings);
  });

  test('a 50 MB file: one file-skipped info finding, nothing else about it', () => {
    const findings = of(report, 'big/huge.yaml');
    assert.deepEqual(rules(findings), ['file-skipped']);
    assert.equal(findings[0].severity, 'info');
    assert.match(findings[0].message, /more than the size limit of 5242880 bytes/);
    assert.ok(!report.findings.some((f) => f.job === 'huge'), 'its Job was not read');
  });

  test('a 1.5 MB single-document CRD is analysed under the default limit, skipped under --max-file-size 1000000', () => {
    assert.deepEqual(of(report, 'big/crd.yaml'), [], 'a valid CRD, no Job: no finding');
    const small = auditJson(repo, '--max-file-size', '1000000');
    const skipped = of(small, 'big/crd.yaml');
    assert.deepEqual(rules(skipped), ['file-skipped']);
    assert.match(skipped[0].message, /more than the size limit of 1000000 bytes/);
    assert.deepEqual(
      of(small, 'bom.yaml').map((f) => f.rule),
      ['ttl-missing'],
      'the other files still count',
    );
  });

  test('a binary file and invalid UTF-8 named .yaml: one yaml-syntax finding each at 1:1', () => {
    for (const [file, why] of [
      ['binary.yaml', /binary/],
      ['invalid-utf8.yaml', /not valid UTF-8/],
    ] as const) {
      const findings = of(report, file);
      assert.deepEqual(rules(findings), ['yaml-syntax'], file);
      assert.match(findings[0].message, why);
      assert.deepEqual([findings[0].line, findings[0].column], [1, 1]);
    }
  });

  test('a BOM does not shift positions; CRLF files are read line by line', () => {
    assert.deepEqual(
      of(report, 'bom.yaml').map((f) => [f.rule, f.line, f.column]),
      [['ttl-missing', 5, 1]],
    );
    assert.deepEqual(
      of(report, 'crlf.yaml').map((f) => [f.rule, f.line, f.column, f.endColumn]),
      [['ttl-missing', 5, 1, 5]],
    );
  });

  test('tabs in indentation and duplicate keys are yaml-syntax findings with their line and column', () => {
    const tabs = of(report, 'tabs.yaml');
    assert.deepEqual(
      tabs.map((f) => [f.rule, f.line, f.column]),
      [['yaml-syntax', 6, 1]],
    );
    assert.match(tabs[0].message, /Tabs/);
    const dup = of(report, 'duplicate-keys.yaml');
    assert.deepEqual(
      dup.map((f) => [f.rule, f.line, f.column]),
      [['yaml-syntax', 7, 3]],
    );
    assert.match(dup[0].message, /unique/);
  });

  test('duplicate anchors and custom tags (!Ref, !env_var) parse: the Jobs are checked', () => {
    assert.deepEqual(rules(of(report, 'duplicate-anchors.yaml')), ['ttl-missing']);
    assert.deepEqual(rules(of(report, 'custom-tags.yaml')), ['ttl-missing']);
  });

  test('an alias bomb is never expanded: each bombed document is a yaml-syntax error (Flux fails it), the clean Job before them is checked, the report stays small', () => {
    const bomb = of(report, 'alias-bomb.yaml');
    // documents 2-4 alias more than go-yaml allows, each at the alias where its limit is crossed (see test/yaml-aliasing.test.ts)
    assert.deepEqual(
      bomb.map((f) => [f.rule, f.line, f.column, f.job]),
      [
        ['ttl-missing', 6, 1, 'alias-bomb'],
        ['yaml-syntax', 19, 17, null],
        ['yaml-syntax', 35, 24, null],
        ['yaml-syntax', 60, 24, null],
      ],
    );
    for (const f of bomb.filter((f) => f.rule === 'yaml-syntax')) {
      assert.equal(f.severity, 'error');
      assert.match(f.message, /document contains excessive aliasing/);
      assert.match(f.message, /Flux fails to build this file\. Kustomization "everything" fails and applies nothing$/);
    }
    assert.ok(report.stdout.length < 2_000_000, `report of ${report.stdout.length} characters`);
  });

  test('10,000-deep flow collections: a clear yaml-syntax finding, and the next document is still checked', () => {
    const deep = of(report, 'deep-flow.yaml');
    assert.deepEqual(rules(deep), ['ttl-missing', 'yaml-syntax']);
    const syntax = deep.find((f) => f.rule === 'yaml-syntax')!;
    assert.equal(syntax.line, 6);
    assert.match(syntax.message, /nest too deeply/);
    assert.equal(deep.find((f) => f.rule === 'ttl-missing')!.job, 'after-deep');
    assert.match(of(report, 'deep-flow-map.yaml')[0].message, /nest too deeply/);
  });

  test('a Helm template: quiet inside a chart, a yaml-syntax finding that says "template" elsewhere', () => {
    assert.deepEqual(of(report, 'helm-chart/templates/job.yaml'), []);
    const stray = of(report, 'helm-stray/templates/job.yaml');
    assert.deepEqual(rules(stray), ['yaml-syntax']);
    assert.match(stray[0].message, /Helm or Go template/);
  });

  test('a scalar of 100,000 `$` under substitution: analysed, and the Job is checked', () => {
    const findings = of(report, 'dollars.yaml');
    assert.ok(!findings.some((f) => f.rule === 'yaml-syntax'), JSON.stringify(findings.slice(0, 3)));
    assert.ok(!findings.some((f) => f.rule === 'ttl-missing'), 'its TTL was read');
  });

  test('symbolic links: dangling and looping ones are ignored, none is followed out of the repository', () => {
    const links = report.findings.filter((f) => f.file.startsWith('links/'));
    assert.deepEqual(
      links.map((f) => [f.file, f.rule]),
      [['links/inside.yaml', 'ttl-missing']],
      'only the link that stays inside is read',
    );
    assert.ok(!report.stdout.includes('secret-outside-job') && !report.stdout.includes(SECRET), 'nothing from outside');
    assert.ok(!report.findings.some((f) => f.file.startsWith('links/up/')), 'a linked folder is not descended');
  });
});

function bigCrd(bytes: number): string {
  let text =
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: hostiles.example.com\nspec:\n  group: example.com\n  names:\n    kind: Hostile\n    plural: hostiles\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n';
  for (let i = 0; text.length < bytes; i++) {
    text += `            field${i}:\n              type: string\n              description: "Field ${i} of a very large schema, with nothing Flux would substitute"\n`;
  }
  return text;
}

function dollarsJob(): string {
  const d = '$'.repeat(100_000);
  return `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: dollars\nspec:\n  ttlSecondsAfterFinished: 86400 # converges: it only prints\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: main\n          image: busybox:1.36\n          command:\n            - /bin/sh\n            - -c\n            - |\n              echo '${d}'\n          args: ["${d}", '${d}x', ${d}]\n`;
}

// ---- the same files through analyzeFile and audit() ---------------------------------------------

describe('hostile files through analyzeFile', () => {
  const contract = defaultContract('.flux-job-guard.yaml');
  const analyze = (file: string, text: string) => analyzeFile({ file, text, role: 'resource', contract }).findings;
  const fixture = (name: string) => {
    const read = decodeFile(readFileSync(join(FIXTURES, name)), DEFAULT_MAX_FILE_SIZE);
    assert.equal(read.kind, 'text', name);
    return (read as { text: string }).text;
  };

  test('every text fixture: no throw, deterministic, ranges inside the text', () => {
    for (const name of [
      'alias-bomb.yaml',
      'bom.yaml',
      'crlf.yaml',
      'tabs.yaml',
      'deep-flow.yaml',
      'deep-flow-map.yaml',
      'duplicate-keys.yaml',
      'duplicate-anchors.yaml',
      'custom-tags.yaml',
      'helm-stray/templates/job.yaml',
    ]) {
      const text = fixture(name);
      const findings = analyze(name, text);
      assert.deepEqual(analyze(name, text), findings, `${name}: deterministic`);
      const lsp = new LspText(text);
      for (const f of findings) assert.equal(typeof rangeOffsets(lsp, f.range), 'object', `${name}: ${f.rule} ${JSON.stringify(f.range)}`);
    }
  });

  test('the BOM is dropped on reading: positions count from the first real character', () => {
    const text = fixture('bom.yaml');
    assert.ok(!text.startsWith('\ufeff'));
    assert.ok(
      readFileSync(join(FIXTURES, 'bom.yaml'))
        .subarray(0, 3)
        .equals(Buffer.from([0xef, 0xbb, 0xbf])),
      'the fixture does start with a BOM',
    );
    assert.deepEqual(analyze('bom.yaml', text)[0].range.start, { line: 4, character: 0 });
  });

  test('CRLF: the insert-TTL fix writes CRLF and keeps every other byte', () => {
    const text = fixture('crlf.yaml');
    assert.ok(text.includes('\r\n') && !/[^\r]\n/.test(text), 'the fixture is CRLF (kept by .gitattributes)');
    const missing = analyze('crlf.yaml', text).find((f) => f.rule === 'ttl-missing')!;
    const insert = missing.fixes!.find((fix) => fix.preferred)!;
    const fixed = applyLspEdits(text, insert.edits);
    assert.ok(!/[^\r]\n/.test(fixed), 'no bare LF after the fix');
    assert.equal(fixed.replace(insert.edits[0].newText, ''), text);
    assert.deepEqual(
      analyze('crlf.yaml', fixed).map((f) => f.rule),
      ['ttl-convergence-note'],
    );
  });

  test('deep nesting with little stack left: the RangeError becomes a yaml-syntax finding', () => {
    const text = fixture('deep-flow.yaml');
    // Use up most of the stack first, as a deep call chain in a server would.
    let depth = 0;
    const probe = (n: number): number => (n === 0 ? 0 : probe(n - 1) + 1);
    for (let n = 1000; ; n += 1000) {
      try {
        probe(n);
        depth = n;
      } catch {
        break;
      }
    }
    const outcomes = new Set<string>();
    for (const fraction of [0.5, 0.8, 0.9, 0.95]) {
      const deepCall = (n: number): Finding[] => {
        if (n === 0) return analyze('deep-flow.yaml', text);
        const result = deepCall(n - 1);
        return result;
      };
      try {
        const findings = deepCall(Math.floor(depth * fraction * 0.5));
        assert.ok(findings.some((f) => f.rule === 'yaml-syntax' && /nest too deeply/.test(f.message)));
        outcomes.add(JSON.stringify(findings));
      } catch (error) {
        assert.fail(`analyzeFile threw at ${fraction} of the stack: ${String(error)}`);
      }
    }
    assert.equal(outcomes.size, 1, 'the same findings whatever stack is left');
  });

  test('positions never split a surrogate pair or a CRLF', () => {
    const text = 'apiVersion: batch/v1\r\nkind: Job\r\nmetadata:\r\n  name: "🚀\r\nspec: {}\r\n';
    for (const f of analyze('x.yaml', text)) {
      const lines = new LineIndex(text);
      assert.equal(typeof rangeOffsets(new LspText(text), f.range), 'object', JSON.stringify(f.range));
      assert.ok(f.range.end.character <= lines.lineText(f.range.end.line).length);
    }
  });
});

describe('hostile contracts', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'fjg-contract-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const repoWith = (name: string, files: Record<string, string>) => {
    const dir = join(work, name);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  test('10,000 entries: every one checked, the run ends, the Job is still checked', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => `    - file: apps/missing-${i}.yaml\n      reason: entry ${i}\n`).join('');
    const dir = repoWith('many', { '.flux-job-guard.yaml': `ttl:\n  noFinishTimeout:\n${entries}`, 'apps/job.yaml': JOB('many') });
    const report = auditJson(dir);
    assert.equal(report.findings.filter((f) => f.rule === 'contract-file-missing').length, 10_000);
    assert.deepEqual(
      report.findings.filter((f) => f.file === 'apps/job.yaml').map((f) => f.rule),
      ['ttl-missing'],
    );
    assertPositionsInside(dir, report.findings);
  });

  test('huge and pathological globs: a finding for the unusable ones, no hang for the backtracking ones', () => {
    const include = [
      'x'.repeat(100_000), // too long
      '*a*a*a*a*a*a*a*a*a*a*a*a*b.yaml', // a backtracking RegExp would run for hours on the file below
      '{a,b}'.repeat(40) + '/**', // 2^40 alternatives if expanded
      '{'.repeat(500) + 'apps' + '}'.repeat(500) + '/**',
      '[',
      '{unclosed',
      'apps/**',
    ];
    const dir = repoWith('globs', {
      '.flux-job-guard.yaml': `jobs:\n  include:\n${include.map((g) => `    - ${JSON.stringify(g)}\n`).join('')}`,
      [`apps/${'a'.repeat(60)}.yaml`]: JOB('long-name'),
      'apps/job.yaml': JOB('globbed'),
    });
    const report = auditJson(dir);
    const invalid = report.findings.filter((f) => f.rule === 'contract-invalid');
    assert.ok(
      invalid.some((f) => /longer than 1000/.test(f.message)),
      'the 100,000-character glob is refused',
    );
    assert.ok(
      invalid.some((f) => /\{unclosed/.test(f.message)),
      'the malformed glob is refused',
    );
    assert.deepEqual(
      report.findings
        .filter((f) => f.rule === 'ttl-missing')
        .map((f) => f.job)
        .sort(),
      ['globbed', 'long-name'],
    );
  });

  test('contract file: entries with `..`, absolute paths and globs are findings; nothing outside is read', () => {
    const dir = join(work, 'escape', 'repo');
    cpSync(join(FIXTURES, 'contract-escape'), dir, { recursive: true });
    mkdirSync(join(work, 'escape', 'outside'));
    writeFileSync(join(work, 'escape', 'outside', 'secret-job.yaml'), `# ${SECRET}\n${JOB('secret-outside-job')}`);
    const report = auditJson(dir);
    const contract = report.findings.filter((f) => f.file === '.flux-job-guard.yaml');
    assert.ok(contract.filter((f) => f.rule === 'contract-invalid' && /points outside the repository/.test(f.message)).length >= 4, JSON.stringify(contract.map((f) => f.message)));
    assert.ok(contract.some((f) => /must name one file, not a glob/.test(f.message)));
    assert.ok(!report.stdout.includes(SECRET) && !report.stdout.includes('secret-outside-job'));
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'ttl-missing').map((f) => f.file),
      ['apps/job.yaml'],
      'the inside Job is checked; the `../**` include adds nothing',
    );
  });
});

test('130,000 findings in one file (a substituted ConfigMap): reported, no stack overflow', () => {
  // push(...findings) overflowed the stack past about 120,000 items: the CLI died with a RangeError.
  const work = mkdtempSync(join(tmpdir(), 'fjg-many-'));
  try {
    writeFileSync(
      join(work, 'flux.yaml'),
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: all\nspec:\n  interval: 10m\n  path: ./\n  sourceRef:\n    kind: GitRepository\n    name: x\n  postBuild:\n    substitute:\n      APP: x\n',
    );
    writeFileSync(join(work, 'many.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: many\ndata:\n' + Array.from({ length: 130_000 }, (_, i) => `  k${i}: \${V${i}}`).join('\n') + '\n');
    writeFileSync(join(work, 'job.yaml'), JOB('many-job'));
    const report = auditJson(work);
    assert.equal(report.findings.filter((f) => f.file === 'many.yaml' && f.rule === 'flux-substitution-undefined').length, 130_000);
    assert.deepEqual(
      report.findings.filter((f) => f.file === 'job.yaml').map((f) => f.rule),
      ['ttl-missing'],
      'the other file is still checked',
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a Flux patch target name that makes a backtracking RegExp explode: the audit ends', async () => {
  // kustomize matches target names with RE2 (linear); as a JS RegExp, `(a|aa)+$b` against a
  // 50-letter Kustomization name ran for hours.
  const work = mkdtempSync(join(tmpdir(), 'fjg-redos-'));
  try {
    const ks = (name: string, extra = '') =>
      `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
    const patch =
      '  patches:\n    - patch: |-\n        apiVersion: kustomize.toolkit.fluxcd.io/v1\n        kind: Kustomization\n        metadata:\n          name: not-used\n        spec:\n          postBuild:\n            substitute:\n              X: y\n      target:\n        kind: Kustomization\n        name: "(a|aa)+$b"\n';
    mkdirSync(join(work, 'apps'));
    writeFileSync(join(work, 'parent.yaml'), ks('parent', patch));
    writeFileSync(join(work, 'apps', 'child.yaml'), ks('a'.repeat(50)));
    writeFileSync(join(work, 'apps', 'job.yaml'), JOB('redos'));
    const result = await audit(new NodeRepoFs(work));
    assert.deepEqual(
      result.findings.filter((f) => f.file === 'apps/job.yaml').map((f) => f.rule),
      ['ttl-missing'],
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

describe('security: paths that leave the repository are findings and are never read', () => {
  let work: string;
  let repo: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'fjg-escape-'));
    repo = join(work, 'repo');
    const outside = join(work, 'outside');
    mkdirSync(outside);
    // Outside: a Job with an undefined variable, a `$$` and no TTL, that any reading would report.
    const secretJob = `# ${SECRET}\n${JOB('secret-outside-job')}          command: ["sh", "-c", "echo \${OUTSIDE_UNDEFINED} $$"]\n`;
    writeFileSync(join(outside, 'secret-job.yaml'), secretJob);
    writeFileSync(join(outside, 'kustomization.yaml'), 'resources:\n  - secret-job.yaml\n');
    const files: Record<string, string> = {
      '.flux-job-guard.yaml':
        'ttl:\n  noFinishTimeout:\n    - file: ../outside/secret-job.yaml\n      reason: outside\n  otherFinishTimeout:\n    - file: apps/../../outside/secret-job.yaml\n      value: 60\n      reason: outside again\n',
      'apps/kustomization.yaml': 'resources:\n  - job.yaml\n  - ../../outside/secret-job.yaml\n  - /etc/passwd\ncomponents:\n  - ../../outside\npatches:\n  - path: ../../outside/secret-job.yaml\n',
      'apps/job.yaml': `${JOB('inside')}          command: ["sh", "-c", "echo \${APP}"]\n`,
      'clusters/flux.yaml':
        'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: outside\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ../outside\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      APP: x\n' +
        '---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      APP: x\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    symlinkSync(join(outside, 'secret-job.yaml'), join(repo, 'apps', 'link.yaml'));
    symlinkSync(outside, join(repo, 'apps', 'outside-dir'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the CLI: contract entries and references that leave are findings; the outside Job never shows', () => {
    const report = auditJson(repo);
    const text = report.stdout;
    assert.ok(!text.includes(SECRET) && !text.includes('secret-outside-job') && !text.includes('OUTSIDE_UNDEFINED'), 'no content of the outside file');
    assert.ok(!report.findings.some((f) => f.file.includes('..') || f.file.startsWith('/')), 'no finding on a path outside');
    const contract = report.findings.filter((f) => f.file === '.flux-job-guard.yaml' && f.rule === 'contract-invalid');
    assert.equal(contract.length, 2, 'both contract entries that leave are findings');
    const references = report.findings.filter((f) => /points outside the repository/.test(f.message) && f.file !== '.flux-job-guard.yaml');
    assert.ok(
      references.some((f) => f.file === 'apps/kustomization.yaml' && f.line === 3),
      'resources: ../../outside/...',
    );
    // spec.path is joined to the artifact's root by securejoin: `..` is clamped there, never read outside
    assert.ok(
      report.findings.some((f) => f.file === 'clusters/flux.yaml' && f.line === 8 && /climbs above the root of the repository; Flux clamps it there/.test(f.message)),
      'spec.path: ../outside',
    );
    assert.equal(report.summary.jobs, 1, 'only the inside Job counts');
  });

  test('audit() over NodeRepoFs: reading a path that leaves answers "missing", never the content', async () => {
    const fs = new NodeRepoFs(repo);
    for (const path of ['../outside/secret-job.yaml', 'apps/../../outside/secret-job.yaml', '/etc/passwd', 'apps/outside-dir/secret-job.yaml']) {
      const read = await fs.read(path);
      assert.notEqual(read.kind, 'text', path);
    }
    assert.equal((await fs.read('apps/link.yaml')).kind, 'skipped', 'a link that leaves is not read');
    const files = await fs.listFiles();
    assert.ok(!files.some((f) => f.startsWith('apps/outside-dir/')), 'a linked folder is not listed');
    const result = await audit(fs);
    assert.ok(!JSON.stringify(result).includes(SECRET));
    assert.ok(!result.findings.some((f) => f.job === 'secret-outside-job'));
  });
});
