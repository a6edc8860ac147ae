// Flux's post-build substitution: a port of github.com/fluxcd/pkg/envsubst (itself a fork of
// drone/envsubst), the code kustomize-controller runs over every resource it substitutes.
//
// The structure follows the Go package so the two can be read side by side:
//   Scanner            parse/scan.go  (the lexer, including its quirks)
//   beginFunc ...      parse/parse.go (one step function per Go parse function)
//   evaluate           template.go    (strict mode, argument-first evaluation)
//   applyFunc ...      funcs.go       (operators; Go strings are bytes, so values here are too)
//   globMatch          path/match.go  (path.Match with `*` and `?` allowed to match `/`)
// The Go parser and evaluator recurse once per nesting level; here both run on explicit stacks,
// so ten thousand nested `${A:-${A:-...}}` cost no JS stack.
//
// `scanSubstitutions` drives the same scanner and parser and keeps the positions, so the linter
// and the evaluator cannot disagree about what Flux sees.

// ---------------------------------------------------------------------------------------------
// Public API

export type Occurrence =
  | ExpressionOccurrence
  | { kind: 'syntax-error'; start: number; end: number; error: string }
  | { kind: 'escape'; start: number; end: number; next: string }
  | { kind: 'bare-dollar'; start: number; end: number };

export interface ExpressionOccurrence {
  kind: 'expression';
  /** Offset of the `$` (UTF-16). */
  start: number;
  /** Just after the closing `}`. */
  end: number;
  name: string | null;
  /**
   * Flux's operator as written: `:-` `:=` `=` `:?` `:+` `:` `#` `##` `%` `%%` `/` `//` `/#` `/%`
   * `^` `^^` `,` `,,` (or any other mix of `^` and `,`), null for a plain `${NAME}`. `#` is both
   * the length `${#NAME}` (text[start + 2] === '#') and the shortest-prefix trim `${NAME#word}`.
   */
  operator: string | null;
  /** A default operator (`=` `:=` `:-` `:?` `:+`): an undefined name is no error in strict mode. */
  hasDefault: boolean;
  /** `${...}` inside the default or other argument, offsets into the same text. */
  nested: ExpressionOccurrence[];
}

export type EnvsubstResult = { ok: true; output: string } | { ok: false; error: string };

/** Go's `[:alpha:]` and `[:digit:]` are ASCII-only, so `KÖNIG` is not a valid name to define. */
export const VALID_VAR_NAME = /^[_A-Za-z][_A-Za-z0-9]*$/;
const VAR_NAME_PATTERN = '^[_[:alpha:]][_[:alpha:][:digit:]]*$';

/**
 * kustomize-controller's check of every defined variable name (inline `substitute` and
 * `substituteFrom` keys) before it substitutes anything: null when valid, else its exact error.
 */
export function validateVarName(name: string): string | null {
  return VALID_VAR_NAME.test(name) ? null : `'${name}' var name is invalid, must match '${VAR_NAME_PATTERN}'`;
}

/**
 * Substitutes `input` exactly as Flux does. `lookup` returns a defined variable's value, or
 * undefined. Non-strict, an undefined name reads as empty; strict, it is an error unless a default
 * operator guards it. The whole input is parsed before anything is evaluated, so a syntax error
 * anywhere wins over an undefined variable.
 */
export function envsubst(input: string, lookup: (name: string) => string | undefined, options: { strict: boolean }): EnvsubstResult {
  const items: Exclude<TopItem, { kind: 'error' }>[] = [];
  for (const item of parseTop(input, false)) {
    if (item.kind === 'error') return { ok: false, error: item.error };
    items.push(item);
  }
  let output = '';
  for (const item of items) {
    if (item.kind === 'text') {
      output += item.value;
      continue;
    }
    const result = evaluate(item.node, lookup, options.strict);
    if (typeof result !== 'string') return { ok: false, error: result.error };
    output += fromBytes(result);
  }
  return { ok: true, output };
}

/**
 * Every top-level occurrence in `text`, in order, with UTF-16 offsets. Flux stops at the first
 * syntax error; this scan reports it and resumes where the lexer stopped, so a linter can show
 * every one.
 */
export function scanSubstitutions(text: string): Occurrence[] {
  const found: Occurrence[] = [];
  for (const item of parseTop(text, true)) {
    if (item.kind === 'expression') found.push(item.occurrence);
    else if (item.kind === 'error') found.push({ kind: 'syntax-error', start: item.start, end: item.end, error: item.error });
    else {
      // A text token: its skipped characters are the first `$` of each `$$` pair; any other
      // `$` in it is a lone one (the scanner never lets `${` into a text token).
      let skip = 0;
      for (let i = item.start; i < item.end; i++) {
        if (item.skipped[skip] === i) {
          skip++;
          const next = i + 2 < text.length ? String.fromCodePoint(text.codePointAt(i + 2)!) : '';
          found.push({ kind: 'escape', start: i, end: i + 2, next });
          i++;
        } else if (text.charCodeAt(i) === DOLLAR) {
          found.push({ kind: 'bare-dollar', start: i, end: i + 1 });
        }
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Errors (parse/parse.go, template.go)

const ERR_BAD_SUBSTITUTION = 'bad substitution';
const ERR_MISSING_CLOSING_BRACE = 'missing closing brace';
const ERR_PARSE_VARIABLE_NAME = 'unable to parse variable name';
const ERR_PARSE_FUNC_SUBSTITUTION = 'unable to parse substitution within function';
const ERR_PARSE_DEFAULT_FUNCTION = 'unable to parse default function';

// Go formats this with %q; a name holds only letters, digits and `_`, all printable, so quoting
// it is just wrapping it in double quotes.
const errVarNotSet = (name: string) => `variable not set (strict mode): "${name}"`;

// ---------------------------------------------------------------------------------------------
// Scanner (parse/scan.go)

const c = (s: string) => s.charCodeAt(0);
/** Go's scanner returns rune 0 at the end of input, so a NUL character also ends it. */
const EOF = 0;
const DOLLAR = c('$'),
  LBRACE = c('{'),
  RBRACE = c('}'),
  COLON = c(':'),
  EQUAL = c('='),
  HASH = c('#');
const PERCENT = c('%'),
  SLASH = c('/'),
  BACKSLASH = c('\\'),
  COMMA = c(','),
  CARET = c('^');
const MINUS = c('-'),
  QUESTION = c('?'),
  PLUS = c('+');

// Tokens.
const T_ILLEGAL = 0,
  T_EOF = 1,
  T_IDENT = 2,
  T_LBRACK = 3,
  T_RBRACK = 4;
type TokenKind = typeof T_ILLEGAL | typeof T_EOF | typeof T_IDENT | typeof T_LBRACK | typeof T_RBRACK;

// Mode bits: which tokens a scan may produce.
const SCAN_IDENT = 1,
  SCAN_LBRACK = 2,
  SCAN_RBRACK = 4,
  SCAN_ESCAPE = 8;
// Escape bits: `$$` (everywhere escapes apply) and `\/`, `\\` (inside `${...}` only).
const ESCAPE_DOLLAR = 1,
  ESCAPE_BACKSLASH = 2,
  ESCAPE_ALL = 3;

/** `i` is the rune's offset from the token start, counted after reading it (so 1 for the first). */
type Accept = (r: number, i: number) => boolean;

const acceptRune: Accept = () => true;
const acceptIdent: Accept = (r) => isIdentRune(r);
const acceptColon: Accept = (r) => r === COLON;
const acceptOneHash: Accept = (r, i) => r === HASH && i === 1;
const acceptNotClosing: Accept = (r) => r !== RBRACE;
const acceptHashFunc: Accept = (r, i) => r === HASH && i < 3;
const acceptPercentFunc: Accept = (r, i) => r === PERCENT && i < 3;
const acceptDefaultFunc: Accept = (r, i) => (i === 1 && r === COLON) || (i === 2 && (r === EQUAL || r === MINUS || r === QUESTION || r === PLUS));
const acceptReplaceFunc: Accept = (r, i) => (i === 1 && r === SLASH) || (i === 2 && (r === SLASH || r === HASH || r === PERCENT));
const acceptOneEqual: Accept = (r, i) => i === 1 && r === EQUAL;
const acceptOneColon: Accept = (r, i) => i === 1 && r === COLON;
const rejectColonClose: Accept = (r) => r !== COLON && r !== RBRACE;
const acceptSlash: Accept = (r) => r === SLASH;
const acceptNotSlash: Accept = (r) => r !== SLASH;
const acceptCasingFunc: Accept = (r, i) => (r === COMMA || r === CARET) && i < 3;

const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;

/** Go's unicode.IsLetter || unicode.IsDigit || '_'. */
function isIdentRune(r: number): boolean {
  if (r < 0x80) return (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f;
  return LETTER_OR_DIGIT.test(String.fromCodePoint(r));
}

class Scanner {
  pos = 0;
  start = 0;
  /** Width of the last rune read; Go's unread() steps back by it, whatever was read since. */
  width = 0;
  mode = 0;
  escapeChars = ESCAPE_DOLLAR;
  accept: Accept = acceptRune;
  /**
   * Positions of the escape characters dropped from the current token. Go's skip() cuts them
   * out of its buffer; keeping the text intact keeps every position a real offset.
   */
  skipped: number[] = [];

  constructor(private readonly buf: string) {}

  read(): number {
    if (this.pos >= this.buf.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.buf.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  unread(): void {
    this.pos -= this.width;
  }

  peek(): number {
    const r = this.read();
    this.unread();
    return r;
  }

  /** Drops the escape character just read; the escaped character after it is taken as is. */
  private skip(): void {
    this.skipped.push(this.pos - 1);
    this.pos += 1; // `$`, `/` and `\` are one code unit
  }

  /** The current token's text, escapes removed. */
  text(): string {
    if (this.skipped.length === 0) return this.buf.slice(this.start, this.pos);
    let out = '';
    let from = this.start;
    for (const at of this.skipped) {
      out += this.buf.slice(from, at);
      from = at + 1;
    }
    return out + this.buf.slice(from, this.pos);
  }

  /** Sets what the next token may be, then scans it (every Go call site sets both first). */
  scanWith(accept: Accept, mode: number): TokenKind {
    this.accept = accept;
    this.mode = mode;
    return this.scan();
  }

  private scan(): TokenKind {
    this.start = this.pos;
    this.skipped = [];
    const r = this.read();
    if (r === EOF) return T_EOF;
    if (this.scanLbrack(r)) return T_LBRACK;
    if (this.scanRbrack(r)) return T_RBRACK;
    if (this.scanIdent(r)) return T_IDENT;
    return T_ILLEGAL;
  }

  private offset(): number {
    return this.pos - this.start - this.skipped.length;
  }

  private scanIdent(first: number): boolean {
    if (!(this.mode & SCAN_IDENT)) return false;
    if (this.scanEscaped(first)) this.skip();
    else if (!this.accept(first, this.offset())) return false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        this.unread();
        break;
      }
      if (this.scanLbrack(r)) {
        // Leave `${` for the next token; both characters are one unit wide.
        this.unread();
        this.unread();
        break;
      }
      if (this.scanEscaped(r)) {
        this.skip();
        continue;
      }
      if (!this.accept(r, this.offset())) {
        this.unread();
        break;
      }
    }
    return true;
  }

  private scanLbrack(r: number): boolean {
    if (!(this.mode & SCAN_LBRACK) || r !== DOLLAR) return false;
    if (this.read() === LBRACE) return true;
    this.unread();
    return false;
  }

  private scanRbrack(r: number): boolean {
    return (this.mode & SCAN_RBRACK) !== 0 && r === RBRACE;
  }

  private scanEscaped(r: number): boolean {
    if (!(this.mode & SCAN_ESCAPE)) return false;
    if (r === DOLLAR && this.escapeChars & ESCAPE_DOLLAR && this.peek() === DOLLAR) return true;
    if (r === BACKSLASH && this.escapeChars & ESCAPE_BACKSLASH) {
      const next = this.peek();
      return next === SLASH || next === BACKSLASH;
    }
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Parser (parse/parse.go)

interface TextNode {
  kind: 'text';
  value: string;
}

interface FuncNode {
  kind: 'func';
  /** The variable name. */
  param: string;
  /** The operator, '' for a plain `${NAME}`. */
  name: string;
  args: ArgNode[];
}

type ArgNode = TextNode | FuncNode;

/** Where a parse function resumes once the argument it asked for has been parsed. */
type Step = 'default' | 'substr-offset' | 'substr-length' | 'remove' | 'replace-pattern' | 'replace-with';

interface Frame {
  node: FuncNode;
  start: number;
  step: Step;
  nested: ExpressionOccurrence[];
}

/** A parse step either finished the `${...}`, failed, or needs one argument token next. */
type Progress = { kind: 'done' } | { kind: 'error'; error: string } | { kind: 'param'; accept: Accept; mode: number };

const DONE: Progress = { kind: 'done' };
const fail = (error: string): Progress => ({ kind: 'error', error });
const param = (frame: Frame, step: Step, accept: Accept, mode: number): Progress => {
  frame.step = step;
  return { kind: 'param', accept, mode };
};

type TopItem =
  | { kind: 'text'; start: number; end: number; value: string; skipped: number[] }
  | { kind: 'expression'; node: FuncNode; occurrence: ExpressionOccurrence }
  | { kind: 'error'; start: number; end: number; error: string };

/** parseAny as a loop: text tokens and `${...}` expressions until the end (or a NUL). */
function* parseTop(text: string, keepGoing: boolean): Generator<TopItem> {
  const sc = new Scanner(text);
  for (;;) {
    // Outside `${...}` only `$$` is an escape; a backslash is plain text.
    sc.escapeChars = ESCAPE_DOLLAR;
    const start = sc.pos;
    const token = sc.scanWith(acceptRune, SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE);
    if (token === T_EOF) return;
    if (token === T_IDENT) {
      yield { kind: 'text', start, end: sc.pos, value: sc.text(), skipped: sc.skipped };
      continue;
    }
    // With acceptRune every other token is `${` (Go's ErrBadSubstitution fallback is unreachable).
    const parsed = parseExpression(sc, sc.start);
    if ('error' in parsed) {
      const end = Math.max(sc.pos, start + 2);
      yield { kind: 'error', start, end, error: parsed.error };
      if (!keepGoing) return;
      sc.pos = end;
    } else {
      yield { kind: 'expression', ...parsed };
    }
  }
}

/** One `${...}` whose `${` was just scanned. Nested expressions go on `stack`, not the JS stack. */
function parseExpression(sc: Scanner, start: number): { node: FuncNode; occurrence: ExpressionOccurrence } | { error: string } {
  const stack: Frame[] = [];
  let frame = newFrame(start);
  let progress = beginFunc(sc, frame);
  for (;;) {
    if (progress.kind === 'error') return { error: progress.error };
    if (progress.kind === 'param') {
      // parseParam: one token, or a nested `${...}`.
      const token = sc.scanWith(progress.accept, progress.mode | SCAN_LBRACK);
      if (token === T_LBRACK) {
        stack.push(frame);
        frame = newFrame(sc.start);
        progress = beginFunc(sc, frame);
      } else if (token === T_IDENT || token === T_RBRACK) {
        progress = continueFunc(sc, frame, { kind: 'text', value: sc.text() });
      } else {
        progress = fail(ERR_PARSE_FUNC_SUBSTITUTION);
      }
      continue;
    }
    const { node } = frame;
    const occurrence: ExpressionOccurrence = {
      kind: 'expression',
      start: frame.start,
      end: sc.pos,
      name: node.param,
      operator: node.name === '' ? null : node.name,
      hasDefault: isDefaultOp(node.name),
      nested: frame.nested,
    };
    const parent = stack.pop();
    if (!parent) return { node, occurrence };
    parent.nested.push(occurrence);
    frame = parent;
    progress = continueFunc(sc, frame, node);
  }
}

function newFrame(start: number): Frame {
  return { node: { kind: 'func', param: '', name: '', args: [] }, start, step: 'default', nested: [] };
}

/** parseFunc: right after `${`. */
function beginFunc(sc: Scanner, frame: Frame): Progress {
  const { node } = frame;
  sc.escapeChars = ESCAPE_ALL;
  if (sc.peek() === HASH) {
    // parseLenFunc: ${#NAME}
    if (sc.scanWith(acceptOneHash, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
    node.name = sc.text();
    if (sc.scanWith(acceptIdent, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
    node.param = sc.text();
    return closeBrace(sc);
  }
  if (sc.scanWith(acceptIdent, SCAN_IDENT) !== T_IDENT) return fail(ERR_PARSE_VARIABLE_NAME);
  node.param = sc.text();
  switch (sc.peek()) {
    case COLON:
      return defaultOrSubstr(sc, frame);
    case EQUAL:
      return defaultFunc(sc, frame);
    case COMMA:
    case CARET:
      return operatorThenClose(sc, frame, acceptCasingFunc);
    case SLASH:
      return replaceFunc(sc, frame);
    case HASH:
      return removeFunc(sc, frame, acceptHashFunc);
    case PERCENT:
      return removeFunc(sc, frame, acceptPercentFunc);
  }
  return sc.scanWith(acceptIdent, SCAN_RBRACK) === T_RBRACK ? DONE : fail(ERR_MISSING_CLOSING_BRACE);
}

/** Resumes the parse function of `frame` with the argument it asked for. */
function continueFunc(sc: Scanner, frame: Frame, arg: ArgNode): Progress {
  frame.node.args.push(arg);
  switch (frame.step) {
    case 'default':
      return defaultArgs(sc, frame);
    case 'substr-offset': {
      const token = sc.scanWith(acceptColon, SCAN_IDENT | SCAN_RBRACK);
      if (token === T_RBRACK) return DONE;
      if (token !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
      return param(frame, 'substr-length', acceptNotClosing, SCAN_IDENT);
    }
    case 'replace-pattern':
      return replaceDelimiter(sc, frame);
    case 'substr-length':
    case 'remove':
    case 'replace-with':
      return closeBrace(sc);
  }
}

/** parseDefaultOrSubstr: the name is followed by `:`. */
function defaultOrSubstr(sc: Scanner, frame: Frame): Progress {
  sc.read(); // the `:`
  const next = sc.peek();
  if (next >= 0x80) {
    // Go then calls unread(), which steps back by the width of the rune peeked last, not of
    // the `:`. For a multi-byte rune that lands inside the name, and the substring parse that
    // follows reads a non-`:` and fails. (This scan stops after the offending rune.)
    sc.read();
    return fail(ERR_BAD_SUBSTITUTION);
  }
  sc.unread(); // steps back over the `:`, or not at all at the end of the input
  if (next === EQUAL || next === MINUS || next === QUESTION || next === PLUS) return defaultFunc(sc, frame);
  // parseSubstrFunc: ${NAME:offset} or ${NAME:offset:length}
  if (sc.scanWith(acceptOneColon, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
  frame.node.name = sc.text();
  return param(frame, 'substr-offset', rejectColonClose, SCAN_IDENT);
}

/** parseDefaultFunc: ${NAME=word} ${NAME:=word} ${NAME:-word} ${NAME:?word} ${NAME:+word} */
function defaultFunc(sc: Scanner, frame: Frame): Progress {
  const accept = sc.peek() === EQUAL ? acceptOneEqual : acceptDefaultFunc;
  if (sc.scanWith(accept, SCAN_IDENT) !== T_IDENT) return fail(ERR_PARSE_DEFAULT_FUNCTION);
  frame.node.name = sc.text();
  return defaultArgs(sc, frame);
}

/** The default is any number of tokens and nested `${...}` up to the `}`; `$$` is no escape here. */
function defaultArgs(sc: Scanner, frame: Frame): Progress {
  if (sc.peek() === RBRACE) return closeBrace(sc);
  return param(frame, 'default', acceptNotClosing, SCAN_IDENT);
}

/** parseRemoveFunc: ${NAME#word} ${NAME##word} ${NAME%word} ${NAME%%word} */
function removeFunc(sc: Scanner, frame: Frame, accept: Accept): Progress {
  if (sc.scanWith(accept, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
  frame.node.name = sc.text();
  return param(frame, 'remove', acceptNotClosing, SCAN_IDENT);
}

/** parseReplaceFunc: ${NAME/pattern/string} and the `//`, `/#`, `/%` forms. */
function replaceFunc(sc: Scanner, frame: Frame): Progress {
  if (sc.scanWith(acceptReplaceFunc, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
  frame.node.name = sc.text();
  if (sc.peek() === SLASH) {
    // An empty pattern (`${NAME/#/prefix}`): accepted since fluxcd/pkg#947 was fixed.
    frame.node.args.push({ kind: 'text', value: '' });
    return replaceDelimiter(sc, frame);
  }
  return param(frame, 'replace-pattern', acceptNotSlash, SCAN_IDENT | SCAN_ESCAPE);
}

function replaceDelimiter(sc: Scanner, frame: Frame): Progress {
  if (sc.scanWith(acceptSlash, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
  if (sc.peek() === RBRACE) return closeBrace(sc); // blank replacement
  return param(frame, 'replace-with', acceptNotClosing, SCAN_IDENT | SCAN_ESCAPE);
}

/** parseCasingFunc: ${NAME^} ${NAME^^} ${NAME,} ${NAME,,} */
function operatorThenClose(sc: Scanner, frame: Frame, accept: Accept): Progress {
  if (sc.scanWith(accept, SCAN_IDENT) !== T_IDENT) return fail(ERR_BAD_SUBSTITUTION);
  frame.node.name = sc.text();
  return closeBrace(sc);
}

/** consumeRbrack */
function closeBrace(sc: Scanner): Progress {
  return sc.scanWith(acceptRune, SCAN_RBRACK) === T_RBRACK ? DONE : fail(ERR_BAD_SUBSTITUTION);
}

// ---------------------------------------------------------------------------------------------
// Evaluation (template.go)

/** Operators that supply their own value when the variable is unset: no strict-mode error. */
function isDefaultOp(name: string): boolean {
  return ['-', '+', '=', '?', ':-', ':+', ':=', ':?'].includes(name);
}

/**
 * Post-order, like Go: every argument is evaluated first (so `${SET:-${UNSET}}` still fails in
 * strict mode), then the variable is looked up. Returns UTF-8 bytes (see toBytes).
 */
function evaluate(root: FuncNode, lookup: (name: string) => string | undefined, strict: boolean): string | { error: string } {
  const stack: { node: FuncNode; next: number; args: string[] }[] = [{ node: root, next: 0, args: [] }];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top.next < top.node.args.length) {
      const arg = top.node.args[top.next++];
      if (arg.kind === 'text') top.args.push(toBytes(arg.value));
      else stack.push({ node: arg, next: 0, args: [] });
      continue;
    }
    stack.pop();
    const { node } = top;
    const value = lookup(node.param);
    if (value === undefined && strict && !isDefaultOp(node.name)) return { error: errVarNotSet(node.param) };
    const result = applyFunc(node.name, toBytes(value ?? ''), top.args);
    if (stack.length === 0) return result;
    stack[stack.length - 1].args.push(result);
  }
}

// ---------------------------------------------------------------------------------------------
// Operators (funcs.go). Go strings are byte strings: `${#X}` counts UTF-8 bytes and offsets are
// byte offsets. Values are therefore handled as "byte strings", one char (0-255) per byte.

function applyFunc(name: string, s: string, args: string[]): string {
  switch (name) {
    case ',':
      return mapFirstRune(s, false);
    case ',,':
      return mapRunes(s, false);
    case '^':
      return mapFirstRune(s, true);
    case '^^':
      return mapRunes(s, true);
    case '#':
      return args.length === 0 ? String(s.length) : trimShortest(s, args[0]); // ${#NAME} has no argument
    case '##':
      return args.length ? trimLongest(s, args[0]) : s;
    case '%':
      return args.length ? reverse(trimShortest(reverse(s), reverse(args[0]))) : s;
    case '%%':
      return args.length ? reverse(trimLongest(reverse(s), reverse(args[0]))) : s;
    case ':':
      return substring(s, args);
    case '/#':
      return args.length === 2 && s.startsWith(args[0]) ? goReplace(s, args[0], args[1], 1) : s;
    case '/%':
      return args.length === 2 && s.endsWith(args[0]) ? s.slice(0, s.length - args[0].length) + args[1] : s;
    case '/':
      return args.length === 0 ? s : goReplace(s, args[0], args[1] ?? '', 1);
    case '//':
      return args.length === 0 ? s : goReplace(s, args[0], args[1] ?? '', -1);
    default:
      // Plain `${NAME}`, every default operator, and unknown casing mixes such as `,^`: the value
      // if non-empty, else the arguments joined. So `${X:+alt}` is `alt` when X is unset.
      return s.length === 0 && args.length > 0 ? args.join('') : s;
  }
}

/** toSubstr: byte offsets; an offset or length Atoi rejects leaves the value whole. */
function substring(s: string, args: string[]): string {
  if (args.length === 0) return s;
  let pos = atoi(args[0]);
  if (pos === null) return s;
  if (pos < 0) pos = Math.max(0, s.length + pos);
  if (args.length === 1) return pos < s.length ? s.slice(pos) : '';
  const length = atoi(args[1]);
  if (length === null) return s;
  if (length < 0) {
    // Counts back from the end, like bash (fluxcd/pkg#1275; older releases panicked here).
    const end = s.length + length;
    return end < pos ? '' : s.slice(pos, end);
  }
  if (pos + length >= s.length) return pos < s.length ? s.slice(pos) : '';
  return s.slice(pos, pos + length);
}

/** strconv.Atoi: optional sign, decimal digits, within int64. */
function atoi(text: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(text)) return null;
  const n = BigInt(text);
  return n > 9223372036854775807n || n < -9223372036854775808n ? null : Number(n);
}

/** strings.Replace; an empty `old` matches before every rune and at the end. */
function goReplace(s: string, old: string, replacement: string, n: number): string {
  if (old === replacement) return s;
  if (old !== '') {
    if (n < 0) return s.split(old).join(replacement);
    const at = s.indexOf(old);
    return at < 0 ? s : s.slice(0, at) + replacement + s.slice(at + old.length);
  }
  let out = replacement;
  let done = 1;
  for (let i = 0; i < s.length;) {
    const size = decodeRune(s, i)[1];
    out += s.slice(i, i + size);
    i += size;
    if (n < 0 || done < n) {
      out += replacement;
      done++;
    }
  }
  return out;
}

/** Shortest prefix matching the glob, tried longest first; the empty prefix is never tried. */
function trimShortest(s: string, pattern: string): string {
  let shortest = '';
  for (let i = 0; i < s.length; i++) {
    const prefix = s.slice(0, s.length - i);
    const matched = globMatch(pattern, prefix);
    if (matched === null) return s;
    if (matched) shortest = prefix;
  }
  return s.slice(shortest.length);
}

function trimLongest(s: string, pattern: string): string {
  for (let i = 0; i < s.length; i++) {
    const prefix = s.slice(0, s.length - i);
    const matched = globMatch(pattern, prefix);
    if (matched === null) return s;
    if (matched) return s.slice(prefix.length);
  }
  return s;
}

/** Rune-wise reverse, as Go's []rune round trip (an invalid byte becomes U+FFFD). */
function reverse(s: string): string {
  const runes: number[] = [];
  for (let i = 0; i < s.length;) {
    const [r, size] = decodeRune(s, i);
    runes.push(r);
    i += size;
  }
  return runes.reverse().map(encodeRune).join('');
}

function mapRunes(s: string, upper: boolean): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    const [r, size] = decodeRune(s, i);
    out += encodeRune(mapCase(r, upper));
    i += size;
  }
  return out;
}

function mapFirstRune(s: string, upper: boolean): string {
  if (s === '') return s;
  const [r, size] = decodeRune(s, 0);
  return encodeRune(mapCase(r, upper)) + s.slice(size);
}

/**
 * Go maps case rune by rune (Unicode simple case mapping); JS applies the full mapping, which
 * differs where it would expand one character into several (`ß` → `SS`). Keep those as they
 * are, except the few whose simple mapping is another single rune.
 */
function mapCase(r: number, upper: boolean): number {
  if (r < 0x80) {
    if (upper) return r >= 0x61 && r <= 0x7a ? r - 32 : r;
    return r >= 0x41 && r <= 0x5a ? r + 32 : r;
  }
  if (!upper && r === 0x130) return 0x69; // İ → i
  if (upper && ((r >= 0x1f80 && r <= 0x1fa7 && (r & 0xf) < 8) || r === 0x1fb3 || r === 0x1fc3 || r === 0x1ff3)) {
    return r >= 0x1fb3 ? r + 9 : r + 8; // Greek with ypogegrammeni: ᾀ → ᾈ, ᾳ → ᾼ
  }
  if (r >= 0xd800 && r <= 0xdfff) return r;
  const one = String.fromCodePoint(r);
  const mapped = upper ? one.toUpperCase() : one.toLowerCase();
  const cp = mapped.codePointAt(0)!;
  return mapped.length === (cp > 0xffff ? 2 : 1) ? cp : r;
}

// ---------------------------------------------------------------------------------------------
// Glob (path/match.go): Go's path.Match as drone/envsubst vendored it, with `*` and `?` free to
// match `/` (so `${file##*/}` is a basename). Returns null for a malformed pattern
// (ErrBadPattern), which the trims answer by leaving the value alone. Byte strings throughout.

function globMatch(pattern: string, name: string): boolean | null {
  chunks: while (pattern.length > 0) {
    const [star, chunk, rest] = scanChunk(pattern);
    pattern = rest;
    if (star && chunk === '') return true;
    const here = matchChunk(chunk, name);
    // The last chunk must use up the name; otherwise a later start may still match.
    if (here.ok && (here.rest.length === 0 || pattern.length > 0)) {
      name = here.rest;
      continue;
    }
    if (here.bad) return null;
    if (star) {
      for (let i = 0; i < name.length; i++) {
        const later = matchChunk(chunk, name.slice(i + 1));
        if (later.ok) {
          if (pattern.length === 0 && later.rest.length > 0) continue;
          name = later.rest;
          continue chunks;
        }
        if (later.bad) return null;
      }
    }
    return false;
  }
  return name.length === 0;
}

/** Leading stars, then the chunk up to the next star outside a `[...]`. */
function scanChunk(pattern: string): [star: boolean, chunk: string, rest: string] {
  let star = false;
  while (pattern.startsWith('*')) {
    pattern = pattern.slice(1);
    star = true;
  }
  let inRange = false;
  let i = 0;
  scan: for (; i < pattern.length; i++) {
    switch (pattern[i]) {
      case '\\':
        if (i + 1 < pattern.length) i++;
        break;
      case '[':
        inRange = true;
        break;
      case ']':
        inRange = false;
        break;
      case '*':
        if (!inRange) break scan;
    }
  }
  return [star, pattern.slice(0, i), pattern.slice(i)];
}

/** Matches `chunk` (no stars) against the start of `s`. */
function matchChunk(chunk: string, s: string): { ok: boolean; rest: string; bad: boolean } {
  const no = { ok: false, rest: '', bad: false };
  const bad = { ok: false, rest: '', bad: true };
  let ci = 0;
  let si = 0;
  while (ci < chunk.length) {
    if (si >= s.length) return no;
    const head = chunk[ci];
    if (head === '[') {
      const [r, size] = decodeRune(s, si);
      si += size;
      ci++;
      const negated = chunk[ci] === '^';
      if (negated) ci++;
      let matched = false;
      for (let ranges = 0; ; ranges++) {
        if (chunk[ci] === ']' && ranges > 0) {
          ci++;
          break;
        }
        const lo = getEsc(chunk, ci);
        if (!lo) return bad;
        ci = lo.next;
        let hi = lo.rune;
        if (chunk[ci] === '-') {
          const high = getEsc(chunk, ci + 1);
          if (!high) return bad;
          ci = high.next;
          hi = high.rune;
        }
        if (lo.rune <= r && r <= hi) matched = true;
      }
      if (matched === negated) return no;
    } else if (head === '?') {
      si += decodeRune(s, si)[1];
      ci++;
    } else {
      if (head === '\\') {
        ci++;
        if (ci >= chunk.length) return bad;
      }
      if (chunk[ci] !== s[si]) return no;
      ci++;
      si++;
    }
  }
  return { ok: true, rest: s.slice(si), bad: false };
}

/** One possibly escaped rune of a character class; null when malformed. */
function getEsc(chunk: string, at: number): { rune: number; next: number } | null {
  if (at >= chunk.length || chunk[at] === '-' || chunk[at] === ']') return null;
  if (chunk[at] === '\\') {
    at++;
    if (at >= chunk.length) return null;
  }
  const [rune, size] = decodeRune(chunk, at);
  if ((rune === RUNE_ERROR && size === 1) || at + size >= chunk.length) return null;
  return { rune, next: at + size };
}

// ---------------------------------------------------------------------------------------------
// UTF-8 byte strings

const RUNE_ERROR = 0xfffd;

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** UTF-8 encodes `s` into a byte string (lone surrogates become U+FFFD, as Go would hold them). */
function toBytes(s: string): string {
  if (isAscii(s)) return s;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += encodeRune(cp >= 0xd800 && cp <= 0xdfff ? RUNE_ERROR : cp);
  }
  return out;
}

/** Decodes a byte string as Go would print it; an invalid byte becomes U+FFFD. */
function fromBytes(b: string): string {
  if (isAscii(b)) return b;
  let out = '';
  for (let i = 0; i < b.length;) {
    const [r, size] = decodeRune(b, i);
    out += String.fromCodePoint(r);
    i += size;
  }
  return out;
}

function encodeRune(cp: number): string {
  if (cp < 0x80) return String.fromCharCode(cp);
  if (cp < 0x800) return String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  if (cp < 0x10000) return String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  return String.fromCharCode(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

/** utf8.DecodeRuneInString: [rune, size], or [U+FFFD, 1] for anything invalid. */
function decodeRune(b: string, i: number): [number, number] {
  const b0 = b.charCodeAt(i);
  if (b0 < 0x80) return [b0, 1];
  let size: number;
  let cp: number;
  let min: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) [size, cp, min] = [2, b0 & 0x1f, 0x80];
  else if (b0 >= 0xe0 && b0 <= 0xef) [size, cp, min] = [3, b0 & 0x0f, 0x800];
  else if (b0 >= 0xf0 && b0 <= 0xf4) [size, cp, min] = [4, b0 & 0x07, 0x10000];
  else return [RUNE_ERROR, 1];
  for (let k = 1; k < size; k++) {
    const bk = b.charCodeAt(i + k); // NaN past the end fails the test below
    if (!((bk & 0xc0) === 0x80)) return [RUNE_ERROR, 1];
    cp = (cp << 6) | (bk & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return [RUNE_ERROR, 1];
  return [cp, size];
}
