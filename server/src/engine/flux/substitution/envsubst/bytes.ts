// UTF-8 byte strings: Go's strings are bytes, so the operators work on a JS string holding one
// char (0-255) per byte; these convert to and from it exactly as Go would.
export const RUNE_ERROR = 0xfffd;

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** UTF-8 encodes `s` into a byte string (lone surrogates become U+FFFD, as Go would hold them). */
export function toBytes(s: string): string {
  if (isAscii(s)) return s;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += encodeRune(cp >= 0xd800 && cp <= 0xdfff ? RUNE_ERROR : cp);
  }
  return out;
}

/** Decodes a byte string as Go would print it; an invalid byte becomes U+FFFD. */
export function fromBytes(b: string): string {
  if (isAscii(b)) return b;
  let out = '';
  for (let i = 0; i < b.length;) {
    const [r, size] = decodeRune(b, i);
    out += String.fromCodePoint(r);
    i += size;
  }
  return out;
}

export function encodeRune(cp: number): string {
  if (cp < 0x80) return String.fromCharCode(cp);
  if (cp < 0x800) return String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  if (cp < 0x10000) return String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  return String.fromCharCode(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

/** utf8.DecodeRuneInString: [rune, size], or [U+FFFD, 1] for anything invalid. */
export function decodeRune(b: string, i: number): [number, number] {
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
