// Glob (path/match.go): Go's path.Match as drone/envsubst vendored it, with `*` and `?` free to
// match `/` (so `${file##*/}` is a basename). Returns null for a malformed pattern

import { decodeRune, RUNE_ERROR } from './bytes';

// (ErrBadPattern), which the trims answer by leaving the value alone. Byte strings throughout.
export function globMatch(pattern: string, name: string): boolean | null {
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
