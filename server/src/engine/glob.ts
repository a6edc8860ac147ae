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
  const pattern = glob.replace(/^\.\//, '').replace(/\/$/, '/**').replace(/(?:\*\*\/)+/g, '**/');
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
        const body = pattern.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
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
  return globs.some((glob) => globToRegExp(glob).test(path));
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
