// surelyClean (yaml/surely-clean.ts): a text it calls clean parses without a single problem, so
// the audit skips the parse of a file that needs only its syntax checked. Checked three ways: a
// table of the forms it must refuse (each a problem the parser would report, or a place where
// go-yaml and npm yaml part ways), a property over generated near-YAML (clean implies no problem),
// and go-yaml's own verdict on every corpus file it calls clean.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as fc from 'fast-check';
import { decodeFile } from '../server/src/engine/base/repo-fs';
import { audit } from '../server/src/engine/pipeline/audit';
import { parseYamlFile } from '../server/src/engine/yaml/documents';
import { surelyClean } from '../server/src/engine/yaml/surely-clean';
import { CORPUS } from './ecosystem/corpus';
import { oracleAvailable, readOracle } from './go-yaml-oracle/oracle';
import { MemoryRepoFs } from './helpers/arbitraries';

const problems = (text: string) => parseYamlFile(text).flatMap((parsed) => parsed.errors);

test('the common forms are clean, and parse without a problem', () => {
  for (const text of [
    '',
    '# only a comment\n',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web # the app\nspec:\n  replicas: 2\n',
    "---\na: 1\n---\n# second\nb:\n  - x\n  - \"y z\"\n  - 'it''s'\n",
    'script: |\n  echo "$HOME"\n  exit 0\nnext: value\n',
    'list:\n- a\n- key: v\n  other: w\n',
    'args: []\nenv: {} # none\nitems:\n  - []\n',
    'rules:\n- verbs: ["get", "list", watch]\n  apiGroups: [""]\n',
    'labels: {app: web, tier: "db"}\n',
    'description: route rule, *all* traffic & more\nname: &app plex\n',
    'description: A route\n  rule, *all* traffic\n\n  - which matches\nnext: 1\n',
    'windows: line\r\nendings: too\r\n',
    '"quoted key": v\nescaped: "a\\nb\\"c"\n',
  ])
    assert.ok(surelyClean(text) && problems(text).length === 0, JSON.stringify(text));
});

test('not sure: a problem the parser reports, or where go-yaml and npm yaml part ways (each refused)', () => {
  const refused: Array<[string, string]> = [
    ['dup: 1\ndup: 2\n', 'a key written twice'],
    ['1: a\n0x1: b\n', 'two keys that resolve to one number'],
    ['true: a\nTrue: b\n', 'two keys that resolve to one boolean'],
    ['~: a\nnull: b\n', 'two null keys'],
    ['a:\n\tb: 1\n', 'a tab as indentation'],
    ['a:\tb\n', 'a tab after the colon'],
    ['a: b\rc: d\n', 'a lone carriage return (a line break to the parser)'],
    ['a: b\u0085c: d\n', 'NEL, a line break to go-yaml'],
    ['a: "\\/"\n', 'an escape go-yaml does not know'],
    ['a: b\u0007\n', 'a control character'],
    ['a: \ufeffb\n', 'a byte order mark inside the text'],
    ['a: &x 1\nb: *x\n', 'an alias'],
    ['a: &x.y 1\n', 'an anchor name go-yaml cuts at the dot'],
    ['a:\n- *x\n', 'an alias as a sequence item'],
    ['a: [1, [2]]\n', 'a nested flow collection'],
    ['a: {b: {c: d}}\n', 'a nested flow mapping'],
    ['a: {1: x, 0x1: y}\n', 'flow keys that resolve to one number'],
    ['a: []# c\n', 'a comment not after a space'],
    ['a: [] b\n', 'text after an empty flow collection'],
    ['a: b # c\n  d\n', 'a plain scalar continued after a comment'],
    ['a:\n    b: 1\n  c: 2\n', 'an indentation that closes nothing'],
    ['a: b: c\n', 'a mapping inside a value'],
    ['a: 1\n...\nb: 2\n', 'a document end marker'],
    ['%YAML 1.2\n---\na: 1\n', 'a directive'],
    [`${'k'.repeat(1100)}: v\n`, 'a key longer than the parser allows'],
    [`${'k'.repeat(990)}${' '.repeat(40)}: v\n`, 'a key whose colon stands past the limit'],
  ];
  for (const [text, why] of refused) assert.equal(surelyClean(text), false, why);
  // The table is made of real problems: the parser reports one in each text it can tell by itself.
  for (const text of ['dup: 1\ndup: 2\n', '1: a\n0x1: b\n', 'a:\n\tb: 1\n', 'a: "\\/"\n', 'a: b: c\n'])
    assert.ok(problems(text).length > 0, `the parser reports a problem in ${JSON.stringify(text.slice(0, 40))}`);
});

/** Mostly what manifests hold, sometimes (one time in `odds`) a form that trips parsers. */
const usually = (common: string[], tricky: string[], odds = 5) => fc.oneof({ weight: odds - 1, arbitrary: fc.constantFrom(...common) }, { weight: 1, arbitrary: fc.constantFrom(...tricky) });

/** Near-YAML: lines of keys, values and sequence items at random indentation, with the characters that trip parsers. */
const nearYaml = fc
  .array(
    fc.tuple(
      usually(['', '  ', '- ', '  - '], [' ', '    ', '\t', '      ']),
      usually(['a', 'b', 'name', 'c.d/e'], ['"q k"', "'s'", '1', '0x1', 'true', 'True', 'null', '~', '? a', '*x', '&x a', '-', 'k'.repeat(1030)]),
      usually([': ', ':'], [' : ', ': |', ': >', ':\t', '']),
      usually(
        ['', 'v', 'v # c', '"e\\n"', "'it''s'", 'x y'],
        ['"e\\/"', '[1, 2]', '{a: b}', '&x v', '&x.y v', '*x', 'b, *c', 'a: b', '|-', 'x\u0085y', 'x\ry', 'x\u0007', '#c', '"open', '%x', '\ufeffz'],
      ),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .chain((lines) => fc.tuple(fc.constant(lines), fc.constantFrom('\n', '\r\n'), usually([''], ['---\n', '...\n', '--- x\n'])))
  .map(([lines, eol, between]) => lines.map(([indent, key, sep, value], i) => `${i === 2 ? between : ''}${indent}${key}${sep}${value}`).join(eol) + eol);

type Tree = string | { map: Array<[string, Tree]> } | { seq: Tree[] };

/** Block YAML trees, their keys and scalars mostly what manifests hold, sometimes a tricky form. */
const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    usually(
      ['v', 'web', 'x y', '"e\\n"', "'it''s'", '"a: b"', 'v # note', '[]', '{} # none', '["get", list]', '[a, b] # c', '|\n  line one\n  line two', '|-\n  echo "$HOME"', '1', 'true', ''],
      [
        '"e\\/"',
        '[1, 2]',
        '{a: b}',
        '[a,]',
        '[a: b]',
        '[a, [b]]',
        '[a, *x]',
        '&x v',
        '&x.y v',
        '*x',
        'b, *c',
        'a: b',
        'x\u0085y',
        'x\ry',
        'x\u0007',
        '"open',
        '%x',
        '>\n  folded',
        'two\n  lines',
        '\ufeffz',
      ],
      12,
    ),
    fc
      .array(fc.tuple(usually(['a', 'b', 'name', 'c.d/e', '"q k"', "'s k'"], ['1', '0x1', 'true', 'True', 'null', '~', '? a', '*x', '&x a', '-', 'a\tb', 'k'.repeat(1030)], 12), tie('tree')), {
        minLength: 1,
        maxLength: 4,
      })
      .map((map) => ({ map })),
    fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((seq) => ({ seq })),
  ),
})).tree;

/** Renders a tree as block YAML, each level two spaces in (a scalar's later lines carry their own indentation under its key). */
function render(tree: Tree): string[] {
  if (typeof tree === 'string') return [tree];
  const nested = (prefix: string, child: Tree): string[] => {
    if (typeof child !== 'string') return [prefix, ...render(child).map((line) => `  ${line}`)];
    const [first, ...rest] = child.split('\n');
    return [`${prefix}${first === '' ? '' : ' '}${first}`, ...rest];
  };
  if ('map' in tree) return tree.map.flatMap(([key, value]) => nested(`${key}:`, value));
  return tree.seq.flatMap((item) => nested('-', item));
}

const renderedYaml = fc
  .tuple(
    treeArb.filter((tree) => typeof tree !== 'string'),
    fc.constantFrom('\n', '\r\n'),
    fc.option(fc.tuple(fc.nat(), fc.constantFrom('\t', '\r', ' ', '  ', '\n ', '#', '- ', ': ', '---\n', '...\n', '"')), { freq: 2 }),
  )
  .map(([tree, eol, edit]) => {
    const text = render(tree).join(eol) + eol;
    if (edit === null) return text;
    const at = edit[0] % (text.length + 1);
    return text.slice(0, at) + edit[1] + text.slice(at);
  });

test('property: a text called clean parses without a problem (and the generators reach clean texts)', () => {
  let clean = 0;
  fc.assert(
    fc.property(fc.oneof(nearYaml, renderedYaml), (text) => {
      if (!surelyClean(text)) return;
      clean++;
      assert.deepEqual(
        problems(text).map((problem) => problem.message),
        [],
        JSON.stringify(text),
      );
    }),
    { numRuns: 3000, seed: 20261205 },
  );
  assert.ok(clean >= 300, `${clean} of 3000 generated texts were clean`);
});

test('go-yaml oracle: every corpus file called clean is one go-yaml decodes and the parser reads without a problem', (t) => {
  if (!oracleAvailable()) {
    t.skip('ORACLE MISSING: ../shared/oracles/go-yaml/corpus.tsv or ../shared/corpus does not exist');
    return;
  }
  let clean = 0;
  for (const row of readOracle()) {
    const read = decodeFile(readFileSync(join(CORPUS, row.path)), Infinity);
    if (read.kind !== 'text' || !surelyClean(read.text)) continue;
    clean++;
    assert.equal(row.error, null, `go-yaml rejects ${row.path}`);
    assert.deepEqual(problems(read.text), [], row.path);
  }
  assert.ok(clean > 5000, `${clean} corpus files are clean`);
});

test('the audit: a clean file needing only its syntax checked has no finding; the same text broken by a tab has one (control)', async () => {
  const clean = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n';
  const broken = 'apiVersion: v1\nkind: Namespace\nmetadata:\n\tname: apps\n';
  const findings = async (text: string) => (await audit(new MemoryRepoFs(new Map([['ns.yaml', text]])))).findings.filter((finding) => finding.file === 'ns.yaml');
  assert.deepEqual(await findings(clean), []);
  assert.deepEqual(
    (await findings(broken)).map((finding) => finding.rule),
    ['yaml-syntax'],
  );
});
