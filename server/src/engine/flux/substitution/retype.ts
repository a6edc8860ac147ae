// What a substituted scalar becomes when Flux reads the resource again.
//
// kustomize-controller substitutes the YAML that kustomize wrote (`res.AsYAML()`), not the file,
// then parses the result with sigs.k8s.io/yaml (`YAMLToJSON`, go-yaml v2: YAML 1.1 booleans
// such as `yes`, `on` and `n`; `0755` is octal; `1_000` is 1000) and applies the JSON. kustomize
// writes every string again in the style its value needs, not the one the file used: a quoted
// `"${REPLICAS}"` comes out as plain `${REPLICAS}` (kubernetes-sigs/kustomize#5558), so quotes in
// the file never decide the type. What decides it is the written value with the variables in it.
import { parseDocument } from 'yaml';

export type ScalarType = 'string' | 'boolean' | 'integer' | 'float' | 'null';

/** How kustomize (kyaml, yaml.v3's emitter, block context) writes a string value. */
export type KustomizeStyle = 'plain' | 'single' | 'double' | 'literal';

export type Reread =
  /** A scalar of `type`: `text` is what Flux's parser read, `json` what it applies (numbers and booleans as JSON writes them). */
  | { kind: 'scalar'; type: ScalarType; text: string; json: string; yaml11Only: boolean }
  /** Not YAML any more: the reconcile fails (`why` names the character that breaks it). */
  | { kind: 'invalid'; why: string }
  /** A flow mapping or list where a scalar was. */
  | { kind: 'collection'; what: 'mapping' | 'list' }
  /** Part of the text is read as something else: a comment (` #`), an anchor or a tag. */
  | { kind: 'cut'; why: string; kept: string };

// yaml.v3's emitter (analyze_scalar): what a plain scalar may not start with, in block context.
const NEVER_PLAIN_FIRST = new Set([...',[]{}#&*!|>\'"%@`']);
const PLAIN_IF_FOLLOWED = new Set(['-', '?', ':']);

/** Printable as yaml.v3 counts it for plain and single-quoted scalars (a tab or a control character is not). */
function printable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f && c !== 0x85) || (c >= 0xd800 && c <= 0xdfff) || c === 0xfeff || c >= 0xfffe) return false;
  }
  return true;
}

export function kustomizeStyle(value: string): KustomizeStyle {
  if (value.includes('\n')) return 'literal';
  if (!printable(value)) return 'double';
  return plainAllowed(value) ? 'plain' : 'single';
}

function plainAllowed(text: string): boolean {
  if (text === '' || text !== text.trim()) return false;
  const first = text[0];
  if (NEVER_PLAIN_FIRST.has(first)) return false;
  if (PLAIN_IF_FOLLOWED.has(first) && (text.length === 1 || text[1] === ' ')) return false;
  return !text.includes(': ') && !text.includes(' #') && !text.endsWith(':');
}

/** The scalar as kustomize writes it, for Flux to substitute. */
export function writtenByKustomize(value: string, style: KustomizeStyle): string {
  if (style === 'single') return `'${value.replace(/'/g, "''")}'`;
  if (style === 'double') return JSON.stringify(value);
  return value;
}

/**
 * What Flux's parser makes of a substituted single-line scalar written as `text`: in a mapping
 * value (`key: text`) or a list item (`- text`).
 */
export function reread(text: string, listItem: boolean): Reread {
  if (plainAllowed(text) && !text.includes('\t')) return plainScalar(text);
  const doc = parseDocument(`${listItem ? '- ' : 'k: '}${text}\n`);
  if (doc.errors.length > 0) return { kind: 'invalid', why: whyInvalid(text) };
  const contents = doc.contents as { items?: { value?: unknown }[] } | null;
  const item = listItem ? contents?.items?.[0] : contents?.items?.[0]?.value;
  const node = item as { constructor: { name: string }; type?: string; anchor?: string; tag?: string; comment?: string; source?: string; value?: unknown; items?: unknown[] } | undefined;
  if (!node) return plainScalar('');
  if (Array.isArray(node.items)) return { kind: 'collection', what: node.constructor.name === 'YAMLSeq' ? 'list' : 'mapping' };
  if (node.anchor !== undefined) return { kind: 'cut', why: `\`&${node.anchor}\` is read as an anchor`, kept: String(node.value) };
  if (node.tag !== undefined) return { kind: 'cut', why: `\`${node.tag}\` is read as a tag`, kept: String(node.value) };
  const trailing = node.comment ?? doc.comment;
  if (node.type === 'PLAIN') {
    const kept = String(node.source ?? node.value);
    return trailing ? { kind: 'cut', why: '` #` starts a comment', kept } : plainScalar(kept);
  }
  // Quoted or block: a string (a comment after the closing quote changes nothing).
  const value = String(node.value);
  return { kind: 'scalar', type: 'string', text: value, json: JSON.stringify(value), yaml11Only: false };
}

function whyInvalid(text: string): string {
  const first = text.trimStart()[0];
  const reasons: Record<string, string> = {
    '*': '`*` starts an alias',
    '&': '`&` starts an anchor',
    '!': '`!` starts a tag',
    '[': '`[` opens a flow list',
    '{': '`{` opens a flow mapping',
    '|': '`|` starts a block scalar',
    '>': '`>` starts a block scalar',
    '%': '`%` cannot start a value',
    '@': '`@` cannot start a value',
    '`': '`` ` `` cannot start a value',
    "'": "a `'` in the value ends the quoted string",
    '"': 'a `"` in the value ends the quoted string',
    '-': '`- ` starts a list item',
  };
  if (first !== undefined && reasons[first]) return reasons[first];
  if (text.includes(': ')) return '`: ` starts a mapping';
  return 'it is not valid YAML';
}

// go-yaml v2's resolve table: the words it reads as something other than a string.
const WORDS: Readonly<Record<string, ScalarType>> = {
  ...wordsOf('boolean', ['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE']),
  ...wordsOf('boolean', ['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE']),
  ...wordsOf('null', ['', '~', 'null', 'Null', 'NULL']),
  ...wordsOf('float', ['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF']),
};

function wordsOf(type: ScalarType, words: string[]): Record<string, ScalarType> {
  return Object.fromEntries(words.map((word): [string, ScalarType] => [word, type]));
}
const YAML12_BOOLEANS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** go-yaml v2's float syntax (after `_` are dropped): the exponent needs its sign. */
const V2_FLOAT = /^[-+]?[0-9]*\.?[0-9]+([eE][-+][0-9]+)?$/;
/** A timestamp go-yaml v2 recognises; decoded into an interface it stays the string written. */
const TIMESTAMP = /^\d{4}-\d{1,2}-\d{1,2}([Tt ]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?([Zz]|[-+]\d{1,2}(:\d{2})?)?)?$/;

/** A plain scalar as go-yaml v2 resolves it (resolve.go), and the JSON Flux applies. */
function plainScalar(text: string): Reread {
  const word = WORDS[text];
  if (word !== undefined) {
    const json = word === 'boolean' ? String(/^[yYoOtT]/.test(text) && text.toLowerCase() !== 'off') : word === 'null' ? 'null' : text;
    return { kind: 'scalar', type: word, text, json, yaml11Only: word === 'boolean' && !YAML12_BOOLEANS.has(text) };
  }
  const first = text[0];
  const scalar = (type: ScalarType, json: string): Reread => ({ kind: 'scalar', type, text, json, yaml11Only: false });
  if (first === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? scalar('float', String(Number(text))) : scalar('string', JSON.stringify(text));
  if (!/^[-+0-9]/.test(first ?? '')) return scalar('string', JSON.stringify(text));
  if (TIMESTAMP.test(text)) return scalar('string', JSON.stringify(text));
  const plain = text.replace(/_/g, '');
  const integer = goParseInt(plain);
  if (integer !== null) return scalar('integer', integer.toString());
  if (V2_FLOAT.test(plain)) return scalar('float', String(Number(plain)));
  return scalar('string', JSON.stringify(text));
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64): null where both fail. */
function goParseInt(s: string): bigint | null {
  const match = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!match) return null;
  const [, sign, digits] = match;
  let magnitude: bigint;
  if (/^0[oO]/.test(digits)) magnitude = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) magnitude = BigInt(`0o${digits.slice(1)}`);
  else magnitude = BigInt(digits);
  const value = sign === '-' ? -magnitude : magnitude;
  // ParseUint takes no sign; ParseInt stops at int64.
  if (value < INT64_MIN || value > UINT64_MAX || (sign !== '' && value > 2n ** 63n - 1n)) return null;
  return value;
}
