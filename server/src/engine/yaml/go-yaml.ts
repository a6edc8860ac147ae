// YAML as go-yaml v3 reads it. Flux's kustomize-controller decodes manifests with go-yaml (through
// kustomize's kyaml); the project parses with the npm `yaml` package, a YAML 1.2 parser that is
// stricter than go-yaml in places (an alias key `*app:`, a quoted scalar or a flow collection whose
// lines are not indented past their key) and more lenient in others (`\/` in a double-quoted
// scalar, an alias of no anchor). Here npm yaml's own parser and composer run on the tokens of its
// lexer adjusted to go-yaml's scanner (scannerc.go), and what go-yaml refuses that npm yaml reads
// is listed as problems. Token lengths never change, so every offset still points into the text.
import { Composer, Document, isAlias, isMap, isPair, isScalar, isSeq, Lexer, Parser, Scalar } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';

/** How a text is read: as go-yaml reads it (what Flux does), or as YAML 1.2 says (npm yaml alone; tests only). */
export type YamlReading = 'go-yaml' | 'yaml-1.2';

export interface ReadProblem {
  /** Offsets into the text that was read. */
  start: number;
  end: number;
  message: string;
}

export interface ReadDocuments {
  docs: Document.Parsed[];
  /** What go-yaml refuses and npm yaml reads, by offset. */
  problems: ReadProblem[];
  /** Whether an alias names an anchor defined before it (only such a document can alias too much). */
  aliases: boolean;
}

/** The words go-yaml's errors have in common with this module's messages (the editor recognises them: no YAML extension reports these). */
export const GO_YAML_STOPS = "kustomize's YAML decoder (go-yaml) stops";

/** A message saying where go-yaml stops and why; `error` is go-yaml's own text, where it says the same in every context. */
export function goYamlStops(why: string, error?: string): string {
  return `${why}: ${GO_YAML_STOPS}${error ? ` with "${error}"` : ''} here`;
}

/**
 * Whether a text may hold something go-yaml refuses and npm yaml reads (an escape, a directive or
 * `...`, an anchor or alias): a cheap test on the text, so that the editor parses such a document
 * even where no rule can fire in it. Loose where it must be. Made of indexOf searches: it runs on
 * every keystroke, over a document of megabytes, where a regex with `^` or an alternation tries
 * every position.
 */
export function goYamlMayRefuse(text: string): boolean {
  return mayEscapeBadly(text) || someLineStartsWith(text, ['%', '...']) || mayName(text);
}

/** The line breaks after which a regex's `^` matches in multiline mode (and before which `$` does). */
const LINE_BREAKS = ['\n', '\r', '\u2028', '\u2029'];

/** Whether `ch` is one of LINE_BREAKS: the text tests written with indexOf read lines as the regexes they replaced did. */
export function isLineBreak(ch: string | undefined): boolean {
  return ch !== undefined && LINE_BREAKS.includes(ch);
}

/** Whether a line of `text` starts with one of `prefixes` (what `/^(?:…)/m` finds). */
function someLineStartsWith(text: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => text.startsWith(prefix) || LINE_BREAKS.some((lineBreak) => text.includes(lineBreak + prefix)));
}

/** The character after `&` or `*` that makes a name. */
const NAME_CHARACTER = /[^\s,[\]{}*&]/;
/** A line up to an anchor or alias: indentation and `- ` items. */
const ITEM_INDENT = /^[ \t]*(?:-[ \t]+)*$/;

/**
 * An anchor or alias where YAML reads one: after indentation or `- `, or after `:`, `,`, `[`, `{`,
 * `?` and blanks (loose: prose in a block scalar can look like one). Each `&` and `*` is looked at
 * backwards, only as far as the blanks and dashes before it.
 */
function mayName(text: string): boolean {
  for (const mark of ['&', '*']) {
    for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + 1)) {
      if (at + 1 >= text.length || !NAME_CHARACTER.test(text[at + 1])) continue;
      let before = at - 1;
      while (before >= 0 && (text[before] === ' ' || text[before] === '\t')) before--;
      if (before >= 0 && ':,[{?'.includes(text[before])) return true;
      while (before >= 0 && ' \t-'.includes(text[before])) before--;
      if ((before < 0 || isLineBreak(text[before])) && ITEM_INDENT.test(text.slice(before + 1, at))) return true;
    }
  }
  return false;
}

/** Whether a text may hold an escape go-yaml refuses and npm yaml reads (`\/`, a surrogate's code). */
export function mayEscapeBadly(text: string): boolean {
  return text.includes('\\') && MAY_ESCAPE_BADLY.test(text);
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** Parses `text` (one chunk of a file) into its documents as `reading` says. */
export function readDocuments(text: string, options: Options, reading: YamlReading): ReadDocuments {
  const parser = new Parser();
  const composer = new Composer(options);
  if (reading === 'yaml-1.2') return { docs: Array.from(composer.compose(parser.parse(text))), problems: [], aliases: true };
  const lexer = new GoYamlLexer();
  function* tokens() {
    for (const lexeme of lexer.lex(text)) yield* parser.next(lexeme);
    yield* parser.end();
  }
  const docs = Array.from(composer.compose(tokens()));
  const problems = [...lexer.names.problems, ...escapeProblems(docs, text), ...implicitDocuments(docs)];
  for (const doc of docs) {
    if (lexer.anchorColons.size > 0) doc.errors = doc.errors.filter((error) => !(error.message === ANCHOR_SPACE && lexer.anchorColons.has(error.pos[0])));
    acceptQuoteEscapes(doc, text);
    if (lexer.names.aliases && doc.errors.length === 0) resolveAliasKeys(doc);
  }
  if (docs.length > 0 && !/[\n\r]$/.test(text)) dropBreakAtEnd(docs[docs.length - 1], text.length);
  return { docs, problems, aliases: lexer.names.aliases };
}

// ---- The lexer ----

/** The internals of npm yaml's Lexer that the adjustments below read and wrap (all private in its types). */
interface LexerInternals {
  buffer: string;
  pos: number;
  atEnd: boolean;
  lineEndPos: number | null;
  flowLevel: number;
  flowKey: boolean;
  indentNext: number;
  hasChars(n: number): boolean;
  lex(source: string): Generator<string, void>;
  parseNext(state: string): Generator<string, string | null>;
  parseStream(): Generator<string, string>;
  continueScalar(offset: number): number;
  pushUntil(test: (ch: string | undefined) => boolean): Generator<string, number>;
  pushToIndex(index: number, allowEmpty: boolean): Generator<string, number>;
}

const base = Lexer.prototype as unknown as LexerInternals;
for (const method of ['hasChars', 'lex', 'parseNext', 'parseStream', 'continueScalar', 'pushUntil', 'pushToIndex'] as const) {
  // the dependency is pinned; a new version that renamed these would otherwise lose the adjustments quietly
  if (typeof base[method] !== 'function') throw new Error(`go-yaml: the yaml package's Lexer has no ${method} (did yaml change?)`);
}

/** npm yaml's lexer, adjusted where go-yaml's scanner reads differently. */
class GoYamlLexer extends Lexer {
  /** Where a colon ends an anchor's name (npm yaml then wants a space between them, go-yaml does not). */
  readonly anchorColons = new Set<number>();
  /** The anchors, aliases and directives met, in text order. */
  readonly names = new TokenCheck();
}

type Adjusted = LexerInternals & Pick<GoYamlLexer, 'anchorColons' | 'names'>;
const adjusted = GoYamlLexer.prototype as unknown as Adjusted;

/**
 * Inside a flow collection go-yaml checks no indentation (it unrolls indents only in block
 * context), so the lexer requires none while it is in one, and the block's again after it. This is
 * npm yaml's own lex loop (for a whole text at once), with that around its flow state.
 */
adjusted.lex = function* (this: Adjusted, source: string) {
  this.buffer = source;
  this.lineEndPos = null;
  this.atEnd = true;
  let next: string | null = 'stream';
  let blockIndent = -1; // the block's indentNext while in a flow collection, else -1
  while (next && this.hasChars(1)) {
    if (next !== 'flow') {
      next = yield* this.parseNext(next);
      continue;
    }
    if (blockIndent === -1) blockIndent = this.indentNext;
    this.indentNext = 0;
    next = yield* this.parseNext(next);
    if (next !== 'flow') {
      this.indentNext = blockIndent;
      blockIndent = -1;
    }
  }
};

/**
 * A quoted scalar runs to its closing quote whatever the indentation of its lines: go-yaml checks
 * only for a document marker (`---`, `...`) at the start of a line, which npm yaml's lexer also
 * checks when it requires no indentation. (YAML 1.2 wants the lines indented past the key; a CRD's
 * `description: '...` wrapped at the key's column, as controller-gen writes it, is valid to go-yaml.)
 * The lexer asks at each line break of a scalar, while its position is still the scalar's start:
 * a quote there means a quoted scalar (a plain one never starts with one, a block scalar's lines
 * start with their indentation, or with a quote where no indentation is required anyway).
 */
adjusted.continueScalar = function (this: Adjusted, offset: number) {
  const first = this.buffer[this.pos];
  if ((first !== "'" && first !== '"') || this.indentNext === 0) return base.continueScalar.call(this, offset);
  const indentNext = this.indentNext;
  this.indentNext = 0;
  const next = base.continueScalar.call(this, offset);
  this.indentNext = indentNext;
  return next;
};

/**
 * An anchor or alias name has only `[0-9A-Za-z_-]` to go-yaml, so in `*app:` the colon ends the
 * name and, followed by a space or a line break (or anywhere in a flow collection), is the mapping
 * value indicator: `*app` is the key. npm yaml reads any character but spaces and `,[]{}` as part
 * of the name. The colon is left to the lexer, which then reads it as it reads `*app :`. After an
 * anchor, go-yaml ends the name at any colon: `&a: 1` anchors an empty key, `&a:b` the scalar `:b`.
 */
adjusted.pushUntil = function* (this: Adjusted, test: (ch: string | undefined) => boolean) {
  const start = this.pos;
  const first = this.buffer[start];
  if (first !== '*' && first !== '&') return yield* base.pushUntil.call(this, test); // a block scalar's header
  const end = nameEnd(this.buffer, start + 1);
  let pushed: number;
  if (end > start + 1 && this.buffer[end] === ':' && (first === '&' || this.flowLevel > 0 || isBlank(this.buffer[end + 1]))) {
    if (this.flowLevel > 0) this.flowKey = true; // so that `{*a:b}` reads `:` as the indicator, as go-yaml does
    if (first === '&') this.anchorColons.add(end);
    pushed = yield* this.pushToIndex(end, false);
  } else pushed = yield* base.pushUntil.call(this, test);
  this.names.see(this.buffer, start, this.pos);
  return pushed;
};

/** A directive (`%YAML 1.1`) is a line the lexer reads in its stream state, between documents. */
adjusted.parseStream = function* (this: Adjusted) {
  if (this.buffer[this.pos] === '%') this.names.directive(this.buffer, this.pos);
  return yield* base.parseStream.call(this);
};

/** go-yaml's is_alpha: the characters of an anchor name. */
function isNameChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
}

function nameEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
  return end;
}

/** A space, a tab, a line break or the end: go-yaml's is_blankz. */
function isBlank(ch: string | undefined): boolean {
  return ch === undefined || ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

/** npm yaml's error for a token right after an anchor (`&a:`). */
const ANCHOR_SPACE = 'Tags and anchors must be separated from the next token by white space';

// ---- Escapes in double-quoted scalars ----

/** The escapes npm yaml decodes and go-yaml does not know. */
const UNKNOWN_TO_GO_YAML = new Set(['/']);
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** A text that may hold an escape go-yaml refuses (anywhere: only those in double-quoted scalars count). */
const MAY_ESCAPE_BADLY = /\\\/|\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]/;

/**
 * go-yaml's "found unknown escape character" for `\/` (JSON's escape, YAML 1.2's too, which go-yaml
 * never took), and "found invalid Unicode character escape code" for a surrogate (`\uD800`), which
 * npm yaml decodes; each at the escape, in the double-quoted scalars of `docs`. Other bad escapes
 * npm yaml reports itself. Most texts hold no such escape anywhere and are not walked.
 */
function escapeProblems(docs: Document.Parsed[], text: string): ReadProblem[] {
  if (!MAY_ESCAPE_BADLY.test(text)) return [];
  const problems: ReadProblem[] = [];
  for (const doc of docs) for (const scalar of doubleQuoted(doc)) escapesIn(text, scalar.range![0], scalar.range![1], problems);
  return problems;
}

function escapesIn(text: string, start: number, end: number, problems: ReadProblem[]): void {
  for (let at = start; at < end; at++) {
    if (text.charCodeAt(at) !== 92) continue; // a backslash
    const escaped = text[++at];
    if (UNKNOWN_TO_GO_YAML.has(escaped)) {
      problems.push({ start: at - 1, end: at + 1, message: goYamlStops(`\`\\${escaped}\` is no escape to go-yaml (write \`${escaped}\` alone)`, 'found unknown escape character') });
    } else if (escaped in HEX_LENGTH) {
      const digits = text.slice(at + 1, at + 1 + HEX_LENGTH[escaped]);
      const code = /^[0-9A-Fa-f]+$/.test(digits) ? parseInt(digits, 16) : NaN;
      if (code >= 0xd800 && code <= 0xdfff) {
        problems.push({
          start: at - 1,
          end: at + 1 + digits.length,
          message: goYamlStops(`\`\\${escaped}${digits}\` is half of a UTF-16 pair, no character`, 'found invalid Unicode character escape code'),
        });
      }
    }
  }
}

/** `\'` in a double-quoted scalar is an escaped quote to go-yaml; npm yaml reports it and keeps both characters. */
function isQuoteEscapeError(error: { code: string; message: string }): boolean {
  return error.code === 'BAD_DQ_ESCAPE' && error.message.startsWith("Invalid escape sequence \\'");
}

/**
 * Takes back npm yaml's error for each `\'` and decodes the scalars that hold one as go-yaml does:
 * npm yaml decodes the scalar's text again with each `\'` swapped for a character the text does
 * not hold, which then becomes the quote.
 */
function acceptQuoteEscapes(doc: Document.Parsed, text: string): void {
  const escapes = doc.errors.filter(isQuoteEscapeError).map((error) => error.pos[0]);
  if (escapes.length === 0) return;
  doc.errors = doc.errors.filter((error) => !isQuoteEscapeError(error));
  for (const scalar of doubleQuoted(doc).filter((node) => escapes.some((at) => at >= node.range![0] && at < node.range![1]))) {
    const source = text.slice(scalar.range![0], scalar.range![1]);
    let stand = 0xe000;
    while (source.includes(String.fromCharCode(stand))) stand++;
    const [again] = Array.from(new Composer().compose(new Parser().parse(swapQuoteEscapes(source, String.fromCharCode(stand)))));
    const value = again?.errors.length === 0 && isScalar(again.contents) ? again.contents.value : null;
    if (typeof value === 'string') scalar.value = scalar.source = value.split(String.fromCharCode(stand)).join("'");
  }
}

/** `source` (a double-quoted scalar) with each `\'` escape replaced by `stand`; the other escapes stay. */
function swapQuoteEscapes(source: string, stand: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== '\\') out += source[i];
    else out += source[++i] === "'" ? stand : '\\' + (source[i] ?? '');
  }
  return out;
}

/** The double-quoted scalars of a document (keys included), in any order. */
function doubleQuoted(doc: Document.Parsed): Scalar[] {
  const found: Scalar[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isScalar(node)) {
      if (node.type === 'QUOTE_DOUBLE' && node.range) found.push(node);
    } else if (isMap(node)) {
      for (const pair of node.items) stack.push(pair.key, pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return found;
}

// ---- Anchor and alias names, directives ----

/**
 * What go-yaml refuses in a chunk's tokens, seen one by one in text order: an anchor or alias name
 * with characters other than `[0-9A-Za-z_-]` ("did not find expected alphabetic or numeric
 * character"), an alias whose anchor comes later or nowhere ("unknown anchor 'x' referenced"), and
 * a directive other than `%YAML 1.1` and `%TAG` (go-yaml reads YAML 1.1 only). kustomize decodes
 * each `---` piece of a file alone, so anchors count from the chunk's start.
 */
class TokenCheck {
  readonly problems: ReadProblem[] = [];
  aliases = false;
  private readonly anchors = new Set<string>();

  /** The anchor or alias `text[start, end)` (its sigil included). */
  see(text: string, start: number, end: number): void {
    const sigil = text[start];
    const name = text.slice(start + 1, end);
    const after = text[end];
    const nameLength = nameEnd(name, 0);
    if (name.length === 0 || nameLength !== name.length || after === '[' || after === '{') {
      if (name.length > 0) this.problems.push({ start, end, message: badName(sigil, name, nameLength) });
      return;
    }
    if (sigil === '&') {
      this.anchors.add(name);
    } else if (this.anchors.has(name)) {
      this.aliases = true;
    } else {
      this.problems.push({ start, end, message: goYamlStops(`no \`&${name}\` comes before \`*${name}\` in this document`, `unknown anchor '${name}' referenced`) });
    }
  }

  /** The directive line at `start` (up to a comment). */
  directive(text: string, start: number): void {
    const lineEnd = text.indexOf('\n', start);
    const line = text.slice(start, lineEnd === -1 ? text.length : lineEnd).replace(/[ \t]+#.*$|\s+$/, '');
    const [name, version] = line.slice(1).split(/[ \t]+/);
    const at = { start, end: start + line.length };
    if (name === 'YAML' && version !== '1.1') {
      this.problems.push({ ...at, message: goYamlStops(`go-yaml reads YAML 1.1 and refuses \`%YAML ${version ?? ''}\` (remove the line)`, 'found incompatible YAML document') });
    } else if (name !== 'YAML' && name !== 'TAG') {
      this.problems.push({ ...at, message: goYamlStops(`\`%${name}\` is no directive go-yaml knows`, 'found unknown directive name') });
    }
  }
}

/** go-yaml's view of a name npm yaml read further than `[0-9A-Za-z_-]` (the first `nameLength` characters). */
function badName(sigil: string, name: string, nameLength: number): string {
  // `*x:1`: go-yaml ends the alias at the colon and then meets `:1`, which cannot follow an alias (what it says depends on where)
  if (nameLength > 0 && name[nameLength] === ':') return goYamlStops(`\`${sigil}${name}\`: the alias ends at the colon, and nothing may follow an alias but a space`);
  return goYamlStops(`\`${sigil}${name}\`: an anchor's name has only letters, digits, \`_\` and \`-\` to go-yaml`, 'did not find expected alphabetic or numeric character');
}

// ---- Documents ----

/**
 * After `...`, go-yaml wants `---` before the next document ("did not find expected <document
 * start>"); npm yaml starts one without it. Chunks split at `---`, so every document of a chunk but
 * the first is such a document (when it holds a node).
 */
function implicitDocuments(docs: Document.Parsed[]): ReadProblem[] {
  return docs
    .slice(1)
    .filter(holdsNode)
    .map((doc) => ({ start: doc.range[0], end: doc.range[1], message: goYamlStops('a document after `...` without `---` before it', 'did not find expected <document start>') }));
}

/** Whether a document holds a node (npm yaml makes an empty scalar of `...` after `...`, which go-yaml reads as no document). */
export function holdsNode(doc: Document.Parsed): boolean {
  const contents = doc.contents;
  if (contents === null) return false;
  return !(isScalar(contents) && contents.range?.[0] === contents.range?.[1] && !contents.anchor && !contents.tag);
}

/**
 * A block scalar that ends the text without a line break ends without one to go-yaml (the text's
 * last line has no break to keep); npm yaml gives it one. kustomize decodes a file's last `---`
 * piece as it is in the file, so this is the last document of a file without a final line break.
 */
function dropBreakAtEnd(doc: Document.Parsed, end: number): void {
  let node: unknown = doc.contents;
  for (;;) {
    if (isMap(node) && node.items.length > 0) {
      const last = node.items[node.items.length - 1];
      node = last.value ?? last.key;
    } else if (isSeq(node) && node.items.length > 0) node = node.items[node.items.length - 1];
    else break;
  }
  if (!isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') || node.range?.[1] !== end) return;
  if (typeof node.value === 'string' && node.value.endsWith('\n')) node.value = node.source = node.value.slice(0, -1);
}

/**
 * An alias used as a mapping key is the anchored scalar to kustomize, which expands aliases before
 * anything reads the resource: the key `*app` of `app: &app web` is `web`. The alias key becomes a
 * copy of that scalar, still spanning the alias's text, so every rule reads the key by its value.
 * One walk in document order, where an alias names the last anchor of its name before it.
 */
function resolveAliasKeys(doc: Document.Parsed): void {
  const anchors = new Map<string, unknown>();
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isPair(node)) {
      // a pair on the stack: its key is read, then its value
      if (isAlias(node.key)) {
        const target = anchors.get(node.key.source);
        if (isScalar(target) && node.key.range) node.key = scalarCopy(target, node.key.range);
        stack.push(node.value);
      } else stack.push(node.value, node.key);
      continue;
    }
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (anchor) anchors.set(anchor, node);
    if (isMap(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
    else if (isSeq(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
  }
}

function scalarCopy(target: Scalar, range: [number, number, number]): Scalar {
  const copy = new Scalar(target.value);
  copy.type = target.type;
  copy.source = target.source;
  copy.range = range;
  return copy;
}
