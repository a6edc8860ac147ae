// Offsets <-> positions over one text, in UTF-16 code units (what JS strings
// and LSP both count), plus the few facts about a file's bytes the fixes need.
import type { Position, Range } from '../base/types';

export class LineIndex {
  /** Offset of the first character of each line. */
  private readonly starts: number[];

  constructor(readonly text: string) {
    // Lines end where LSP (and so every editor) ends them: at `\n`, `\r\n` and a lone `\r`. A lone
    // `\r` (inside a quoted scalar, say) counted as text would shift every later range by a line.
    const starts = [0];
    const breaks = /\r\n?|\n/g;
    for (let match = breaks.exec(text); match; match = breaks.exec(text)) starts.push(match.index + match[0].length);
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length - 1))];
  }

  /** End of a line's content, before its `\r\n`, `\n` or `\r`. */
  lineEnd(line: number): number {
    if (line + 1 >= this.starts.length) return this.text.length;
    const next = this.starts[line + 1];
    return next - (this.text[next - 1] === '\n' && this.text[next - 2] === '\r' ? 2 : 1);
  }

  lineText(line: number): string {
    return this.text.slice(this.lineStart(line), this.lineEnd(line));
  }

  position(offset: number): Position {
    let clamped = Math.max(0, Math.min(offset, this.text.length));
    // Never between the halves of a surrogate pair (a parser's error may end there): no editor can place it.
    if (isLowSurrogate(this.text.charCodeAt(clamped)) && isHighSurrogate(this.text.charCodeAt(clamped - 1))) clamped--;
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= clamped) low = mid;
      else high = mid - 1;
    }
    // An offset inside a `\r\n` (a parser's error may point at its `\n`) is the end of the line's content.
    return { line: low, character: Math.min(clamped, this.lineEnd(low)) - this.starts[low] };
  }

  offset(position: Position): number {
    if (position.line >= this.starts.length) return this.text.length;
    return Math.min(this.lineStart(position.line) + position.character, this.lineEnd(position.line));
  }

  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The line ending a fix must write: the file's own (CRLF files stay CRLF). */
export function lineEnding(text: string, near = 0): '\r\n' | '\n' {
  // The ending of the line at `near` (or, on a last line without one, of the line before):
  // local, so a file with mixed endings gets the ending of the place being edited.
  let lf = text.indexOf('\n', near);
  if (lf === -1) lf = text.lastIndexOf('\n', near);
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/**
 * A 53-bit content hash plus the length: the cache key of one document's text. The editor hashes
 * the document each keystroke changed: a long text without surrogates is hashed as its UTF-8 bytes
 * four at a time (a 1.4 MB CRD: 1.5 → 0.5 ms). UTF-8 names each such text once; a text with a
 * surrogate (paired or lone, which the encoder would write as U+FFFD) is hashed a character at a
 * time. Which way depends only on the text, so one content always gets one key.
 */
export function chunkKey(text: string, start: number, end: number): string {
  const bytes = end - start >= LONG_TEXT && !SURROGATE.test(text.slice(start, end));
  return `${bytes ? hashBytes(text, start, end) : hashCharacters(text, start, end)}:${end - start}`;
}

const LONG_TEXT = 4096;
const SURROGATE = /[\ud800-\udfff]/;
/** Characters encoded at a time, into one buffer kept for it (up to 3 bytes each). */
const BLOCK = 1 << 18;
const encoder = new TextEncoder();
let block: Uint8Array | undefined;

// Both hashes mix one value a step the same way (cyrb53); the loops stay inline, as a shared helper
// costs more than the hash.
function hashCharacters(text: string, start: number, end: number): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  return finish(h1, h2);
}

function hashBytes(text: string, start: number, end: number): string {
  const buffer = (block ??= new Uint8Array(BLOCK * 3));
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let from = start; from < end; from += BLOCK) {
    const { written } = encoder.encodeInto(text.slice(from, Math.min(end, from + BLOCK)), buffer);
    const words = new Uint32Array(buffer.buffer, 0, written >>> 2);
    for (let i = 0; i < words.length; i++) {
      h1 = Math.imul(h1 ^ words[i], 2654435761);
      h2 = Math.imul(h2 ^ words[i], 1597334677);
    }
    for (let i = words.length * 4; i < written; i++) {
      h1 = Math.imul(h1 ^ buffer[i], 2654435761);
      h2 = Math.imul(h2 ^ buffer[i], 1597334677);
    }
  }
  return finish(h1, h2);
}

function finish(h1: number, h2: number): string {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
