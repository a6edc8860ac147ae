// Flux's post-build substitution: a port of github.com/fluxcd/pkg/envsubst (itself a fork of
// drone/envsubst), the code kustomize-controller runs over every resource it substitutes.
//
// The modules follow the Go package's files so the two can be read side by side:
//   scan.ts            parse/scan.go  (the lexer, including its quirks)
//   node.ts            parse/node.go  (what the parser makes, and the occurrences it reports)
//   parse.ts           parse/parse.go (one step function per Go parse function)
//   template.ts        template.go    (this file: strict mode, argument-first evaluation)
//   funcs.ts           funcs.go       (operators; Go strings are bytes, so values here are too)
//   match.ts           path/match.go  (path.Match with `*` and `?` allowed to match `/`)
//   bytes.ts           Go's UTF-8 byte strings
//   occurrences.ts     (ours) the scan the rules read
// The Go parser and evaluator recurse once per nesting level; here both run on explicit stacks,
// so ten thousand nested `${A:-${A:-...}}` cost no JS stack.
//
// `scanSubstitutions` drives the same scanner and parser and keeps the positions, so the linter
// and the evaluator cannot disagree about what Flux sees.

import { fromBytes, toBytes } from './bytes';
import { applyFunc } from './funcs';
import { FuncNode, isDefaultOp } from './node';
import { TopItem, parseTop } from './parse';

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

// Go formats this with %q; a name holds only letters, digits and `_`, all printable, so quoting
// it is just wrapping it in double quotes.
const errVarNotSet = (name: string) => `variable not set (strict mode): "${name}"`;

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
