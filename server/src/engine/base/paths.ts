// Repository-relative paths: always `/`-separated, never leading `./`, never
// escaping the root. Pure string functions, so the browser build shares them.

/** Joins and normalizes; returns null when the result would leave the repository. */
export function joinRepoPath(base: string, relative: string): string | null {
  if (relative.startsWith('/') || /^[A-Za-z]:[\\/]/.test(relative)) return null;
  const parts: string[] = base === '' || base === '.' ? [] : base.split('/');
  for (const part of relative.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

export function dirnameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function isYamlPath(path: string): boolean {
  return /\.ya?ml$/i.test(path);
}

/** `to` written relative to the folder `fromDir` (both repository-relative). */
export function relativePath(fromDir: string, to: string): string {
  const from = fromDir === '' ? [] : fromDir.split('/');
  const target = to.split('/');
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  return [...Array<string>(from.length - common).fill('..'), ...target.slice(common)].join('/');
}
