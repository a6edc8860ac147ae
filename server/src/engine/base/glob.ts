// Glob matching for `jobs.include` / `jobs.exclude`, small enough to run in
// the browser build too: `**` (any folders), `*` and `?` (within one path
// segment), `{a,b}` alternatives and `[...]` classes. A pattern that names a
// folder (`dir/**`, or `dir/` ) matches everything below it.

const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  const cached = cache.get(glob);
  if (cached) return cached;
  let source = '';
  let braceDepth = 0;
  // Repeated `**/` mean nothing more and would only make the RegExp backtrack.
  const pattern = glob
    .replace(/^\.\//, '')
    .replace(/\/$/, '/**')
    .replace(/(?:\*\*\/)+/g, '**/');
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      const atSegmentEnd = i + 2 === pattern.length || pattern[i + 2] === '/';
      if (atSegmentStart && atSegmentEnd) {
        // `**/` matches zero or more folders; a final `**` matches the rest.
        source += i + 2 === pattern.length ? '.*' : '(?:[^/]*/)*';
        i += pattern[i + 2] === '/' ? 2 : 1;
        continue;
      }
      source += '[^/]*';
      i++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      braceDepth++;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      source += ')';
    } else if (char === ',' && braceDepth > 0) source += '|';
    else if (char === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) source += '\\[';
      else {
        const body = pattern
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else source += char.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  const regexp = new RegExp(`^${source}$`);
  cache.set(glob, regexp);
  return regexp;
}

export function matchesAny(path: string, globs: readonly string[]): boolean {
  return globs.some((glob) => {
    // The default globs (`**/*.yaml`, `**/*.yml`) meet every file of an audit: a suffix test says the same.
    const suffix = /^\*\*\/\*(\.[A-Za-z0-9]+)$/.exec(glob);
    return suffix ? path.endsWith(suffix[1]) : globMatcher(glob)(path);
  });
}

// ---- Matching without backtracking ------------------------------------------
// The RegExp above is only the glob's reference meaning (and its validity check): V8 backtracks,
// and `*a*a*a*a*a*a*a*a*a*a*a*a*b` against a long file name takes hours. Matching runs the same
// pattern as a Thompson NFA instead: every state at once, one pass over the path, time linear in
// path length times pattern length whatever the pattern.

type State = { kind: 'test'; test: (char: string) => boolean; next: number } | { kind: 'split'; outs: number[] } | { kind: 'match' };

type Piece =
  | { kind: 'test'; test: (char: string) => boolean }
  | { kind: 'star' } // [^/]*
  | { kind: 'globstar' } // (?:[^/]*/)*
  | { kind: 'rest' } // .*
  | { kind: 'alt'; options: Piece[][] };

const matchers = new Map<string, (path: string) => boolean>();

export function globMatcher(glob: string): (path: string) => boolean {
  const cached = matchers.get(glob);
  if (cached) return cached;
  globToRegExp(glob); // throws for a malformed glob, as matching always did
  const pattern = glob
    .replace(/^\.\//, '')
    .replace(/\/$/, '/**')
    .replace(/(?:\*\*\/)+/g, '**/');
  const states: State[] = [{ kind: 'match' }];
  const start = compile(parsePieces(pattern), 0, states);
  const matcher = (path: string) => runNfa(states, start, path);
  matchers.set(glob, matcher);
  return matcher;
}

/** The same reading of a glob as globToRegExp's, as pieces instead of RegExp source. */
function parsePieces(pattern: string): Piece[] {
  const stack: Piece[][][] = [[[]]]; // per open brace: its alternatives so far
  const current = () => {
    const alternatives = stack[stack.length - 1];
    return alternatives[alternatives.length - 1];
  };
  const notSlash = (char: string) => char !== '/';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      const atSegmentEnd = i + 2 === pattern.length || pattern[i + 2] === '/';
      if (atSegmentStart && atSegmentEnd) {
        current().push(i + 2 === pattern.length ? { kind: 'rest' } : { kind: 'globstar' });
        i += pattern[i + 2] === '/' ? 2 : 1;
        continue;
      }
      current().push({ kind: 'star' });
      i++;
    } else if (char === '*') current().push({ kind: 'star' });
    else if (char === '?') current().push({ kind: 'test', test: notSlash });
    else if (char === '{') stack.push([[]]);
    else if (char === '}' && stack.length > 1) {
      const options = stack.pop()!;
      current().push({ kind: 'alt', options });
    } else if (char === ',' && stack.length > 1) stack[stack.length - 1].push([]);
    else if (char === '[' && pattern.indexOf(']', i + 1) !== -1) {
      const close = pattern.indexOf(']', i + 1);
      const body = pattern
        .slice(i + 1, close)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      const klass = new RegExp(`^[${body}]$`);
      current().push({ kind: 'test', test: (c) => klass.test(c) });
      i = close;
    } else current().push({ kind: 'test', test: (c) => c === char });
  }
  if (stack.length > 1) throw new Error('unclosed {');
  return stack[0][0];
}

/** Compiles pieces (back to front) into states; returns the first state. */
function compile(pieces: Piece[], next: number, states: State[]): number {
  const add = (state: State) => states.push(state) - 1;
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i];
    if (piece.kind === 'test') next = add({ kind: 'test', test: piece.test, next });
    else if (piece.kind === 'alt') next = add({ kind: 'split', outs: piece.options.map((option) => compile(option, next, states)) });
    else {
      // A loop: `split` either enters the body (which comes back to it) or goes on.
      const loop = add({ kind: 'split', outs: [] });
      let body: number;
      if (piece.kind === 'star') body = add({ kind: 'test', test: (c) => c !== '/', next: loop });
      else if (piece.kind === 'rest') body = add({ kind: 'test', test: () => true, next: loop });
      else {
        const segment = add({ kind: 'split', outs: [] });
        const slash = add({ kind: 'test', test: (c) => c === '/', next: loop });
        const inSegment = add({ kind: 'test', test: (c) => c !== '/', next: segment });
        (states[segment] as { outs: number[] }).outs.push(inSegment, slash);
        body = segment;
      }
      (states[loop] as { outs: number[] }).outs.push(body, next);
      next = loop;
    }
  }
  return next;
}

function runNfa(states: State[], start: number, path: string): boolean {
  let current = closure(states, [start]);
  for (let i = 0; i < path.length; i++) {
    const char = path[i]; // UTF-16 units, as the RegExp reads them
    const next: number[] = [];
    for (const index of current) {
      const state = states[index];
      if (state.kind === 'test' && state.test(char)) next.push(state.next);
    }
    if (next.length === 0) return false;
    current = closure(states, next);
  }
  return current.some((index) => states[index].kind === 'match');
}

/** The states reachable without reading a character (each once). */
function closure(states: State[], from: number[]): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  const stack = [...from];
  while (stack.length > 0) {
    const index = stack.pop()!;
    if (seen.has(index)) continue;
    seen.add(index);
    const state = states[index];
    if (state.kind === 'split') stack.push(...state.outs);
    else out.push(index);
  }
  return out;
}

/** Why a glob cannot be used, or null when it can. */
export function globProblem(glob: string): string | null {
  if (glob.length > 1000) return 'the glob is longer than 1000 characters.';
  if (glob.startsWith('/') || glob.split('/').includes('..')) return `the glob ${JSON.stringify(glob)} points outside the repository.`;
  try {
    globToRegExp(glob);
    return null;
  } catch {
    return `the glob ${JSON.stringify(glob)} is malformed.`;
  }
}
