// A fast reader for the YAML that kustomization files and resource headers
// are nearly always written in: block mappings and sequences indented with
// spaces, one-line plain and quoted scalars, literal block scalars (`|`,
// `|-`, `|+`), comments. It builds the model's KNode tree directly, many
// times faster than the `yaml` package (whose nodes are costly to make),
// and gives up (undefined) on anything else — flow collections, anchors,
// aliases, tags, folded or multi-line scalars, tabs, keys written twice —
// so that the caller parses that text with the `yaml` package instead.
import { emptyScalar, KMap, KNode, KScalar, KSeq } from './knode';

/** Thrown where the fast reader stops; one instance, so giving up costs no stack trace. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp('not simple YAML');
/** An anchor of a plain name, and the spaces after it. */
const ANCHOR = /^&[A-Za-z0-9_.-]+ +/;

interface Line {
  /** Offset of the line's first character. */
  start: number;
  /** Offset of its end (before `\n`, and before `\r`). */
  end: number;
  /** Spaces before its content. */
  indent: number;
  /** Nothing but spaces and perhaps a comment. */
  blank: boolean;
}

/** The root node of `text[start, end)` (null for an empty document), or undefined when the fast reader gives up. */
export function readSimpleYaml(text: string, start = 0, end = text.length): KNode | null | undefined {
  try {
    return new Reader(text, start, end).document();
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

class Reader {
  private readonly lines: Line[] = [];
  private next = 0;

  constructor(
    private readonly text: string,
    start: number,
    end: number,
  ) {
    let at = start;
    while (at < end) {
      let lineEnd = text.indexOf('\n', at);
      if (lineEnd === -1 || lineEnd > end) lineEnd = end;
      const contentEnd = lineEnd > at && text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
      let indent = 0;
      while (at + indent < contentEnd && text[at + indent] === ' ') indent++;
      const first = text[at + indent];
      if (first === '\t' && at + indent < contentEnd) throw GIVE_UP;
      this.lines.push({ start: at, end: contentEnd, indent, blank: at + indent >= contentEnd || first === '#' });
      at = lineEnd + 1;
    }
  }

  document(): KNode | null {
    // a document marker, directives or a document end: the parser decides
    for (const line of this.lines) if (!line.blank && line.indent === 0 && /^(---|\.\.\.|%)/.test(this.text.slice(line.start, line.start + 3))) throw GIVE_UP;
    const first = this.peek();
    if (first === null) return null;
    if (first.indent !== 0) throw GIVE_UP;
    const root = this.block(0);
    if (this.peek() !== null) throw GIVE_UP;
    return root;
  }

  /** The next line with content, without taking it. */
  private peek(): Line | null {
    while (this.next < this.lines.length && this.lines[this.next].blank) this.next++;
    return this.next < this.lines.length ? this.lines[this.next] : null;
  }

  private startsSequence(at: number, end: number): boolean {
    return this.text[at] === '-' && (at + 1 === end || this.text[at + 1] === ' ');
  }

  /** A block collection whose first entry is the next line, at `indent`. */
  private block(indent: number): KNode {
    const line = this.peek()!;
    return this.startsSequence(line.start + indent, line.end) ? this.sequence(indent) : this.mapping(indent, line.start + indent);
  }

  private sequence(indent: number): KSeq {
    const seq: KSeq = { kind: 'seq', items: [], span: [0, 0] };
    const first = this.peek()!;
    let end = first.end;
    for (let line = this.peek(); line !== null && line.indent === indent && this.startsSequence(line.start + indent, line.end); line = this.peek()) {
      this.next++;
      let at = line.start + indent + 1;
      while (at < line.end && this.text[at] === ' ') at++;
      if (at >= line.end || this.text[at] === '#') seq.items.push(this.nestedOrNull(indent, at));
      else if (this.startsSequence(at, line.end))
        throw GIVE_UP; // `- - x`
      else if (this.isKeyAt(at, line.end)) {
        // `- key: value`: a mapping whose keys stand at this column
        this.next--;
        seq.items.push(this.mapping(at - line.start, at));
      } else seq.items.push(this.inlineValue(line, at, indent));
      end = this.lastEnd();
    }
    seq.span = [first.start + indent, end];
    return seq;
  }

  /** A mapping at `indent`; its first key may start mid-line (after `- `) at `firstAt`. */
  private mapping(indent: number, firstAt: number): KMap {
    const map: KMap = { kind: 'map', entries: [], span: [0, 0] };
    const keys = new Set<string>();
    let at = firstAt;
    let line = this.peek()!;
    const start = firstAt;
    for (;;) {
      this.next++;
      const key = this.key(at, line.end);
      if (keys.has(key.node.text)) throw GIVE_UP;
      keys.add(key.node.text);
      let valueAt = key.after;
      while (valueAt < line.end && this.text[valueAt] === ' ') valueAt++;
      const value = valueAt >= line.end || this.text[valueAt] === '#' ? this.nestedOrNull(indent, valueAt, true) : this.inlineValue(line, valueAt, indent);
      map.entries.push({ key: key.node.text, keyNode: key.node, value });
      const following = this.peek();
      if (following === null || following.indent !== indent || this.startsSequence(following.start + indent, following.end)) break;
      line = following;
      at = line.start + indent;
    }
    const end = this.lastEnd();
    map.span = [start, end];
    return map;
  }

  private lastEnd(): number {
    return this.lines[this.next - 1].end;
  }

  /** After `key:` or `-` with nothing more on the line: the block below, or null. A mapping's value may be a sequence at the key's own indentation. */
  private nestedOrNull(indent: number, at: number, mappingValue = false): KNode {
    const below = this.peek();
    if (below !== null && (below.indent > indent || (mappingValue && below.indent === indent && this.startsSequence(below.start + indent, below.end)))) return this.block(below.indent);
    return emptyScalar(at);
  }

  /** Whether `key:` starts at `at` (a cheap look that throws nothing: most sequence items are no mapping). */
  private isKeyAt(at: number, end: number): boolean {
    const char = this.text[at];
    if (char === "'" || char === '"') {
      const close = this.text.indexOf(char, at + 1);
      if (close === -1 || close >= end) return false;
      let colon = close + 1;
      while (colon < end && this.text[colon] === ' ') colon++;
      return this.text[colon] === ':' && (colon + 1 === end || this.text[colon + 1] === ' ');
    }
    for (let i = at; i < end; i++) {
      const c = this.text[i];
      if (c === '#' && this.text[i - 1] === ' ') return false;
      if (c === ':' && (i + 1 === end || this.text[i + 1] === ' ')) return true;
    }
    return false;
  }

  /** A scalar key and the offset after its `:`. */
  private key(at: number, end: number): { node: KScalar; after: number } {
    const scalar = this.scalarAt(at, end, true);
    let colon = scalar.end;
    while (colon < end && this.text[colon] === ' ') colon++;
    if (this.text[colon] !== ':' || (colon + 1 < end && this.text[colon + 1] !== ' ')) throw GIVE_UP;
    return { node: scalar.node, after: colon + 1 };
  }

  /** A value written on its key's (or dash's) line: a one-line scalar, an empty `[]` or `{}`, or a literal block scalar. */
  private inlineValue(line: Line, at: number, indent: number): KNode {
    const char = this.text[at];
    if (char === '|') return this.literal(line, at, indent);
    const value =
      EMPTY_FLOW[this.text.slice(at, at + 2)]?.(at) ??
      (char === '['
        ? this.flowCollection(at, line.end, false)
        : char === '{'
          ? this.flowCollection(at, line.end, true)
          : this.scalarAt(char === '&' ? this.afterAnchor(at, line.end) : at, line.end, false).node);
    let rest = value.span[1];
    while (rest < line.end && this.text[rest] === ' ') rest++;
    // `a: b: c`, text after a quote or a `[]`; a comment must follow a space
    if (rest < line.end && (this.text[rest] !== '#' || rest === value.span[1])) throw GIVE_UP;
    // A plain scalar (not after an anchor, nor a comment) may go on below.
    if (rest === line.end && value.kind === 'scalar' && value.plain && value.span[1] > value.span[0] && char !== '&') return this.continuedPlain(value, indent);
    const below = this.peek();
    if (below !== null && below.indent > indent) throw GIVE_UP; // a quoted scalar or a [] continued on the next line
    return value;
  }

  /**
   * A plain scalar with the lines below it that are more indented than its key or dash (a CRD's
   * description): folded as YAML folds them, a line break between two lines a space, each empty
   * line a break. A comment, a `: ` or a ` #` on such a line is left to the parser.
   */
  private continuedPlain(first: KScalar, indent: number): KScalar {
    let text = first.text;
    let end = first.span[1];
    let breaks = 0;
    let last = this.next;
    for (let at = this.next; at < this.lines.length; at++) {
      const line = this.lines[at];
      if (line.start + line.indent >= line.end) {
        breaks++;
        continue;
      }
      if (line.indent <= indent) break;
      let contentEnd = line.end;
      while (this.text[contentEnd - 1] === ' ') contentEnd--;
      const content = this.text.slice(line.start + line.indent, contentEnd);
      if (content[0] === '#' || CUTS_PLAIN.test(content)) throw GIVE_UP;
      text += breaks > 0 ? '\n'.repeat(breaks) : ' ';
      text += content;
      end = contentEnd;
      breaks = 0;
      last = at + 1;
    }
    this.next = last;
    return { kind: 'scalar', plain: true, text, span: [first.span[0], end] };
  }

  /**
   * Where the scalar after an anchor starts (`name: &app plex`, the app-template way of naming a
   * release once): the anchor names nothing this reader reads, and an alias of it makes the
   * reader give up where it stands. An anchor with nothing after it on its line is left to the parser.
   */
  private afterAnchor(at: number, end: number): number {
    const anchor = ANCHOR.exec(this.text.slice(at, Math.min(end, at + 200)));
    if (!anchor || at + anchor[0].length >= end) throw GIVE_UP;
    return at + anchor[0].length;
  }

  /**
   * A flow sequence or mapping on one line of quoted scalars and plain words (`verbs: ["get",
   * "list"]`, `args: [--debug, -v]`, `labels: {app: web, tier: "db"}`); anything else in it (a
   * nested collection, a `:` in a word, an empty item, a trailing comma, a key written twice) is
   * left to the parser.
   */
  private flowCollection(at: number, end: number, mapping: boolean): KSeq | KMap {
    const items: KNode[] = [];
    const entries: KMap['entries'] = [];
    const close = mapping ? '}' : ']';
    let i = at + 1;
    for (;;) {
      const first = this.flowScalar(i, end);
      i = this.skipSpaces(first.end);
      if (mapping) {
        if (this.text[i] !== ':' || this.text[i + 1] !== ' ' || entries.some((entry) => entry.key === first.node.text)) throw GIVE_UP;
        const value = this.flowScalar(i + 2, end);
        entries.push({ key: first.node.text, keyNode: first.node, value: value.node });
        i = this.skipSpaces(value.end);
      } else items.push(first.node);
      if (this.text[i] === close) return mapping ? { kind: 'map', entries, span: [at, i + 1] } : { kind: 'seq', items, span: [at, i + 1] };
      if (this.text[i] !== ',') throw GIVE_UP;
      i++;
    }
  }

  /** A quoted scalar or a plain word (FLOW_WORD) inside a flow collection, after spaces. */
  private flowScalar(from: number, end: number): { node: KScalar; end: number } {
    const at = this.skipSpaces(from);
    const char = this.text[at];
    if (char === '"' || char === "'") return this.quoted(at, end, char);
    const word = FLOW_WORD.exec(this.text.slice(at, end));
    if (!word) throw GIVE_UP;
    return { node: { kind: 'scalar', plain: true, text: word[0], span: [at, at + word[0].length] }, end: at + word[0].length };
  }

  private skipSpaces(at: number): number {
    while (this.text[at] === ' ') at++;
    return at;
  }

  /** A plain, single- or double-quoted scalar that ends on its line. */
  private scalarAt(at: number, end: number, isKey: boolean): { node: KScalar; end: number } {
    const char = this.text[at];
    if (char === "'" || char === '"') return this.quoted(at, end, char);
    if ('[]{},#&*!|>%@`'.includes(char) || ((char === '-' || char === '?' || char === ':') && (at + 1 >= end || this.text[at + 1] === ' '))) throw GIVE_UP;
    let stop = at;
    while (stop < end) {
      const c = this.text[stop];
      if (c === ':' && (stop + 1 === end || this.text[stop + 1] === ' ') && isKey) break;
      if (c === ':' && (stop + 1 === end || this.text[stop + 1] === ' ')) throw GIVE_UP; // a mapping inside a value
      if (c === '#' && this.text[stop - 1] === ' ') break;
      stop++;
    }
    let valueEnd = stop;
    while (valueEnd > at && this.text[valueEnd - 1] === ' ') valueEnd--;
    return { node: { kind: 'scalar', plain: true, text: this.text.slice(at, valueEnd), span: [at, valueEnd] }, end: valueEnd };
  }

  private quoted(at: number, end: number, quote: string): { node: KScalar; end: number } {
    let value = '';
    let i = at + 1;
    for (;;) {
      if (i >= end) throw GIVE_UP; // continues on the next line
      const c = this.text[i];
      if (quote === "'" && c === "'") {
        if (this.text[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        break;
      }
      if (quote === '"' && c === '"') break;
      if (quote === '"' && c === '\\') {
        const escaped = ESCAPES[this.text[i + 1]];
        if (escaped === undefined) throw GIVE_UP;
        value += escaped;
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    return { node: { kind: 'scalar', plain: false, text: value, span: [at, i + 1] }, end: i + 1 };
  }

  /** `|`, `|-` or `|+` and the lines below it, more indented than its key. */
  private literal(line: Line, at: number, indent: number): KScalar {
    const header = /^\|([-+]?)[ ]*(#.*)?$/.exec(this.text.slice(at, line.end));
    if (!header) throw GIVE_UP; // an indentation indicator, or text after the header
    const chomp = header[1];
    const body: string[] = [];
    let blockIndent = -1;
    let end = line.end;
    while (this.next < this.lines.length) {
      const candidate = this.lines[this.next];
      const empty = candidate.start + candidate.indent >= candidate.end;
      if (!empty) {
        if (blockIndent === -1) {
          if (candidate.indent <= indent) break;
          if (body.length > 0) throw GIVE_UP; // leading empty lines: their rules are subtle
          blockIndent = candidate.indent;
        } else if (candidate.indent < blockIndent) break;
        body.push(this.text.slice(candidate.start + blockIndent, candidate.end));
      } else {
        if (blockIndent !== -1 && candidate.indent > blockIndent) body.push(this.text.slice(candidate.start + blockIndent, candidate.end));
        else body.push('');
      }
      end = candidate.end;
      this.next++;
    }
    let trailing = 0;
    while (trailing < body.length && body[body.length - 1 - trailing] === '') trailing++;
    const content = body.slice(0, body.length - trailing);
    let value = content.join('\n');
    if (chomp === '+') value += '\n'.repeat(trailing + (content.length > 0 ? 1 : 0));
    else if (chomp === '' && content.length > 0) value += '\n';
    // trailing empty lines belong to the scalar only when kept
    if (chomp !== '+') this.next -= trailing;
    // as the yaml package counts it: to the line break after the last line read
    const last = chomp !== '+' && trailing > 0 ? this.lines[this.next - 1].end : end;
    const valueEnd = this.text[last] === '\r' ? last + 2 : this.text[last] === '\n' ? last + 1 : last;
    return { kind: 'scalar', plain: false, text: value, span: [at, Math.min(valueEnd, this.text.length)] };
  }
}

/** What ends or breaks a plain scalar's later line: a mapping's `: ` (or `:` at its end), a comment's ` #`. */
const CUTS_PLAIN = /:(?: |$)| #/;

/** A plain scalar in a flow collection that every reader reads alike: no space, no indicator, not a dash alone. */
const FLOW_WORD = /^(?:[A-Za-z0-9_./@~=+]|-(?=[A-Za-z0-9_./@~=+-]))[A-Za-z0-9_./@~=+*-]*/;

/** An empty flow collection (`args: []`, `resources: {}`): read alike by every YAML reader. */
const EMPTY_FLOW: Record<string, (at: number) => KNode> = {
  '[]': (at) => ({ kind: 'seq', items: [], span: [at, at + 2] }),
  '{}': (at) => ({ kind: 'map', entries: [], span: [at, at + 2] }),
};

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', ' ': ' ', b: '\b', e: '\x1b', a: '\x07', v: '\v', f: '\f' };
