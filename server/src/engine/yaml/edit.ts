// Minimal text edits on YAML source: every fix inserts or replaces the few
// characters it must, keeps comments and formatting, and writes the file's
// own line ending. Offsets in, offsets out; callers turn them into ranges.
import { LineIndex, lineEnding } from './line-index';
import { parse as parseYaml } from 'yaml';
import { isMap, isScalar, isSeq, Node, YAMLMap } from './documents';

export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/** The column of a node's first character, as spaces. */
export function indentAt(lines: LineIndex, offset: number): string {
  return ' '.repeat(lines.position(offset).character);
}

/**
 * Inserts `keyLines` (already without indentation) as the first entries of a
 * block mapping whose key sits at `parentKeyOffset`: right after the parent
 * key's line, at the indentation of the mapping's first key, so comments that
 * belong to that first key stay attached to it. Null when the mapping is not a
 * block mapping starting on a later line.
 */
export function insertIntoBlockMap(text: string, lines: LineIndex, parentKeyOffset: number, map: YAMLMap, base: number, keyLines: string[]): OffsetEdit | null {
  const first = map.items[0]?.key as Node | undefined;
  if (map.flow || !first?.range) return null;
  const parentLine = lines.position(parentKeyOffset).line;
  const firstKey = lines.position(base + first.range[0]);
  if (firstKey.line <= parentLine) return null;
  const indent = ' '.repeat(firstKey.character);
  const eol = lineEnding(text, parentKeyOffset);
  const at = lines.lineStart(parentLine + 1);
  return { start: at, end: at, newText: keyLines.map((line) => indent + line + eol).join('') };
}

/** The comment lines directly above `line` (contiguous, no blank line between), top first. */
export function commentLinesAbove(lines: LineIndex, line: number): number[] {
  const found: number[] = [];
  for (let l = line - 1; l >= 0 && lines.lineText(l).trimStart().startsWith('#'); l--) found.unshift(l);
  return found;
}

/** The comment at the end of a line after `from`, without `#`, or null. */
export function trailingComment(lines: LineIndex, line: number, from: number): string | null {
  const rest = lines.text.slice(from, lines.lineEnd(line));
  const match = /(?:^|[ \t])#(.*)$/.exec(rest);
  return match ? match[1] : null;
}

/**
 * Deletes whole lines `[firstLine, lastLine]` including the last line's end of
 * line (or, for the file's last line, the line ending before it).
 */
export function deleteLines(lines: LineIndex, firstLine: number, lastLine: number): OffsetEdit {
  const start = lines.lineStart(firstLine);
  if (lastLine + 1 < lines.lineCount) return { start, end: lines.lineStart(lastLine + 1), newText: '' };
  const previousEnd = firstLine > 0 ? lines.lineEnd(firstLine - 1) : start;
  return { start: previousEnd, end: lines.text.length, newText: '' };
}

/**
 * Appends `itemLines` (the lines of one mapping, unindented) as a new entry of
 * the list under `path` (e.g. ['ttl', 'noFinishTimeout']) in a YAML file whose
 * root is `root`, creating the keys that are missing. Returns null when the
 * shape is too unusual to edit safely (flow collections that are not empty).
 */
export function appendListEntry(text: string, root: YAMLMap | null, base: number, path: string[], itemLines: string[]): OffsetEdit | null {
  return appendListEntries(text, root, base, path, [itemLines]);
}

/** Appends several entries (each a list of unindented lines) to the list at `path`, creating keys as needed. */
export function appendListEntries(text: string, root: YAMLMap | null, base: number, path: string[], items: string[][]): OffsetEdit | null {
  const lines = new LineIndex(text);
  const eol = lineEnding(text, base + (root?.range?.[0] ?? 0));
  const item = (indent: string) => items.map((itemLines) => itemLines.map((line, i) => `${indent}${i === 0 ? '- ' : '  '}${line}`).join(eol)).join(eol);
  let map: YAMLMap | null = root;
  let depth = 0;
  for (; depth < path.length && map; depth++) {
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === path[depth]);
    if (!pair) break;
    const keyNode = pair.key as Node;
    const parentIndent = indentAt(lines, base + keyNode.range![0]);
    const value = pair.value as Node | null;
    if (depth === path.length - 1) return appendToListValue(text, lines, base, keyNode, value, parentIndent, item, eol);
    if (isMap(value) && !value.flow) map = value;
    else if (value === null || (isScalar(value) && value.value === null)) {
      return insertAfter(lines, base + keyNode.range![1], eol, nestedKeys(path.slice(depth + 1), parentIndent + '  ', item, eol));
    } else return null;
  }
  // An empty file (or one with only comments) has no root mapping yet: write the keys at its end.
  const emptyFile = map === null && root === null && depth === 0;
  if (!emptyFile && (!map || map.flow)) return null;
  // Keys path[depth..] are missing under `map`: add them after its last entry.
  // The indentation of the mapping's own keys (a container inside a list is not at column 0).
  const firstKey = map?.items[0]?.key as Node | undefined;
  const childIndent = firstKey?.range ? indentAt(lines, base + firstKey.range[0]) : '';
  const block = nestedKeys(path.slice(depth), childIndent, item, eol);
  if (emptyFile || map!.items.length === 0) return { start: text.length, end: text.length, newText: (text === '' || text.endsWith('\n') ? '' : eol) + block + eol };
  map = map!;
  const lastEnd = base + (map.range?.[1] ?? text.length);
  return insertAfter(lines, lastEnd, eol, block);
}

function appendToListValue(text: string, lines: LineIndex, base: number, keyNode: Node, value: Node | null, keyIndent: string, item: (indent: string) => string, eol: string): OffsetEdit | null {
  if (value === null || (isScalar(value) && value.value === null)) {
    return insertAfter(lines, base + keyNode.range![1], eol, item(keyIndent + '  '));
  }
  if (!isSeq(value)) return null;
  const seq = value;
  if (seq.flow) {
    if (seq.items.length > 0) return null;
    // `key: []` becomes a block list: without the space that stood before `[]`, and a comment after
    // `[]` stays on the key's line (the items follow it).
    let start = base + seq.range![0];
    while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
    const seqEnd = base + seq.range![1];
    const lineEnd = lines.lineEnd(lines.position(seqEnd).line);
    return { start, end: lineEnd, newText: text.slice(seqEnd, lineEnd).trimEnd() + eol + item(keyIndent + '  ') };
  }
  const dashIndent = indentAt(lines, base + seq.range![0]);
  return insertAfter(lines, base + seq.range![1], eol, item(dashIndent));
}

function nestedKeys(keys: string[], indent: string, item: (indent: string) => string, eol: string): string {
  let out = '';
  keys.forEach((key, i) => {
    out += `${i === 0 ? '' : eol}${indent}${key}:`;
    indent += '  ';
  });
  return out + eol + item(indent);
}

/** Inserts `block` on new lines after the line holding the last character before `offset`. */
/**
 * Sets the key `path` under a block mapping to `value` (written as given), adding the keys that
 * are missing after the mapping's last entry at the indentation of its keys, or replacing the
 * value when the key is there. Null where the shape is unusual (a flow mapping, a list on the way).
 */
export function setInMap(text: string, map: YAMLMap, base: number, path: string[], value: string): OffsetEdit | null {
  const lines = new LineIndex(text);
  const eol = lineEnding(text, base + (map.range?.[0] ?? 0));
  let current: YAMLMap = map;
  for (let depth = 0; depth < path.length; depth++) {
    const firstKey = current.items[0]?.key as Node | undefined;
    if (current.flow || !firstKey?.range || !current.range) return null;
    const pair = current.items.find((p) => isScalar(p.key) && p.key.value === path[depth]);
    if (!pair) {
      let indent = indentAt(lines, base + firstKey.range[0]);
      const block = path.slice(depth).map((key, i) => {
        const line = `${indent}${key}:${i === path.length - depth - 1 ? ` ${value}` : ''}`;
        indent += '  ';
        return line;
      });
      return insertAfter(lines, base + current.range[1], eol, block.join(eol));
    }
    const next = pair.value as Node | null;
    if (depth === path.length - 1) return isScalar(next) && next.range ? { start: base + next.range[0], end: base + next.range[1], newText: value } : null;
    if (!isMap(next)) return null;
    current = next;
  }
  return null;
}

function insertAfter(lines: LineIndex, offset: number, eol: string, block: string): OffsetEdit {
  // A collection's range runs on over its trailing comments and the next line's indentation: back
  // up to its last character, or the block lands on the next key's line (in the wrong list).
  let end = offset;
  while (end > 0 && /\s/.test(lines.text[end - 1])) end--;
  const line = lines.position(Math.max(0, end - 1)).line;
  const at = lines.lineEnd(line);
  return { start: at, end: at, newText: eol + block };
}

/** Quotes a string for YAML only when it needs it. */
export function yamlString(value: string): string {
  const plain = /^[A-Za-z0-9_./][A-Za-z0-9_./ -]*$/.test(value) && !/ $/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value) && !/^[0-9.]+$/.test(value);
  // `1e3`, `0x1F`, `.inf`: plain, YAML would read a number, not the string.
  return plain && parseYaml(value) === value ? value : JSON.stringify(value);
}
