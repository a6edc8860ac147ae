// YAML as go-yaml reads it (kustomize's decoder, so Flux's): a table of texts with go-yaml v3's own
// verdict and reading, recorded from Debian's golang-gopkg-yaml.v3-dev 3.0.1 (see
// test/go-yaml-oracle/dump.go): the documents as a tree of strings, aliases expanded, or its error.
// Each case also says whether npm yaml alone (YAML 1.2) disagrees: those are the negative control,
// run with the go-yaml reading switched off, which must fail where the case says it differs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { YamlReading } from '../server/src/engine/yaml/go-yaml';
import { findPair, getNode, isGoYamlOnly, keyText, nodeSource, parseYamlFile, YamlProblem } from '../server/src/engine/yaml/documents';
import { canonicalDocuments } from './go-yaml-oracle/canonical';
import { appTemplateRelease, kustomization } from './helpers/flux-fixtures';
import { fileUri, messageText, TestLspClient } from './helpers/lsp-client';
import { auditFiles, brief } from './helpers/memory-fs';
import { lines } from './helpers/table';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

interface Case {
  name: string;
  text: string;
  /** go-yaml's reading (documents as canonicalDocuments writes them), or its error and where we report it ([start, end) of the first error). */
  go: { reads: unknown[] } | { error: string; at: [number, number] };
  /** Whether npm yaml alone (YAML 1.2) decides otherwise: accepts what go-yaml refuses, or refuses what it reads. */
  yaml12Differs: boolean;
}

const m = (...pairs: unknown[][]) => ({ m: pairs });

const CASES: Case[] = [
  // ---- what go-yaml reads and YAML 1.2 refuses ----
  {
    name: 'an alias as a mapping key, no space before the colon (`*app:`, as bjw-s app-template users write it): the key is the anchored scalar',
    text: lines('app: &app web', 'controllers:', '  *app:', '    replicas: 1'),
    go: { reads: [m(['app', 'web'], ['controllers', m(['web', m(['replicas', '1'])])])] },
    yaml12Differs: true,
  },
  { name: 'an alias key in a sequence item', text: lines('b: &x k', 'a:', '  - *x: 1'), go: { reads: [m(['b', 'k'], ['a', { s: [m(['k', '1'])] }])] }, yaml12Differs: true },
  {
    name: 'an alias key in a flow mapping, with and without a space after the colon',
    text: lines('b: &x k', 'a: {*x: 1}', 'c: {*x:2}'),
    go: { reads: [m(['b', 'k'], ['a', m(['k', '1'])], ['c', m(['k', '2'])])] },
    yaml12Differs: true,
  },
  {
    name: "an alias key's block scalar is indented from the key's column",
    text: lines('b: &x k', 'a:', '  *x: |', '   t'),
    go: { reads: [m(['b', 'k'], ['a', m(['k', 't\n'])])] },
    yaml12Differs: true,
  },
  { name: 'an anchor ended by a colon anchors an empty key', text: lines('x:', '  &a: 1'), go: { reads: [m(['x', m(['', '1'])])] }, yaml12Differs: true },
  { name: 'after an anchor, a colon starts the scalar (`&a:b 1` is `:b 1`)', text: lines('x: &a:b 1'), go: { reads: [m(['x', ':b 1'])] }, yaml12Differs: true },
  {
    name: "a quoted scalar continued at its key's column (a CRD description as controller-gen wraps it)",
    text: lines('k:', "  v: 'a", "  b'"),
    go: { reads: [m(['k', m(['v', 'a b'])])] },
    yaml12Differs: true,
  },
  { name: "a quoted scalar continued at column 0, with `''` escapes and a `#`", text: lines("a: '''", '#x', "'''", 'b: 1'), go: { reads: [m(['a', "' #x '"], ['b', '1'])] }, yaml12Differs: true },
  { name: 'a quoted scalar continued after a tab', text: lines('k:', '  v: "a', '\tb"'), go: { reads: [m(['k', m(['v', 'a b'])])] }, yaml12Differs: true },
  { name: 'a flow sequence continued at column 0', text: lines('args: [', '  "a",', '"b"]'), go: { reads: [m(['args', { s: ['a', 'b'] }])] }, yaml12Differs: true },
  { name: "a flow mapping continued left of its key's column", text: lines('k:', '  v: {a: 1,', 'b: 2}'), go: { reads: [m(['k', m(['v', m(['a', '1'], ['b', '2'])])])] }, yaml12Differs: true },
  { name: "`\\'` in a double-quoted scalar is a quote", text: lines('x: "a\\\'b"', 'y: "\\\'\\\\\'"'), go: { reads: [m(['x', "a'b"], ['y', "'\\'"])] }, yaml12Differs: true },
  // ---- read the same way by both (controls) ----
  {
    name: 'an empty document after `---` is a document, after `...` none',
    text: lines('a: 1', '---', '---', 'b: 1', '...', '...'),
    go: { reads: [m(['a', '1']), '', m(['b', '1'])] },
    yaml12Differs: false,
  },
  { name: 'a block scalar at the end of a file without a final line break ends without one', text: 'a: |\n  x', go: { reads: [m(['a', 'x'])] }, yaml12Differs: true },
  { name: '`...` twice: no document between them', text: lines('a: 1', '...', '...'), go: { reads: [m(['a', '1'])] }, yaml12Differs: false },
  { name: '`%YAML 1.1`, the version go-yaml reads', text: lines('%YAML 1.1', '---', 'a: 1'), go: { reads: [m(['a', '1'])] }, yaml12Differs: false },
  { name: 'an alias key with a space before the colon', text: lines('b: &x k', 'a:', '  *x : 1'), go: { reads: [m(['b', 'k'], ['a', m(['k', '1'])])] }, yaml12Differs: false },
  { name: 'an alias key whose anchor is missing: both refuse it', text: lines('a:', '  *x: 1'), go: { error: "unknown anchor 'x' referenced", at: [5, 7] }, yaml12Differs: false },
  // ---- what go-yaml refuses and YAML 1.2 reads ----
  { name: '`\\/` (a JSON escape) in a double-quoted scalar', text: lines('x: "a\\/b"'), go: { error: 'found unknown escape character', at: [5, 7] }, yaml12Differs: true },
  { name: 'an escape of half a UTF-16 pair', text: lines('k: "\\uD800"'), go: { error: 'found invalid Unicode character escape code', at: [4, 10] }, yaml12Differs: true },
  { name: 'an anchor name with a dot', text: lines('b: &a.b 1', 'c: *a.b'), go: { error: 'did not find expected alphabetic or numeric character', at: [3, 7] }, yaml12Differs: true },
  { name: 'an alias of no anchor', text: lines('b: *y'), go: { error: "unknown anchor 'y' referenced", at: [3, 5] }, yaml12Differs: true },
  { name: 'an alias of an anchor that comes after it', text: lines('b: *y', 'c: &y 1'), go: { error: "unknown anchor 'y' referenced", at: [3, 5] }, yaml12Differs: true },
  { name: 'a document after `...` without `---`', text: lines('a: 1', '...', 'b: 2'), go: { error: 'did not find expected <document start>', at: [9, 14] }, yaml12Differs: true },
  { name: '`%YAML 1.2`: go-yaml reads YAML 1.1 only', text: lines('%YAML 1.2', '---', 'a: 1'), go: { error: 'found incompatible YAML document', at: [0, 9] }, yaml12Differs: true },
  { name: 'a directive go-yaml does not know', text: lines('%FOO bar', '---', 'a: 1'), go: { error: 'found unknown directive name', at: [0, 8] }, yaml12Differs: true },
  { name: 'an alias with a colon inside its name, outside flow (`*x:1`)', text: lines('b: &x k', 'a: *x:1'), go: { error: 'did not find expected key', at: [11, 15] }, yaml12Differs: true },
];

/**
 * An alias of an anchor in an earlier `---` piece: go-yaml's stream decoder reads it, but kustomize
 * decodes each piece alone, and `kubectl kustomize` (v5.5.0) fails with "unknown anchor 'x'
 * referenced": the piece is what counts.
 */
const ACROSS_PIECES = lines('a: &x 1', '---', 'b: *x');

function verdictOf(text: string, reading: YamlReading): { reads: unknown[] } | { error: YamlProblem } {
  const docs = parseYamlFile(text, reading);
  const errors = docs.flatMap((doc) => doc.errors);
  return errors.length > 0 ? { error: errors[0] } : { reads: canonicalDocuments(docs) };
}

describe('YAML as go-yaml reads it', () => {
  for (const { name, text, go } of CASES) {
    test(name, () => {
      const ours = verdictOf(text, 'go-yaml');
      if ('reads' in go) {
        assert.deepEqual(ours, { reads: go.reads });
        return;
      }
      assert.ok('error' in ours, `go-yaml refuses it (${go.error}), we read ${JSON.stringify(ours)}`);
      assert.deepEqual([ours.error.start, ours.error.end], go.at, `at ${JSON.stringify(text.slice(ours.error.start, ours.error.end))}`);
      // what only go-yaml refuses is said in our words, quoting go-yaml's own where it has one; the rest is npm yaml's
      const quoted = /with "([^"]*)" here/.exec(ours.error.message);
      if (isGoYamlOnly(ours.error.message) && quoted) assert.equal(quoted[1], go.error);
    });
  }

  test('an alias of an anchor in an earlier --- piece is refused, as kustomize (each piece decoded alone) refuses it', () => {
    const ours = verdictOf(ACROSS_PIECES, 'go-yaml');
    assert.ok('error' in ours && ours.error.message.includes("unknown anchor 'x' referenced"), JSON.stringify(ours));
  });

  test('negative control: YAML 1.2 alone (the go-yaml reading switched off) decides otherwise exactly where the table says', () => {
    const differs = CASES.filter(({ text, go }) => {
      const strict = verdictOf(text, 'yaml-1.2');
      return 'reads' in go ? !('reads' in strict) || JSON.stringify(strict.reads) !== JSON.stringify(go.reads) : !('error' in strict);
    }).map((c) => c.name);
    assert.deepEqual(
      differs,
      CASES.filter((c) => c.yaml12Differs).map((c) => c.name),
    );
  });

  test('the alias key keeps its place in the text and reads as its anchor: findPair finds it, its span is `*app`', () => {
    const text = lines('app: &app web', 'controllers:', '  *app:', '    replicas: 1');
    const [parsed] = parseYamlFile(text);
    const controllers = getNode(parsed.doc, parsed.doc.contents, 'controllers') as Parameters<typeof findPair>[0];
    const pair = findPair(controllers, 'web')!;
    assert.equal(keyText(pair), 'web');
    assert.equal(nodeSource(parsed, pair.key), '*app');
  });

  test('a HelmRelease with `*app:` keys is checked as its anchor spells them: the same findings as with the name written out', async () => {
    const findings = async (key: string) => {
      const result = await auditFiles({
        '.flux-job-guard.yaml': 'flux:\n  roots: [flux]\n',
        'flux/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substitute:\n      CLUSTER: home\n'),
        'apps/blog/helmrelease.yaml': appTemplateRelease(key),
      });
      return result.findings.filter((f) => f.rule !== 'contract-no-jobs').map(brief);
    };
    assert.deepEqual(await findings('*app'), ['flux-substitution-undefined apps/blog/helmrelease.yaml:12:21']);
    assert.deepEqual(await findings('*app'), await findings('blog'));
  });

  test('the editor, with default settings, shows what only go-yaml refuses (no YAML extension does), in a document no rule looks at, and not what npm yaml refuses too', async () => {
    const repo = tempRepo('fjg-go-yaml-', {});
    const uri = fileUri(join(repo, 'apps/settings.yaml'));
    const text = lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', 'data:', '  pattern: "a\\/b"');
    const client = new TestLspClient();
    try {
      await client.initialize(repo);
      client.open(uri, text);
      const [diagnostic] = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'yaml-syntax'), 30_000);
      assert.deepEqual(
        [diagnostic.range.start, diagnostic.range.end],
        [
          { line: 5, character: 13 },
          { line: 5, character: 15 },
        ],
      );
      assert.match(messageText(diagnostic), /found unknown escape character/);
      // negative control: an error npm yaml reports itself is left to the YAML extension
      client.change(uri, text.replace('"a\\/b"', '[a, b'));
      assert.deepEqual(await client.waitForDiagnostics(uri, (d) => d.length === 0, 30_000), []);
    } finally {
      await client.shutdown();
    }
  });
});

after(removeTempRepos);
