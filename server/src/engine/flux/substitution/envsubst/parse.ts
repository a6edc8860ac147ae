// The parser of Flux's substitution (fluxcd/pkg/envsubst parse/parse.go): one step function
// per Go parse function, run on an explicit stack, so ten thousand nested `${A:-${A:-...}}`

import { FuncNode, ExpressionOccurrence, isDefaultOp, ArgNode } from './node';
import {
  Accept,
  Scanner,
  ESCAPE_DOLLAR,
  acceptRune,
  SCAN_IDENT,
  SCAN_LBRACK,
  SCAN_ESCAPE,
  T_EOF,
  T_IDENT,
  T_LBRACK,
  T_RBRACK,
  ESCAPE_ALL,
  HASH,
  acceptOneHash,
  acceptIdent,
  COLON,
  EQUAL,
  COMMA,
  CARET,
  acceptCasingFunc,
  SLASH,
  acceptHashFunc,
  PERCENT,
  acceptPercentFunc,
  SCAN_RBRACK,
  acceptColon,
  acceptNotClosing,
  MINUS,
  QUESTION,
  PLUS,
  acceptOneColon,
  rejectColonClose,
  acceptOneEqual,
  acceptDefaultFunc,
  RBRACE,
  acceptReplaceFunc,
  acceptNotSlash,
  acceptSlash,
} from './scan';

// cost no JS stack (Go recurses once per nesting level).
const ERR_BAD_SUBSTITUTION = 'bad substitution';
const ERR_MISSING_CLOSING_BRACE = 'missing closing brace';
const ERR_PARSE_VARIABLE_NAME = 'unable to parse variable name';
const ERR_PARSE_FUNC_SUBSTITUTION = 'unable to parse substitution within function';
const ERR_PARSE_DEFAULT_FUNCTION = 'unable to parse default function';

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

export type TopItem =
  | { kind: 'text'; start: number; end: number; value: string; skipped: number[] }
  | { kind: 'expression'; node: FuncNode; occurrence: ExpressionOccurrence }
  | { kind: 'error'; start: number; end: number; error: string };

/** parseAny as a loop: text tokens and `${...}` expressions until the end (or a NUL). */
export function* parseTop(text: string, keepGoing: boolean): Generator<TopItem> {
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
