// The operators of Flux's substitution (fluxcd/pkg/envsubst funcs.go). Go strings are byte
// strings: `${#X}` counts UTF-8 bytes and offsets are byte offsets. Values are therefore

import { decodeRune, encodeRune } from './bytes';
import { globMatch } from './match';

// handled as "byte strings", one char (0-255) per byte (bytes.ts).
export function applyFunc(name: string, s: string, args: string[]): string {
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
