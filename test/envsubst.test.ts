// The Flux substitution model (server/src/engine/flux/envsubst.ts) against the 282 vectors produced
// by running fluxcd/pkg envsubst v1.7.0 itself, plus the position-keeping scan the linter uses,
// the `flux-job-guard envsubst` command, and inputs large enough to expose recursion.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { envsubst, EnvsubstResult, validateVarName, VALID_VAR_NAME } from '../server/src/engine/flux/substitution/envsubst/template';
import { scanSubstitutions } from '../server/src/engine/flux/substitution/envsubst/occurrences';
import { ExpressionOccurrence } from '../server/src/engine/flux/substitution/envsubst/node';
import { runEnvsubst } from '../server/src/cli/envsubst-command';

interface Vector {
  input: string;
  vars: Record<string, string>;
  strict: boolean;
  output: string | null;
  error: string | null;
}

const vectors = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures/envsubst-vectors.json'), 'utf8')) as Vector[];

const lookupIn = (vars: Record<string, string>) => (name: string) => (Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : undefined);

const run = (v: Pick<Vector, 'input' | 'vars' | 'strict'>): EnvsubstResult => envsubst(v.input, lookupIn(v.vars), { strict: v.strict });

/** Null when `result` is what the vector expects, else what differs. */
function mismatch(v: Vector, result: EnvsubstResult): string | null {
  const want = v.error === null ? `output ${JSON.stringify(v.output)}` : `error ${JSON.stringify(v.error)}`;
  const got = result.ok ? `output ${JSON.stringify(result.output)}` : `error ${JSON.stringify(result.error)}`;
  return want === got ? null : `want ${want}, got ${got}`;
}

// ---------------------------------------------------------------------------------------------

describe('conformance: fluxcd/pkg envsubst v1.7.0 vectors', () => {
  test('the fixture is the full set', () => {
    assert.equal(vectors.length, 282);
    assert.equal(vectors.filter((v) => v.error !== null).length > 0, true);
  });

  vectors.forEach((v, index) => {
    test(`#${index} ${v.strict ? 'strict' : 'lax'} ${JSON.stringify(v.input)}`, () => {
      const problem = mismatch(v, run(v));
      assert.equal(problem, null, `vector #${index} ${JSON.stringify(v.input)}: ${problem}`);
    });
  });
});

describe('negative controls: the checks can fail', () => {
  test('a wrong expected output is detected', () => {
    const v = vectors.find((x) => x.input === '$${KERNEL_TAG}')!;
    assert.equal(mismatch(v, run(v)), null);
    assert.notEqual(mismatch({ ...v, output: '$${KERNEL_TAG}' }, run(v)), null);
    assert.notEqual(mismatch({ ...v, output: '6.1.2' }, run(v)), null);
  });

  test('a wrong expected error, or an error where output is expected, is detected', () => {
    const v = vectors.find((x) => x.input === '${VAR-def}')!;
    assert.equal(mismatch(v, run(v)), null);
    assert.notEqual(mismatch({ ...v, error: 'bad substitution' }, run(v)), null);
    assert.notEqual(mismatch({ ...v, error: null, output: '${VAR-def}' }, run(v)), null);
  });

  test('$$ is not left alone, and strictness matters', () => {
    assert.notDeepEqual(
      envsubst('$$', () => undefined, { strict: false }),
      { ok: true, output: '$$' },
    );
    assert.deepEqual(
      envsubst('$$', () => undefined, { strict: false }),
      { ok: true, output: '$' },
    );
    assert.notDeepEqual(
      envsubst('${HOME}', () => undefined, { strict: true }),
      envsubst('${HOME}', () => undefined, { strict: false }),
    );
  });

  test('an offset off by one is detected', () => {
    const [occurrence] = scanSubstitutions('x ${X}');
    assert.notDeepEqual(occurrence, { kind: 'expression', start: 1, end: 6, name: 'X', operator: null, hasDefault: false, nested: [] });
  });
});

// ---------------------------------------------------------------------------------------------

describe('beyond the vectors (behaviour read from the Go source)', () => {
  const vars = { X: 'hello world', F: 'path/to/file', K: 'KÖNIG', A: 'abc', E: '' };
  const lax = (input: string) => envsubst(input, lookupIn(vars), { strict: false });
  const strict = (input: string) => envsubst(input, lookupIn(vars), { strict: true });
  const out = (output: string): EnvsubstResult => ({ ok: true, output });
  const err = (error: string): EnvsubstResult => ({ ok: false, error });

  test('glob trims let * match /, as drone/envsubst path.Match does', () => {
    assert.deepEqual(lax('${F##*/}'), out('file'));
    assert.deepEqual(lax('${F#*/}'), out('to/file'));
    assert.deepEqual(lax('${F%/*}'), out('path/to'));
    assert.deepEqual(lax('${F%%/*}'), out('path'));
    assert.deepEqual(lax('${A#[}'), out('abc'), 'a malformed pattern leaves the value alone');
  });

  test('the shortest trim never matches the empty prefix', () => {
    assert.deepEqual(lax('${A#*}'), out('bc'));
    assert.deepEqual(lax('${A%*}'), out('ab'));
  });

  test('lengths and offsets count UTF-8 bytes', () => {
    assert.deepEqual(lax('${#K}'), out('6'));
    assert.deepEqual(lax('${K:0:1}'), out('K'));
    assert.deepEqual(lax('${K,,}'), out('könig'));
  });

  test('substrings: Atoi offsets, negative length counts from the end', () => {
    assert.deepEqual(lax('${X:2:-1}'), out('llo worl'));
    assert.deepEqual(lax('${X:8:-8}'), out(''));
    assert.deepEqual(lax('${A:01}'), out('bc'));
    assert.deepEqual(lax('${A:1::1}'), out('b'));
    assert.deepEqual(lax('${A:${E}}'), out('abc'));
  });

  test('replacements', () => {
    assert.deepEqual(lax('${F/\\//-}'), out('path-to/file'));
    assert.deepEqual(lax('${F//\\//-}'), out('path-to-file'));
    assert.deepEqual(lax('${X/#/pre-}'), out('pre-hello world'));
    assert.deepEqual(lax('${X/#hello/}'), out('hello world'), 'Go needs two arguments for /#');
    assert.deepEqual(lax('${A/b/}'), out('ac'));
    assert.deepEqual(lax('${A/a}b/x}'), out('abc'), 'the pattern runs past the } to the next /');
  });

  test('defaults: no $$ escape inside, arguments evaluated first in strict mode', () => {
    assert.deepEqual(lax('${U:-a$$b}'), out('a$$b'));
    assert.deepEqual(lax('${E:-${A}}'), out('abc'));
    assert.deepEqual(strict('${X:-${UNSET}}'), err('variable not set (strict mode): "UNSET"'));
  });

  test('lexer quirks', () => {
    assert.deepEqual(lax('${X:é}'), err('bad substitution'), 'unread() steps back by the peeked rune');
    assert.deepEqual(lax('${X:'), err('bad substitution'));
    assert.deepEqual(lax('a\0${X}b'), out('a'), 'rune 0 is the end of input');
    assert.deepEqual(lax('${A,^}'), out('abc'));
    assert.deepEqual(lax('${U:-x} ${'), err('unable to parse variable name'), 'parse errors win');
    assert.deepEqual(strict('${U} ${'), err('unable to parse variable name'));
  });
});

// ---------------------------------------------------------------------------------------------

describe('scanSubstitutions', () => {
  const expr = (start: number, end: number, name: string, operator: string | null = null, nested: ExpressionOccurrence[] = []): ExpressionOccurrence => ({
    kind: 'expression',
    start,
    end,
    name,
    operator,
    hasDefault: operator !== null && ['=', ':=', ':-', ':?', ':+'].includes(operator),
    nested,
  });

  const cases: [string, unknown[]][] = [
    ['${X}', [expr(0, 4, 'X')]],
    ['$${X}', [{ kind: 'escape', start: 0, end: 2, next: '{' }]],
    [
      '$$$${X}',
      [
        { kind: 'escape', start: 0, end: 2, next: '$' },
        { kind: 'escape', start: 2, end: 4, next: '{' },
      ],
    ],
    ['$$${X}', [{ kind: 'escape', start: 0, end: 2, next: '$' }, expr(2, 6, 'X')]],
    ['kill $$', [{ kind: 'escape', start: 5, end: 7, next: '' }]],
    ['$$ ', [{ kind: 'escape', start: 0, end: 2, next: ' ' }]],
    ['$$?', [{ kind: 'escape', start: 0, end: 2, next: '?' }]],
    ['${X:-${Y}}', [expr(0, 10, 'X', ':-', [expr(5, 9, 'Y')])]],
    ['${X:-a${Y:-${Z}}b}', [expr(0, 18, 'X', ':-', [expr(6, 16, 'Y', ':-', [expr(11, 15, 'Z')])])]],
    ['${arr[@]}', [{ kind: 'syntax-error', start: 0, end: 6, error: 'missing closing brace' }]],
    ['${VAR-def}', [{ kind: 'syntax-error', start: 0, end: 6, error: 'missing closing brace' }]],
    ['${}', [{ kind: 'syntax-error', start: 0, end: 3, error: 'unable to parse variable name' }]],
    ['echo ${X', [{ kind: 'syntax-error', start: 5, end: 8, error: 'missing closing brace' }]],
    ['echo ${X:-x', [{ kind: 'syntax-error', start: 5, end: 11, error: 'unable to parse substitution within function' }]],
    ['${a.b}', [{ kind: 'syntax-error', start: 0, end: 4, error: 'missing closing brace' }]],
    ['😀é ${X}', [expr(4, 8, 'X')]],
    ['a $ b', [{ kind: 'bare-dollar', start: 2, end: 3 }]],
    ['$', [{ kind: 'bare-dollar', start: 0, end: 1 }]],
    [
      '$HOME $(date) $$1',
      [
        { kind: 'bare-dollar', start: 0, end: 1 },
        { kind: 'bare-dollar', start: 6, end: 7 },
        { kind: 'escape', start: 14, end: 16, next: '1' },
      ],
    ],
    ['${#X} ${X#*.} ${X//a/b} ${X^^}', [expr(0, 5, 'X', '#'), expr(6, 13, 'X', '#'), expr(14, 23, 'X', '//'), expr(24, 30, 'X', '^^')]],
    ['${X:+a} ${X=b}', [expr(0, 7, 'X', ':+'), expr(8, 14, 'X', '=')]],
    // After an error the scan resumes where the lexer stopped.
    ['${a.b} ${C}', [{ kind: 'syntax-error', start: 0, end: 4, error: 'missing closing brace' }, expr(7, 11, 'C')]],
  ];

  for (const [text, expected] of cases) {
    test(JSON.stringify(text), () => assert.deepEqual(scanSubstitutions(text), expected));
  }

  test('syntax errors agree with envsubst on every vector', () => {
    for (const v of vectors) {
      const occurrences = scanSubstitutions(v.input);
      const hasError = occurrences.some((o) => o.kind === 'syntax-error');
      const result = run({ ...v, strict: false });
      assert.equal(hasError, !result.ok, JSON.stringify(v.input));
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('VALID_VAR_NAME and validateVarName', () => {
  test('ASCII letters, digits and _ only, not starting with a digit', () => {
    for (const ok of ['A', '_', 'cluster_name', 'KERNEL_TAG', 'a1']) assert.equal(VALID_VAR_NAME.test(ok), true, ok);
    for (const bad of ['', '1VAR', 'app.conf', 'my-var', 'KÖNIG', 'A\n', ' A']) assert.equal(VALID_VAR_NAME.test(bad), false, bad);
  });

  test("kustomize-controller's message", () => {
    assert.equal(validateVarName('KERNEL_TAG'), null);
    assert.equal(validateVarName('app.conf'), "'app.conf' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'");
  });
});

// ---------------------------------------------------------------------------------------------

describe('flux-job-guard envsubst', () => {
  test('--var', () => {
    assert.deepEqual(runEnvsubst(['--var', 'CLUSTER=seanfarm', '--var=TAG=6.1=2'], 'a ${CLUSTER} ${TAG} $${X}\n', {}), {
      stdout: 'a seanfarm 6.1=2 ${X}\n',
      stderr: '',
      exitCode: 0,
    });
    assert.equal(runEnvsubst(['--var', 'V=a\nb'], '${V}', {}).stdout, 'ab', 'newlines are removed, as Flux does');
  });

  test('--env, and --var wins over it', () => {
    const env = { CLUSTER: 'from-env', HOME: '/root' };
    assert.equal(runEnvsubst([], '${HOME}', env).stdout, '', 'without --env the environment is ignored');
    assert.equal(runEnvsubst(['--env'], '${HOME}', env).stdout, '/root');
    assert.equal(runEnvsubst(['--env', '--var', 'CLUSTER=from-var'], '${CLUSTER}', env).stdout, 'from-var');
    assert.equal(runEnvsubst(['--var', 'CLUSTER=from-var', '--env'], '${CLUSTER}', env).stdout, 'from-var');
    assert.equal(runEnvsubst(['--env', '--strict'], '${constructor:-no}', {}).stdout, 'no');
  });

  test('--strict fails with the vector error text, exit 1', () => {
    const v = vectors.find((x) => x.strict && x.input === 'echo ${HOME}')!;
    const args = Object.entries(v.vars).flatMap(([name, value]) => ['--var', `${name}=${value}`]);
    assert.deepEqual(runEnvsubst([...args, '--strict'], v.input, { HOME: '/root' }), { stdout: '', stderr: `${v.error}\n`, exitCode: 1 });
    assert.deepEqual(runEnvsubst(args, v.input, {}), { stdout: 'echo ', stderr: '', exitCode: 0 });
    assert.equal(runEnvsubst([...args, '--strict=false'], v.input, {}).exitCode, 0);
  });

  test('every failing vector fails the command with its error', () => {
    for (const v of vectors.filter((x) => x.error !== null)) {
      const args = Object.entries(v.vars).flatMap(([name, value]) => ['--var', `${name}=${value}`]);
      const result = runEnvsubst(v.strict ? [...args, '--strict'] : args, v.input, {});
      assert.deepEqual(result, { stdout: '', stderr: `${v.error}\n`, exitCode: 1 }, JSON.stringify(v.input));
    }
  });

  test('an invalid --var name fails as Flux would, exit 1', () => {
    const result = runEnvsubst(['--var', 'app.conf=x'], 'x', {});
    assert.deepEqual(result, { stdout: '', stderr: `${validateVarName('app.conf')}\n`, exitCode: 1 });
  });

  test('usage errors exit 2', () => {
    for (const args of [['--var'], ['--var', 'NOEQUALS'], ['--bogus'], ['file.yaml'], ['--strict=maybe']]) {
      const result = runEnvsubst(args, '', {});
      assert.equal(result.exitCode, 2, args.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /usage: flux-job-guard envsubst/);
    }
    assert.equal(runEnvsubst(['--help'], '', {}).exitCode, 0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('large inputs (explicit stacks, linear scans)', () => {
  test('100,000 $ characters', () => {
    const text = '$'.repeat(100_000);
    assert.deepEqual(
      envsubst(text, () => undefined, { strict: true }),
      { ok: true, output: '$'.repeat(50_000) },
    );
    assert.equal(scanSubstitutions(text).length, 50_000);
    const mixed = '$ ${ '.repeat(25_000); // a lone $, then `${ ` (a syntax error), over and over
    assert.equal(envsubst(mixed, () => undefined, { strict: false }).ok, false);
    assert.equal(scanSubstitutions(mixed).length, 50_000);
  });

  test('10,000 nested defaults', () => {
    const depth = 10_000;
    const text = '${A:-'.repeat(depth) + 'x' + '}'.repeat(depth);
    assert.deepEqual(
      envsubst(text, () => undefined, { strict: true }),
      { ok: true, output: 'x' },
    );
    const [top] = scanSubstitutions(text);
    assert.equal(top.kind === 'expression' && top.end, text.length);
    const unterminated = '${A:-'.repeat(depth) + 'x';
    assert.deepEqual(
      envsubst(unterminated, () => undefined, { strict: false }),
      {
        ok: false,
        error: 'unable to parse substitution within function',
      },
    );
  });
});

test('the bin itself: `flux-job-guard envsubst` over stdin reproduces every shared vector (output, error text, exit code)', () => {
  const cli = join(__dirname, '..', '..', 'dist', 'cli.js');
  const all = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures/envsubst-vectors.json'), 'utf8')) as Array<{
    input: string;
    vars: Record<string, string>;
    strict: boolean;
    output: string | null;
    error: string | null;
  }>;
  // One process per vector is slow; a deterministic sample of 40 covers every kind of case in the file.
  const sample = all.filter((_, i) => i % 7 === 0);
  for (const vector of sample) {
    const args = ['envsubst', ...Object.entries(vector.vars).flatMap(([name, value]) => ['--var', `${name}=${value}`]), ...(vector.strict ? ['--strict'] : [])];
    const run = spawnSync(process.execPath, [cli, ...args], { input: vector.input, encoding: 'utf8', env: {} });
    if (vector.error === null) {
      assert.equal(run.status, 0, `${JSON.stringify(vector.input)}: ${run.stderr}`);
      assert.equal(run.stdout, vector.output);
    } else {
      assert.equal(run.status, 1, JSON.stringify(vector.input));
      assert.equal(run.stderr.trimEnd(), vector.error);
    }
  }
});
