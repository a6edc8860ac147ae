// Property-based tests of the engine (fast-check): over realistic manifests and
// random edits of them, the engine never throws, every range lies inside its
// file, every quick fix is safe to apply (see helpers/arbitraries.ts for the
// invariants), and the analysis is deterministic. A bounded number of cases
// here; `node scripts/fuzz.mjs --cases N` runs the same properties for longer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyzeFile } from '../server/src/engine/pipeline/analyze';
import { defaultContract } from '../server/src/engine/contract/load';
import { globMatcher, globToRegExp, matchesAny } from '../server/src/engine/base/glob';
import { LineIndex } from '../server/src/engine/yaml/line-index';
import { documentBoundaries, parseYamlFile } from '../server/src/engine/yaml/documents';
import { parseAllDocuments } from 'yaml';
import type { Finding } from '../server/src/engine/base/types';
import { Analyzer, applyLspEdits, auditAnalyzer, checkWorld, CONTRACT, fileAnalyzer, manifestArb, properties, RunStats, World } from './helpers/arbitraries';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);

async function run<Ts>(property: fc.IRawProperty<Ts>, numRuns: number) {
  await fc.assert(property, { numRuns: numRuns * RUNS, seed: SEED });
}

test('fuzz: analyzeFile over realistic and mutated manifests keeps every invariant', async () => {
  const stats: RunStats = { cases: 0, fixesApplied: 0 };
  await run(properties(stats).analyzeFile, 400);
  assert.ok(stats.cases >= 400, `ran ${stats.cases} cases`);
  assert.ok(stats.fixesApplied > 40, `the generators must reach the quick fixes (applied ${stats.fixesApplied})`);
});

test('fuzz: audit() over small repositories keeps every invariant', async () => {
  const stats: RunStats = { cases: 0, fixesApplied: 0 };
  await run(properties(stats).audit, 250);
  assert.ok(stats.cases >= 250, `ran ${stats.cases} cases`);
  assert.ok(stats.fixesApplied > 50, `the generators must reach the quick fixes (applied ${stats.fixesApplied})`);
});

test('fuzz: decodeFile never throws, drops the BOM, refuses NUL bytes, loses no byte', async () => {
  const stats: RunStats = { cases: 0, fixesApplied: 0 };
  await run(properties(stats).decode, 500);
  assert.equal(stats.cases, 500 * RUNS);
});

test('LineIndex counts lines as LSP does (\\n, \\r\\n and a lone \\r), at every offset', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '#', '\u2028', '🚀'), maxLength: 40 }), (text) => {
      const lines = new LineIndex(text);
      const doc = TextDocument.create('file:///x.yaml', 'yaml', 1, text);
      for (let offset = 0; offset <= text.length; offset++) {
        if (text[offset - 1] === '\r' && text[offset] === '\n') {
          assert.deepEqual(lines.position(offset), lines.position(offset - 1), 'inside a \\r\\n: the end of the line');
          continue;
        }
        if (text.charCodeAt(offset - 1) === 0xd83d) {
          assert.deepEqual(lines.position(offset), lines.position(offset - 1), 'inside a surrogate pair: before the character');
          continue;
        }
        assert.deepEqual(lines.position(offset), doc.positionAt(offset), `offset ${offset} of ${JSON.stringify(text)}`);
        assert.equal(lines.offset(doc.positionAt(offset)), offset);
      }
      assert.equal(lines.lineCount, doc.lineCount);
    }),
    { numRuns: 300, seed: SEED },
  );
});

test('a quick fix lands where it should in a file with a lone CR inside a quoted scalar', () => {
  const text = 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\n  annotations:\n    note: "first\rsecond"\nspec:\n  backoffLimit: 1\n';
  const finding = analyzeFile({ file: 'job.yaml', text, role: 'resource', contract: defaultContract(CONTRACT) }).findings.find((f) => f.rule === 'ttl-missing')!;
  assert.deepEqual(finding.range.start, { line: 7, character: 0 }, 'the range points at `spec` as an editor numbers lines');
  const fixed = applyLspEdits(text, finding.fixes![0].edits);
  assert.match(fixed, /\nspec:\n {2}# converges: TODO[^\n]*\n {2}ttlSecondsAfterFinished: 86400\n {2}backoffLimit: 1\n$/);
});

// ---- negative controls: the checker must catch broken fixes -----------------------------------------

const JOB = (eol: string) =>
  ['apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: migrate', 'spec:', '  backoffLimit: 2', '  template:', '    spec:', '      restartPolicy: Never', ''].join(eol) +
  ['---', 'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: after', ''].join(eol);

/** An analyser whose ttl-missing fixes are rewritten by `breakFix`. */
function breaking(breakFix: (finding: Finding) => void): Analyzer {
  const real = fileAnalyzer('job.yaml', 'resource');
  return async (world) => {
    const findings = await real(world);
    for (const finding of findings) if (finding.rule === 'ttl-missing' && finding.fixes) breakFix(finding);
    return findings;
  };
}

const world = (eol = '\n'): World => new Map([['job.yaml', JOB(eol)]]);

test('negative control: the real fixes of the control file pass the checker', async () => {
  assert.deepEqual(await checkWorld(world(), fileAnalyzer('job.yaml', 'resource')), []);
  assert.deepEqual(await checkWorld(world('\r\n'), fileAnalyzer('job.yaml', 'resource')), []);
  assert.deepEqual(await checkWorld(world(), auditAnalyzer()), []);
});

test('negative control: a fix that does not remove its finding is reported as not idempotent', async () => {
  const problems = await checkWorld(
    world(),
    breaking((f) => (f.fixes![0].edits[0].newText = '  # TTL comes later\n')),
  );
  assert.ok(
    problems.some((p) => /is not idempotent/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /does not remove its finding/.test(p)),
    problems.join('\n'),
  );
});

test('negative control: a fix that writes LF into a CRLF file is reported', async () => {
  const problems = await checkWorld(
    world('\r\n'),
    breaking((f) => (f.fixes![0].edits[0].newText = f.fixes![0].edits[0].newText.replace(/\r\n/g, '\n'))),
  );
  assert.ok(
    problems.some((p) => /bare LF into the CRLF file/.test(p)),
    problems.join('\n'),
  );
});

test('negative control: a fix that breaks the YAML or reaches into the next document is reported', async () => {
  const problems = await checkWorld(
    world(),
    breaking((f) => {
      const edit = f.fixes![0].edits[0];
      edit.newText = 'ttl: [\n';
      edit.range = { start: edit.range.start, end: { line: 11, character: 0 } };
    }),
  );
  assert.ok(
    problems.some((p) => /adds YAML errors/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /across a document boundary/.test(p)),
    problems.join('\n'),
  );
});

test('negative control: a fix that edits only another document, and ranges outside the file, are reported', async () => {
  const problems = await checkWorld(
    world(),
    breaking((f) => {
      f.fixes![0].edits[0].range = { start: { line: 13, character: 0 }, end: { line: 13, character: 0 } };
      f.range = { start: { line: 99, character: 0 }, end: { line: 99, character: 1 } };
    }),
  );
  assert.ok(
    problems.some((p) => /range outside job\.yaml: line 99/.test(p)),
    problems.join('\n'),
  );
  const moved = await checkWorld(
    world(),
    breaking((f) => (f.fixes![0].edits[0].range = { start: { line: 13, character: 0 }, end: { line: 13, character: 0 } })),
  );
  assert.ok(
    moved.some((p) => /edits only other documents/.test(p)),
    moved.join('\n'),
  );
});

test('negative control: a nondeterministic analysis is reported', async () => {
  let calls = 0;
  const real = fileAnalyzer('job.yaml', 'resource');
  const flaky: Analyzer = async (w) => (await real(w)).map((f) => ({ ...f, message: f.message + (calls++ % 2 === 0 ? '' : ' ') }));
  const problems = await checkWorld(world(), flaky, { maxFixes: 0 });
  assert.ok(problems.includes('two analyses of the same input differ'), problems.join('\n'));
});

test('the generators produce what they claim: Jobs, CRLF files, block scalars full of $', () => {
  const samples = fc.sample(manifestArb, { numRuns: 200, seed: SEED });
  assert.ok(
    samples.some((t) => t.includes('\r\n')),
    'CRLF',
  );
  assert.ok(
    samples.some((t) => /kind: Job/.test(t) && !/ttlSecondsAfterFinished/.test(t)),
    'a Job without TTL',
  );
  assert.ok(
    samples.some((t) => /- \|-?\r?\n\s+.*\$\{/.test(t)),
    'a block scalar with ${',
  );
  assert.ok(
    samples.some((t) => t.includes('$$')),
    '$$',
  );
  assert.ok(
    samples.some((t) => (t.match(/^---/gm) ?? []).length >= 2),
    'multi-document',
  );
});

test('glob matching (linear NFA) agrees with the glob RegExp on random globs and paths', () => {
  const part = fc.constantFrom('a', 'b', '/', '*', '**', '**/', '?', '{a,b}', '{a,{b,}}', '[ab]', '[!a]', '.', 'x.yaml', '}', ',');
  fc.assert(
    fc.property(
      fc.array(part, { maxLength: 8 }).map((p) => p.join('')),
      fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', 'x', '🚀'), maxLength: 12 }),
      (glob, path) => {
        let regexp: RegExp;
        try {
          regexp = globToRegExp(glob);
        } catch {
          assert.throws(() => globMatcher(glob));
          return;
        }
        assert.equal(globMatcher(glob)(path), regexp.test(path), `${JSON.stringify(glob)} vs ${JSON.stringify(path)}`);
      },
    ),
    { numRuns: 3000, seed: SEED },
  );
});

test('a glob built to make a backtracking RegExp explode is matched in one pass', () => {
  // As a RegExp this runs for hours on a 40-character name (the old matcher hung the audit).
  assert.equal(matchesAny('a'.repeat(40) + '.yaml', ['*a*a*a*a*a*a*a*a*a*a*a*a*b.yaml']), false);
  assert.equal(matchesAny('x/'.repeat(60) + 'a'.repeat(60), ['**/*a*a*a*a*a*a*a*a*a*a*a*a*a*b']), false);
  assert.equal(matchesAny('apps/aaab.yaml', ['**/*a*a*a*b.yaml']), true);
});

test('regression (found by the fuzzer): a file opening with a blank line, then a %YAML directive, does not hang', () => {
  const text = '\n%YAML 1.2\r\n---\r\na: 1\r\n---\r\napiVersion: batch/v1\r\nkind: Job\r\nmetadata:\r\n  name: x\r\nspec:\r\n  backoffLimit: 1\r\n';
  // documentBoundaries looped for ever here: lastIndexOf('\n', -1) answers offset 0 again and again.
  assert.deepEqual(documentBoundaries(text), [0, 1, 23]);
  // go-yaml (so kustomize) reads YAML 1.1 only: `%YAML 1.2` fails that document, the Job after it is checked
  assert.deepEqual(
    analyzeFile({ file: 'x.yaml', text, role: 'resource', contract: defaultContract(CONTRACT) }).findings.map((f) => [f.rule, f.range.start.line + 1]),
    [
      ['yaml-syntax', 2],
      ['ttl-missing', 10],
    ],
  );
  assert.deepEqual(documentBoundaries('\n%A\n%B\n---\na: 1\n'), [0, 1]);
});

test('duplicate keys are found in one pass, exactly where the parser would report them', () => {
  const key = fc.constantFrom('a', 'b', '"a"', "'b'", '1', '"1"', '0x1', 'true', 'True', '~', 'null', '[a]', '{a: 1}', '&k a', '*k', '!!str 1', '? c\n ');
  const mapping = fc.array(fc.tuple(key, fc.constantFrom('1', '{a: 1, a: 2}', '[x]', '', '"v"')), { minLength: 1, maxLength: 5 });
  fc.assert(
    fc.property(mapping, fc.boolean(), (pairs, flow) => {
      const text = flow ? `{${pairs.map(([k, v]) => `${k.trim()}: ${v || 'null'}`).join(', ')}}\n` : pairs.map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
      const reference = parseAllDocuments(text).flatMap((doc) => doc.errors.filter((e) => e.code === 'DUPLICATE_KEY').map((e) => e.pos[0]));
      const ours = parseYamlFile(text).flatMap((doc) => doc.errors.filter((e) => e.message === 'Map keys must be unique').map((e) => e.start));
      if (parseAllDocuments(text).some((doc) => doc.errors.some((e) => e.code !== 'DUPLICATE_KEY'))) return; // other errors change what the parser checks
      ours.sort((a, b) => a - b);
      reference.sort((a, b) => a - b);
      assert.equal(ours.length, reference.length, JSON.stringify(text));
      // The parser may point at the whitespace before the key; ours points at the key itself.
      ours.forEach((at, i) => assert.equal(text.slice(Math.min(at, reference[i]), Math.max(at, reference[i])).trim(), '', JSON.stringify(text)));
    }),
    { numRuns: 2000, seed: SEED },
  );
});

test("a 130,000-key ConfigMap (5 MB) is analysed in one pass (the parser's own duplicate check was quadratic)", () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n' + Array.from({ length: 130_000 }, (_, i) => `  k${i}: "${'v'.repeat(25)}"`).join('\n') + '\n  k7: again\n';
  const findings = analyzeFile({ file: 'big.yaml', text, role: 'resource', contract: defaultContract(CONTRACT) }).findings;
  assert.deepEqual(
    findings.map((f) => [f.rule, f.range.start.line]),
    [['yaml-syntax', 130_005]],
    'the duplicate key at the end is still found',
  );
});
