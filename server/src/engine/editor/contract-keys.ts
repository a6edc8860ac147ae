// Key completion and key hover in the contract file, from its JSON Schema
// (schemas/flux-job-guard.schema.json, the one description of what the
// contract may say; the Red Hat YAML extension reads the same file). Bundled
// as JSON, so the browser server has it too.
//
// Line-based on purpose: a contract being typed is rarely valid YAML (`ttl:\n
// requ` parses as a scalar, not as a key), while the indentation already says
// which mapping the cursor is in. Flow collections (`{ name: x }`) and
// multi-line scalars are not completed.
import schemaJson from '../../../../schemas/flux-job-guard.schema.json';
import { LineIndex } from '../yaml/line-index';

export interface SchemaNode {
  description?: string;
  markdownDescription?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  $ref?: string;
  enum?: unknown[];
  enumDescriptions?: string[];
}

const SCHEMA = schemaJson as unknown as SchemaNode & { definitions: Record<string, SchemaNode> };

export interface ContractCompletion {
  label: string;
  kind: 'key' | 'value';
  /** Markdown: the schema's description of the key or value. */
  documentation: string;
  /** What replaces `replace` (offsets in the text). */
  insertText: string;
  replace: [number, number];
  /**
   * Whether choosing the item should open the completion again at once: a key written as `key: `
   * whose value comes from a closed list (an enum, true/false), whose values come next.
   */
  chain: boolean;
}

export interface ContractHover {
  markdown: string;
  span: [number, number];
}

/** Turns a rule id into a link to its documentation (null: the rule's name without a link). */
export type RuleDocLink = (rule: string) => string | null;

/** One line as indentation sees it: where its key starts, whether a `- ` item starts there, its key. */
interface LineShape {
  /** Column of the `- ` that starts a sequence item on this line, if any. */
  dash: number | null;
  /** Column where the line's content (its key) starts, after any `- `. */
  column: number;
  key: string | null;
  /** Offsets of the key within the line. */
  keySpan: [number, number] | null;
  /** Whether anything but a comment follows the key's colon (a scalar, or a flow collection). */
  hasValue: boolean;
  /** Blank, comment-only, or a document marker: says nothing about structure. */
  empty: boolean;
  documentMarker: boolean;
}

const KEY = /^([A-Za-z0-9_.-]+|"[^"\n]*"|'[^'\n]*')[ \t]*:(?=[ \t]|$)/;

function shapeOf(line: string): LineShape {
  const indent = /^ */.exec(line)![0].length;
  const dashMatch = /^-(?: +|$)/.exec(line.slice(indent));
  const dash = dashMatch ? indent : null;
  const column = indent + (dashMatch ? dashMatch[0].length : 0);
  const rest = line.slice(column);
  const documentMarker = /^(---|\.\.\.)(\s|$)/.test(line);
  const empty = documentMarker || (dash === null && (rest === '' || rest.startsWith('#')));
  const key = KEY.exec(rest);
  const after = key ? rest.slice(key[0].length).trim() : '';
  return {
    dash,
    column,
    key: key ? key[1].replace(/^(["'])(.*)\1$/, '$2') : null,
    keySpan: key ? [column, column + key[1].length] : null,
    hasValue: after !== '' && !after.startsWith('#'),
    empty,
    documentMarker,
  };
}

/** The schema path of a mapping: keys, and `[]` for the items of a sequence. */
type Path = string[];

interface MappingContext {
  path: Path;
  /** Keys the mapping already has, on other lines. */
  siblings: Set<string>;
}

/**
 * The mapping whose keys start at `column` on line `lineNo` (`dash`: the line starts an item
 * there), found by walking up to the lines that own it. Null where indentation cannot say
 * (a line more indented than a scalar above it).
 */
function mappingAt(lines: LineIndex, lineNo: number, column: number, dash: number | null): MappingContext | null {
  const siblings = new Set<string>();
  const shape = (n: number) => shapeOf(lines.lineText(n));
  // Keys of the same mapping below the line (up to the next item of the sequence, or a line less indented).
  for (let n = lineNo + 1; n < lines.lineCount; n++) {
    const below = shape(n);
    if (below.documentMarker) break;
    if (below.empty || below.column > column) continue;
    if (below.column < column || below.dash !== null) break;
    if (below.key) siblings.add(below.key);
  }
  const path: Path = [];
  // The state of the climb: the column of the mapping (or, when `ownerOfItems`, of the sequence's `-`).
  let at = dash ?? column;
  let ownerOfItems = dash !== null;
  let collecting = dash === null;
  if (ownerOfItems) path.unshift('[]');
  for (let n = lineNo - 1; n >= 0; n--) {
    const above = shape(n);
    if (above.documentMarker) break;
    if (above.empty) continue;
    if (ownerOfItems) {
      // Looking for the key that holds the sequence: less indented than its `-`, or (a compact
      // sequence) a key at the `-`'s own column. Other items of the sequence are more indented.
      if (above.column > at) continue;
    } else if (above.column > at) {
      continue;
    } else if (above.column === at) {
      if (collecting && above.key) siblings.add(above.key);
      if (above.dash !== null) {
        // The line that starts this mapping's item: the sequence's owner is next.
        path.unshift('[]');
        at = above.dash;
        ownerOfItems = true;
        collecting = false;
      }
      continue;
    }
    // A line that owns the mapping: a key with nothing after its colon.
    if (!above.key || above.hasValue) return null;
    path.unshift(above.key);
    collecting = false;
    if (above.dash !== null) {
      path.unshift('[]');
      at = above.dash;
      ownerOfItems = true;
    } else {
      at = above.column;
      ownerOfItems = false;
    }
  }
  return { path, siblings };
}

function resolve(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node?.$ref) return node;
  const name = /^#\/definitions\/(.+)$/.exec(node.$ref)?.[1];
  return name ? SCHEMA.definitions[name] : undefined;
}

/** The schema of what sits at `path` (undefined for a key the schema does not know). */
export function schemaAt(path: Path): SchemaNode | undefined {
  let node: SchemaNode | undefined = SCHEMA;
  for (const segment of path) {
    node = resolve(segment === '[]' ? node?.items : node?.properties?.[segment]);
    if (!node) return undefined;
  }
  return node;
}

const types = (node: SchemaNode) => (Array.isArray(node.type) ? node.type : node.type ? [node.type] : []);

/** Values a key takes from a closed list: its enum, or true/false. */
function valuesOf(node: SchemaNode): Array<{ value: string; description: string }> {
  if (node.enum) return node.enum.map((value, i) => ({ value: String(value), description: node.enumDescriptions?.[i] ?? '' }));
  if (types(node).includes('boolean'))
    return [
      { value: 'true', description: '' },
      { value: 'false', description: '' },
    ];
  return [];
}

/** Links to the repository's documents become links to the rule docs the editor has (or plain text). */
export function withDocLinks(markdown: string, docLink: RuleDocLink): string {
  return markdown.replace(/\[([^\]]+)\]\((https:\/\/github\.com\/flux-job-guard\/flux-job-guard\/blob\/main\/docs\/[^)#]+)(?:#([^)]+))?\)/g, (_whole, label: string, url: string, anchor?: string) => {
    const target = url.endsWith('/rules.md') && anchor ? docLink(anchor) : null;
    return target ? `[${label}](${target})` : label;
  });
}

function describe(node: SchemaNode, docLink: RuleDocLink): string {
  return withDocLinks(node.markdownDescription ?? node.description ?? '', docLink);
}

/** What a key is written as: `key: ` before a scalar, `key:` before a nested mapping or list. */
function keyText(key: string, node: SchemaNode, lineRest: string): string {
  if (/^[ \t]*:/.test(lineRest)) return key; // the colon is already there
  const nested = types(node).some((type) => type === 'object' || type === 'array');
  return nested ? `${key}:` : `${key}: `;
}

const WORD = /[A-Za-z0-9_.-]*/y;

function wordEnd(text: string, from: number): number {
  WORD.lastIndex = from;
  WORD.exec(text);
  return WORD.lastIndex;
}

/**
 * Completion at `offset` of a contract file: the keys the schema allows in the mapping the cursor
 * is in (those already present left out), or the values of a key that takes a closed list
 * (severities of a rule, `substitution`, booleans). Nothing inside comments, values or flow collections.
 * A key whose value is such a list chains into it (`chain`): its values are offered once it is written.
 */
export function contractCompletions(text: string, offset: number, docLink: RuleDocLink = () => null): ContractCompletion[] {
  const lines = new LineIndex(text);
  const { line: lineNo } = lines.position(offset);
  const lineStart = lines.lineStart(lineNo);
  const line = lines.lineText(lineNo);
  const before = line.slice(0, offset - lineStart);

  const keyPosition = /^( *)(-(?: +))?([A-Za-z0-9_.-]*)$/.exec(before);
  if (keyPosition) {
    const column = keyPosition[1].length + (keyPosition[2]?.length ?? 0);
    const dash = keyPosition[2] ? keyPosition[1].length : null;
    const context = mappingAt(lines, lineNo, column, dash);
    const node = context && schemaAt(context.path);
    if (!context || !node?.properties) return [];
    const end = wordEnd(text, offset);
    const replace: [number, number] = [lineStart + column, end];
    return Object.entries(node.properties)
      .filter(([key]) => !context.siblings.has(key))
      .map(([key, property]) => {
        const resolved = resolve(property) ?? property;
        const insertText = keyText(key, resolved, text.slice(end, lines.lineEnd(lineNo)));
        const chain = insertText.endsWith(': ') && valuesOf(resolved).length > 0;
        return { label: key, kind: 'key' as const, documentation: describe(resolved, docLink), insertText, replace, chain };
      });
  }

  const valuePosition = /^( *)(-(?: +))?([A-Za-z0-9_.-]+)[ \t]*:[ \t]+([A-Za-z0-9_.-]*)$/.exec(before);
  if (valuePosition) {
    const column = valuePosition[1].length + (valuePosition[2]?.length ?? 0);
    const context = mappingAt(lines, lineNo, column, valuePosition[2] ? valuePosition[1].length : null);
    const node = context && schemaAt([...context.path, valuePosition[3]]);
    if (!node) return [];
    const replace: [number, number] = [offset - valuePosition[4].length, wordEnd(text, offset)];
    return valuesOf(node).map(({ value, description }) => ({ label: value, kind: 'value' as const, documentation: description, insertText: value, replace, chain: false }));
  }
  return [];
}

/** Hover on a key of the contract file: its description from the schema (null off a key, or on an unknown one). */
export function contractKeyHover(text: string, offset: number, docLink: RuleDocLink = () => null): ContractHover | null {
  const lines = new LineIndex(text);
  const { line: lineNo } = lines.position(offset);
  const lineStart = lines.lineStart(lineNo);
  const shape = shapeOf(lines.lineText(lineNo));
  if (!shape.key || !shape.keySpan) return null;
  const span: [number, number] = [lineStart + shape.keySpan[0], lineStart + shape.keySpan[1]];
  if (offset < span[0] || offset > span[1]) return null;
  const context = mappingAt(lines, lineNo, shape.column, shape.dash);
  const node = context && schemaAt([...context.path, shape.key]);
  if (!node) return null;
  const markdown = describe(node, docLink);
  return markdown ? { markdown: `**${shape.key}**\n\n${markdown}`, span } : null;
}
