// Key completion and key hover in the contract file, from the contract's JSON
// Schema (server/src/engine/editor/contract-keys.ts): a table of texts with
// the cursor at `|`, and the exact items (label, what they write, the range
// they replace) or hover (text, span) each must give; negative controls where
// nothing is to be offered.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { contractCompletions, contractKeyHover, withDocLinks } from '../server/src/engine/editor/contract-keys';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'flux-job-guard.schema.json'), 'utf8')) as {
  properties: { rules: { properties: Record<string, unknown> } };
};
const RULES = Object.keys(schema.properties.rules.properties);

interface SchemaJson {
  properties?: Record<string, SchemaJson>;
  items?: SchemaJson;
  $ref?: string;
  enum?: unknown[];
  type?: string | string[];
}
const schemaJson = schema as unknown as SchemaJson & { definitions: Record<string, SchemaJson> };

/** Every key of the schema whose value is an enum or a boolean, as `a.b[].c`, read from the schema itself. */
function closedKeys(node: SchemaJson, path: string): string[] {
  const resolved = node.$ref ? schemaJson.definitions[node.$ref.replace('#/definitions/', '')] : node;
  const own = path && (resolved.enum || resolved.type === 'boolean') ? [path] : [];
  const below = Object.entries(resolved.properties ?? {}).flatMap(([key, child]) => closedKeys(child, path ? `${path}.${key}` : key));
  return [...own, ...below, ...(resolved.items ? closedKeys(resolved.items, `${path}[]`) : [])];
}

/** The text without its `|`, and the offset where it stood. */
function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  assert.ok(offset >= 0, 'the case marks the cursor with |');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

/** Items as `label→insertText@start-end`, in the order given. */
function complete(marked: string): string[] {
  const { text, offset } = cursor(marked);
  return contractCompletions(text, offset).map((item) => `${item.label}→${item.insertText}@${item.replace[0]}-${item.replace[1]}`);
}

describe('contract key completion', () => {
  const cases: Array<[string, string, string[]]> = [
    ['an empty file: the top-level keys, in the schema order', '|', ['jobs→jobs:@0-0', 'ttl→ttl:@0-0', 'serviceAccounts→serviceAccounts:@0-0', 'flux→flux:@0-0', 'rules→rules:@0-0']],
    [
      'a key being typed under ttl: replaces the word',
      'ttl:\n  requ|',
      ['required→required: @7-11', 'convergenceNote→convergenceNote: @7-11', 'noFinishTimeout→noFinishTimeout:@7-11', 'otherFinishTimeout→otherFinishTimeout:@7-11'],
    ],
    [
      'a key that is there already (above) is not offered again',
      'ttl:\n  required: 86400\n  |\n',
      ['convergenceNote→convergenceNote: @25-25', 'noFinishTimeout→noFinishTimeout:@25-25', 'otherFinishTimeout→otherFinishTimeout:@25-25'],
    ],
    [
      'nor one below, nor one nested deeper elsewhere',
      'ttl:\n  |\n  noFinishTimeout:\n    - file: a.yaml\n      reason: r\n  required: 1\n',
      ['convergenceNote→convergenceNote: @7-7', 'otherFinishTimeout→otherFinishTimeout:@7-7'],
    ],
    ['the rest of a list item: what the entry lacks', 'ttl:\n  noFinishTimeout:\n    - file: a.yaml\n      |', ['job→job: @49-49', 'reason→reason: @49-49']],
    ['a new list item: every key of an entry', 'ttl:\n  otherFinishTimeout:\n    - |', ['file→file: @33-33', 'job→job: @33-33', 'value→value: @33-33', 'reason→reason: @33-33']],
    ["a list written at its key's indentation (compact)", 'serviceAccounts:\n  external:\n  - name: bot\n    |', ['namespace→namespace: @47-47', 'reason→reason: @47-47']],
    [
      'the colon already written: only the key',
      'flux:\n  stri|: true\n',
      ['substitution→substitution@8-12', 'strict→strict@8-12', 'roots→roots@8-12', 'sources→sources@8-12', 'substituteFrom→substituteFrom@8-12', 'variables→variables@8-12'],
    ],
    [
      'the second document of a file is a mapping of its own',
      'ttl:\n  required: 1\n---\nttl:\n  |',
      ['required→required: @30-30', 'convergenceNote→convergenceNote: @30-30', 'noFinishTimeout→noFinishTimeout:@30-30', 'otherFinishTimeout→otherFinishTimeout:@30-30'],
    ],
    ['CRLF line ends', 'ttl:\r\n  required: 1\r\n  |', ['convergenceNote→convergenceNote: @23-23', 'noFinishTimeout→noFinishTimeout:@23-23', 'otherFinishTimeout→otherFinishTimeout:@23-23']],
    // values from a closed list
    ["a rule's severity", 'rules:\n  ttl-missing: |', ['error→error@22-22', 'warning→warning@22-22', 'info→info@22-22', 'off→off@22-22']],
    ['a substitution mode being typed', 'flux:\n  substitution: al|', ['auto→auto@22-24', 'always→always@22-24', 'never→never@22-24']],
    ['a boolean', 'flux:\n  strict: |\n', ['true→true@16-16', 'false→false@16-16']],
    // negative controls
    ['(none) a value that takes any integer', 'ttl:\n  required: 8|', []],
    ['(none) a comment', '# the con|', []],
    ['(none) under a key the schema does not know', 'rulez:\n  |', []],
    ['(none) under a key that has a scalar value', 'ttl: 3\n  |', []],
    ['(none) inside a flow mapping', 'serviceAccounts:\n  external:\n    - { na|', []],
    ['(none) a key inside a string value', 'ttl:\n  convergenceNote: "conv|', []],
    ['(none) every key there already', 'jobs:\n  include: [a]\n  exclude: []\n  |', []],
  ];
  for (const [name, marked, expected] of cases) test(name, () => assert.deepEqual(complete(marked), expected));

  test('under rules: every rule id but the ones set, each described, its docs linked', () => {
    const { text, offset } = cursor('rules:\n  ttl-missing: warning\n  |\n  yaml-syntax: off\n');
    const items = contractCompletions(text, offset, (rule) => `flux-job-guard-docs:/rules.md#${rule}`);
    assert.deepEqual(
      items.map((item) => item.label),
      RULES.filter((rule) => rule !== 'ttl-missing' && rule !== 'yaml-syntax'),
    );
    assert.equal(items.length, RULES.length - 2);
    const undefinedItem = items.find((item) => item.label === 'flux-substitution-undefined')!;
    assert.equal(undefinedItem.insertText, 'flux-substitution-undefined: ');
    assert.match(undefinedItem.documentation, /\[flux-substitution-undefined\]\(flux-job-guard-docs:\/rules\.md#flux-substitution-undefined\)/);
    assert.doesNotMatch(undefinedItem.documentation, /github\.com/);
  });

  describe('a key whose value is a closed list chains into its values', () => {
    /** The labels of the items that chain, in the order given. */
    const chained = (marked: string) => {
      const { text, offset } = cursor(marked);
      return contractCompletions(text, offset)
        .filter((item) => item.chain)
        .map((item) => item.label);
    };
    // Each mapping of the schema that has such keys, with the schema path of its keys.
    const mappings: Array<[string, string, string[]]> = [
      ['flux:', 'flux:\n  |', ['substitution', 'strict']],
      ['rules:', 'rules:\n  |', RULES],
      ['flux.sources[]:', 'flux:\n  sources:\n    - |', ['kind']],
      ['flux.substituteFrom[]:', 'flux:\n  substituteFrom:\n    - |', ['kind', 'optional']],
      ['flux.variables[].from:', 'flux:\n  variables:\n    - from:\n        |', ['kind']],
    ];
    for (const [name, marked, expected] of mappings) test(name, () => assert.deepEqual(chained(marked), expected));

    test('every key with an enum or a boolean value in the schema is among them', () => {
      const found = new Set(mappings.flatMap(([name, , keys]) => keys.map((key) => `${name.slice(0, -1)}.${key}`)));
      assert.deepEqual([...closedKeys(schemaJson, '')].sort(), [...found].sort());
    });

    test('what the chaining item writes: the key, its colon and a space; the values then come at the end of it', () => {
      const { text, offset } = cursor('flux:\n  sub|');
      const item = contractCompletions(text, offset).find((candidate) => candidate.label === 'substitution')!;
      assert.deepEqual([item.insertText, item.replace, item.chain], ['substitution: ', [8, 11], true]);
      const written = text.slice(0, item.replace[0]) + item.insertText + text.slice(item.replace[1]);
      assert.deepEqual(
        contractCompletions(written, item.replace[0] + item.insertText.length).map((value) => [value.label, value.chain]),
        [
          ['auto', false],
          ['always', false],
          ['never', false],
        ],
      );
    });

    test('(none) keys of a nested mapping or list, of a string or a number; a key before a colon already written', () => {
      assert.deepEqual(chained('|'), []);
      assert.deepEqual(chained('ttl:\n  |'), []);
      assert.deepEqual(chained('serviceAccounts:\n  external:\n    - |'), []);
      assert.deepEqual(chained('flux:\n  stri|: true\n'), []);
    });
  });

  test("a value is described by the schema's enumDescriptions", () => {
    const { text, offset } = cursor('rules:\n  ttl-missing: |');
    assert.deepEqual(
      contractCompletions(text, offset).map((item) => item.documentation),
      ['Reported as an error: the audit fails.', 'Reported as a warning.', 'Reported as information.', 'Not reported.'],
    );
  });
});

describe('contract key hover', () => {
  function hover(marked: string) {
    const { text, offset } = cursor(marked);
    return contractKeyHover(text, offset, (rule) => `docs:${rule}`);
  }

  test("a key shows its description, over the key's exact span", () => {
    const found = hover('ttl:\n  noFinish|Timeout:\n    - file: a.yaml\n');
    assert.deepEqual(found?.span, [7, 22]);
    assert.equal(found?.markdown, '**noFinishTimeout**\n\nJobs that must keep **no** `ttlSecondsAfterFinished`: their completed runs are evidence someone needs.');
  });

  test('a key of a list entry', () => {
    const found = hover('ttl:\n  noFinishTimeout:\n    - fi|le: a.yaml\n');
    assert.deepEqual(found?.span, [30, 34]);
    assert.match(found.markdown, /^\*\*file\*\*\n\nOne manifest, relative to the contract file/);
  });

  test('a rule id links to its bundled docs, never to the repository site', () => {
    const found = hover('rules:\n  ttl-mis|sing: off\n');
    assert.match(found!.markdown, /\[ttl-missing\]\(docs:ttl-missing\)/);
    assert.doesNotMatch(found!.markdown, /github\.com/);
  });

  test('(none) on a value, on an unknown key, on a comment', () => {
    assert.equal(hover('ttl:\n  required: 86|400\n'), null);
    assert.equal(hover('rulez:\n  ttl-mis|sing: off\n'), null);
    assert.equal(hover('# ttl|:\n'), null);
  });

  test('links to other documents of the repository site become plain text', () => {
    assert.equal(
      withDocLinks('See [docs/contract.md](https://github.com/flux-job-guard/flux-job-guard/blob/main/docs/contract.md).', () => 'x'),
      'See docs/contract.md.',
    );
    assert.equal(
      withDocLinks('[ttl-missing](https://github.com/flux-job-guard/flux-job-guard/blob/main/docs/rules.md#ttl-missing)', () => null),
      'ttl-missing',
    );
  });
});
