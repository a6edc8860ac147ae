// What the parser makes of a `${...}` (fluxcd/pkg/envsubst parse/node.go): a function node
// (the variable, the operator, its arguments), and the occurrence of every expression, escape,
// lone `$` and syntax error with its offsets, which the rules read.
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

interface TextNode {
  kind: 'text';
  value: string;
}

export interface FuncNode {
  kind: 'func';
  /** The variable name. */
  param: string;
  /** The operator, '' for a plain `${NAME}`. */
  name: string;
  args: ArgNode[];
}

export type ArgNode = TextNode | FuncNode;

/** Operators that supply their own value when the variable is unset: no strict-mode error. */
export function isDefaultOp(name: string): boolean {
  return ['-', '+', '=', '?', ':-', ':+', ':=', ':?'].includes(name);
}
