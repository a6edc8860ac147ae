// How kustomize reads a kustomization file: sigs.k8s.io/yaml turns the YAML
// into JSON with go-yaml v2 (YAML 1.1: `yes`, `on` and `y` are booleans,
// `012` is a number), and encoding/json decodes that into the Kustomization
// struct, refusing unknown fields (field names match case-insensitively) and
// a number or boolean where a string belongs. This module checks a tree
// against that struct's shape and reads its values the same way.
import { isNull, KNode } from './knode';

export type ValueType = 'null' | 'bool' | 'int' | 'float' | 'string' | 'map' | 'seq';

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const BOOLS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF']);
const TRUE = /^(y|yes|true|on)$/i;
const SPECIAL_FLOATS = /^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/;
const INT = /^[-+]?(0[bB][01]+|0[oO]?[0-7]+|0[xX][0-9a-fA-F]+|0|[1-9][0-9]*)$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** go-yaml v2's reading of a plain (unquoted) scalar. */
export function yaml11Type(plain: string): ValueType {
  if (NULLS.has(plain)) return 'null';
  if (BOOLS.has(plain)) return 'bool';
  const digits = plain.replace(/_/g, '');
  if (INT.test(digits)) return 'int';
  if (FLOAT.test(digits) || SPECIAL_FLOATS.test(plain)) return 'float';
  return 'string';
}

export function valueType(node: KNode | null | undefined): ValueType {
  if (!node) return 'null';
  if (node.kind === 'map') return 'map';
  if (node.kind === 'seq') return 'seq';
  return node.plain ? yaml11Type(node.text) : 'string';
}

/** A scalar as kustomize sees it after the JSON round trip (a boolean as `true`, a number as printed); null for null. */
function jsonScalar(node: KNode & { kind: 'scalar' }): Json {
  if (!node.plain) return node.text;
  switch (yaml11Type(node.text)) {
    case 'null':
      return null;
    case 'bool':
      return TRUE.test(node.text);
    case 'int':
    case 'float': {
      const number = Number(node.text.replace(/_/g, '').replace(/^([-+]?)0([0-7]+)$/, '$10o$2'));
      return Number.isNaN(number) && !/nan/i.test(node.text) ? node.text : number;
    }
    default:
      return node.text;
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** sigs.k8s.io/yaml's YAMLToJSON of a node: YAML 1.1 scalars, maps with text keys. */
export function yamlToJson(node: KNode | null | undefined): Json {
  if (!node) return null;
  if (node.kind === 'map') return Object.fromEntries(node.entries.map((entry) => [entry.key, yamlToJson(entry.value)]));
  if (node.kind === 'seq') return node.items.map((item) => yamlToJson(item));
  return jsonScalar(node);
}

/** The text of a string field (the shape check has made sure it is one); '' for null. */
export function stringOf(node: KNode | null | undefined): string {
  if (!node || node.kind !== 'scalar' || (node.plain && NULLS.has(node.text))) return '';
  return node.text;
}

export function boolOf(node: KNode | null | undefined): boolean {
  return !!node && node.kind === 'scalar' && node.plain && TRUE.test(node.text);
}

/** The value of a field, matched as encoding/json does: the exact name, else case-insensitively; the last one written wins. */
export function fieldNode(map: KNode | null | undefined, name: string): KNode | null {
  if (!map || map.kind !== 'map') return null;
  let exact: KNode | null = null;
  let folded: KNode | null = null;
  const lower = name.toLowerCase();
  for (const entry of map.entries) {
    if (entry.key === name) exact = entry.value;
    else if (entry.key.toLowerCase() === lower) folded = entry.value;
  }
  return exact ?? folded;
}

/** The entries of a map field (null values read as ''), in source order. */
export function stringMapOf(node: KNode | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (node?.kind === 'map') for (const entry of node.entries) out.set(entry.key, stringOf(entry.value));
  return out;
}

/** The entries of a map of booleans (`patches[].options`). */
export function boolMapOf(node: KNode | null | undefined): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (node?.kind === 'map') for (const entry of node.entries) out.set(entry.key, boolOf(entry.value));
  return out;
}

// ---- The shape of the Kustomization struct ----

export type Shape = 'string' | 'bool' | 'int' | 'strings' | 'stringMap' | 'boolMap' | 'any' | { fields: Record<string, Shape> } | { list: Shape };

export interface ShapeError {
  message: string;
  node: KNode;
}

const GO_TYPE: Record<ValueType, string> = { null: 'null', bool: 'bool', int: 'number', float: 'number', string: 'string', map: 'object', seq: 'array' };

/** The first place where `node` does not fit `shape`, with encoding/json's words for it. */
/** `lenient`: unknown fields are skipped (a decoder without strictness), type mismatches still fail. */
export function checkShape(node: KNode | null, shape: Shape, where: string, lenient = false): ShapeError | null {
  if (!node || isNull(node) || shape === 'any') return null;
  const type = valueType(node);
  const mismatch = (want: string): ShapeError => ({ message: `json: cannot unmarshal ${GO_TYPE[type]} into Go struct field ${where} of type ${want}`, node });
  if (shape === 'string' || shape === 'bool' || shape === 'int') return type === shape ? null : mismatch(shape);
  if (shape === 'strings' || shape === 'stringMap' || shape === 'boolMap') {
    const element = shape === 'boolMap' ? 'bool' : 'string';
    if (shape === 'strings') {
      if (node.kind !== 'seq') return mismatch('[]string');
      for (const item of node.items) if (checkShape(item, element, where, lenient)) return checkShape(item, element, where, lenient);
      return null;
    }
    if (node.kind !== 'map') return mismatch(shape === 'stringMap' ? 'map[string]string' : 'map[string]bool');
    for (const entry of node.entries) if (checkShape(entry.value, element, where, lenient)) return checkShape(entry.value, element, where, lenient);
    return null;
  }
  if ('list' in shape) {
    if (node.kind !== 'seq') return mismatch('[]object');
    for (const item of node.items) {
      const error = checkShape(item, shape.list, where, lenient);
      if (error) return error;
    }
    return null;
  }
  if (node.kind !== 'map') return mismatch('object');
  const names = Object.keys(shape.fields);
  for (const entry of node.entries) {
    const name = names.find((candidate) => candidate === entry.key) ?? names.find((candidate) => candidate.toLowerCase() === entry.key.toLowerCase());
    if (name === undefined) {
      if (lenient) continue;
      return { message: `json: unknown field ${JSON.stringify(entry.key)}`, node: entry.keyNode ?? node };
    }
    const error = checkShape(entry.value, shape.fields[name], `${where}.${name}`, lenient);
    if (error) return error;
  }
  return null;
}
