// What the kubelet does to a container's `command`, `args` and `env[].value`
// before the process starts: a port of Kubernetes'
// third_party/forked/golang/expansion (Expand, tryReadVariableName,
// MappingFuncFor). `$(NAME)` becomes the variable's value, or stays as written
// when there is none; `$$` becomes `$`, pairing left to right; any other `$`
// stays, with the character after it. An unclosed `$(` stays.
//
// The port keeps, for every character it writes, the offset in its input that
// the character came from (-1 for a variable's value), so the layers model can
// tell how many of a run of `$` reach the process.

const OPERATOR = '$';
const OPENER = '(';
const CLOSER = ')';

/** A variable's value, or undefined when the container has no variable of that name (the reference stays). */
export type KubeletLookup = (name: string) => string | undefined;

export interface TracedText {
  text: string;
  /** For each UTF-16 unit of `text`, where it came from in the input of the first layer (-1: produced). */
  origin: number[];
}

/** `Expand(input, MappingFuncFor(vars))`: the text the process receives. */
export function kubeletExpand(input: string, lookup: KubeletLookup): string {
  return expand({ text: input, origin: null }, lookup).text;
}

/** The same expansion, keeping where each output character came from. */
export function kubeletExpandTraced(input: TracedText, lookup: KubeletLookup): TracedText {
  const out = expand(input, lookup);
  return { text: out.text, origin: out.origin! };
}

/** One rune (code point) of `text` at `i`, as Go's utf8.DecodeRuneInString reads it: its length in UTF-16 units. */
function runeLength(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

function expand(input: { text: string; origin: number[] | null }, lookup: KubeletLookup): { text: string; origin: number[] | null } {
  const { text } = input;
  if (!text.includes(OPERATOR)) return input;
  const traced = input.origin !== null;
  const parts: string[] = [];
  const origin: number[] = [];
  // Copies text[from, to) as it is.
  const copy = (from: number, to: number) => {
    if (to <= from) return;
    parts.push(text.slice(from, to));
    if (traced) for (let i = from; i < to; i++) origin.push(input.origin![i]);
  };
  // Writes produced text (a variable's value): it comes from nowhere in the input.
  const produce = (value: string) => {
    parts.push(value);
    if (traced) for (let i = 0; i < value.length; i++) origin.push(-1);
  };
  let checkpoint = 0;
  for (let cursor = 0; cursor < text.length; cursor++) {
    // An operator at the very end is preserved (Go: `cursor+1 < len(input)`).
    if (text[cursor] !== OPERATOR || cursor + 1 >= text.length) continue;
    copy(checkpoint, cursor);
    const next = cursor + 1;
    let advance: number;
    if (text[next] === OPERATOR) {
      // Escaped operator: `$$` writes the second `$`.
      copy(next, next + 1);
      advance = 1;
    } else if (text[next] === OPENER) {
      const close = text.indexOf(CLOSER, next + 1);
      if (close === -1) {
        // Incomplete reference: `$(` is written and scanning goes on after the `(`.
        copy(cursor, next + 1);
        advance = 1;
      } else {
        const name = text.slice(next + 1, close);
        const value = lookup(name);
        // MappingFuncFor: an unknown name is written back as `$(name)`, character for character.
        if (value === undefined) copy(cursor, close + 1);
        else produce(value);
        advance = close - cursor;
      }
    } else {
      // Not an expression: the operator and the rune after it, as they are.
      advance = runeLength(text, next);
      copy(cursor, next + advance);
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  copy(checkpoint, text.length);
  return { text: parts.join(''), origin: traced ? origin : null };
}
