// The lexer of Flux's substitution (fluxcd/pkg/envsubst parse/scan.go), quirks included: the
// tokens a `${...}` is made of, which runes each parse step accepts, and the escapes (`$$`
// everywhere, `\\/` and `\\\\` inside `${...}`). Positions stay offsets into the text as written.
const c = (s: string) => s.charCodeAt(0);
/** Go's scanner returns rune 0 at the end of input, so a NUL character also ends it. */
const EOF = 0;
export const DOLLAR = c('$'),
  LBRACE = c('{'),
  RBRACE = c('}'),
  COLON = c(':'),
  EQUAL = c('='),
  HASH = c('#');
export const PERCENT = c('%'),
  SLASH = c('/'),
  BACKSLASH = c('\\'),
  COMMA = c(','),
  CARET = c('^');
export const MINUS = c('-'),
  QUESTION = c('?'),
  PLUS = c('+');

// Tokens.
export const T_ILLEGAL = 0,
  T_EOF = 1,
  T_IDENT = 2,
  T_LBRACK = 3,
  T_RBRACK = 4;
type TokenKind = typeof T_ILLEGAL | typeof T_EOF | typeof T_IDENT | typeof T_LBRACK | typeof T_RBRACK;

// Mode bits: which tokens a scan may produce.
export const SCAN_IDENT = 1,
  SCAN_LBRACK = 2,
  SCAN_RBRACK = 4,
  SCAN_ESCAPE = 8;
// Escape bits: `$$` (everywhere escapes apply) and `\/`, `\\` (inside `${...}` only).
export const ESCAPE_DOLLAR = 1,
  ESCAPE_BACKSLASH = 2,
  ESCAPE_ALL = 3;

/** `i` is the rune's offset from the token start, counted after reading it (so 1 for the first). */
export type Accept = (r: number, i: number) => boolean;

export const acceptRune: Accept = () => true;
export const acceptIdent: Accept = (r) => isIdentRune(r);
export const acceptColon: Accept = (r) => r === COLON;
export const acceptOneHash: Accept = (r, i) => r === HASH && i === 1;
export const acceptNotClosing: Accept = (r) => r !== RBRACE;
export const acceptHashFunc: Accept = (r, i) => r === HASH && i < 3;
export const acceptPercentFunc: Accept = (r, i) => r === PERCENT && i < 3;
export const acceptDefaultFunc: Accept = (r, i) => (i === 1 && r === COLON) || (i === 2 && (r === EQUAL || r === MINUS || r === QUESTION || r === PLUS));
export const acceptReplaceFunc: Accept = (r, i) => (i === 1 && r === SLASH) || (i === 2 && (r === SLASH || r === HASH || r === PERCENT));
export const acceptOneEqual: Accept = (r, i) => i === 1 && r === EQUAL;
export const acceptOneColon: Accept = (r, i) => i === 1 && r === COLON;
export const rejectColonClose: Accept = (r) => r !== COLON && r !== RBRACE;
export const acceptSlash: Accept = (r) => r === SLASH;
export const acceptNotSlash: Accept = (r) => r !== SLASH;
export const acceptCasingFunc: Accept = (r, i) => (r === COMMA || r === CARET) && i < 3;

const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;

/** Go's unicode.IsLetter || unicode.IsDigit || '_'. */
function isIdentRune(r: number): boolean {
  if (r < 0x80) return (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f;
  return LETTER_OR_DIGIT.test(String.fromCodePoint(r));
}

export class Scanner {
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
