// Ignore patterns as Flux's source-controller reads them (`spec.ignore`,
// `.sourceignore`, its default exclusions): gitignore syntax with the
// semantics of the go-git matcher Flux uses. A pattern is scoped to the folder
// it was read in (its domain); the last pattern that matches a path decides;
// a pattern that matches a leading part of a path matches the path (so `/*`
// followed by `!/k8s/prod` keeps exactly `k8s/prod/**`, as Flux's archiver
// checks every file on its own and never prunes a folder).

export interface IgnorePattern {
  /** Path segments of the folder the pattern was read in. */
  domain: string[];
  /** `!pattern`: re-includes what an earlier pattern excluded. */
  inclusion: boolean;
  /** `name/`: only a folder matches (a file inside it still does). */
  dirOnly: boolean;
  /** Contains a `/`: matched from the domain, segment by segment. */
  anchored: boolean;
  segments: string[];
  /** Where the pattern is written, for messages: the file and its line. */
  origin: string;
}

/** What Flux always leaves out of a GitRepository's artifact (fluxcd/pkg sourceignore VCSPatterns). */
export const VCS_IGNORE = ['.git/', '.gitignore', '.gitmodules', '.gitattributes'];

/**
 * Flux's default exclusions beyond VCS (sourceignore DefaultPatterns: extensions, CI, extras).
 * source-controller applies them only while no `.sourceignore` file and no `spec.ignore` gives a
 * pattern: one pattern anywhere and only VCS_IGNORE stays (storage.SourceIgnoreFilter).
 */
export const DEFAULT_IGNORE = [
  '*.jpg',
  '*.jpeg',
  '*.gif',
  '*.png',
  '*.wmv',
  '*.flv',
  '*.tar.gz',
  '*.zip',
  '.github/',
  '.circleci/',
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.drone.yml',
  'cloudbuild.yaml',
  'codeship-services.yml',
  'codeship-steps.yml',
  '**/.goreleaser.yml',
  '**/.sops.yaml',
  '**/.flux.yaml',
];

export function parsePattern(line: string, domain: string[], origin: string): IgnorePattern {
  let text = line;
  const inclusion = text.startsWith('!');
  if (inclusion) text = text.slice(1);
  if (!text.endsWith('\\ ')) text = text.replace(/ +$/, '');
  const dirOnly = text.endsWith('/');
  if (dirOnly) text = text.slice(0, -1);
  return { domain, inclusion, dirOnly, anchored: text.includes('/'), segments: text.split('/'), origin };
}

/** The patterns of an ignore file's text (comments and blank lines skipped). */
export function readPatterns(text: string, domain: string[], file: string): IgnorePattern[] {
  const patterns: IgnorePattern[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.startsWith('#') && line.trim() !== '') patterns.push(parsePattern(line, domain, `${file}:${index + 1}`));
  });
  return patterns;
}

/** The pattern that excludes `path` (a file), or null when the path stays in the artifact. */
export function excludedBy(patterns: readonly IgnorePattern[], path: string): IgnorePattern | null {
  const segments = path.split('/');
  for (let i = patterns.length - 1; i >= 0; i--) {
    if (matches(patterns[i], segments)) return patterns[i].inclusion ? null : patterns[i];
  }
  return null;
}

/**
 * What a pattern does to the files under a folder (`dir`: its segments):
 * matches none of them, matches every one (a leading part of their path
 * decides), or may match some. Exact for 'none' and 'all'; 'some' is the safe
 * answer where the folder alone cannot tell.
 */
export function matchUnder(pattern: IgnorePattern, dir: readonly string[]): 'none' | 'all' | 'some' {
  const { domain } = pattern;
  if (domain.length > dir.length) return dir.every((segment, i) => segment === domain[i]) ? 'some' : 'none';
  for (let i = 0; i < domain.length; i++) if (domain[i] !== dir[i]) return 'none';
  const rest = dir.slice(domain.length);
  // Every path below has a segment after the folder's: a name matching a folder segment is a folder.
  if (!pattern.anchored) return rest.some((segment) => segmentMatch(pattern.segments[0], segment)) ? 'all' : 'some';
  if (pattern.segments.some((segment) => segment.includes('**'))) return 'some';
  const segments = pattern.segments.filter((segment) => segment !== '');
  if (segments.length === 0) return 'none';
  const shared = Math.min(segments.length, rest.length);
  for (let i = 0; i < shared; i++) if (!segmentMatch(segments[i], rest[i])) return 'none';
  return segments.length <= rest.length ? 'all' : 'some';
}

function matches(pattern: IgnorePattern, path: string[]): boolean {
  const { domain } = pattern;
  if (path.length <= domain.length) return false;
  for (let i = 0; i < domain.length; i++) if (domain[i] !== path[i]) return false;
  return pattern.anchored ? anchoredMatch(pattern, path.slice(domain.length)) : nameMatch(pattern, path, domain.length);
}

/** A pattern without `/` matches any segment from `from` on (a folder's name matches everything in it). */
function nameMatch(pattern: IgnorePattern, path: string[], from: number): boolean {
  const matcher = segmentMatcher(pattern.segments[0]);
  for (let i = from; i < path.length; i++) {
    if (!matcher(path[i])) continue;
    if (pattern.dirOnly && i === path.length - 1) return false; // the file itself is not a folder
    return true;
  }
  return false;
}

/** A pattern with `/` matches segment by segment from the domain; `**` spans any number of them. */
function anchoredMatch(pattern: IgnorePattern, path: string[]): boolean {
  let rest = path;
  let matched = false;
  let traverse = false;
  for (let i = 0; i < pattern.segments.length; i++) {
    const segment = pattern.segments[i];
    if (segment === '') {
      traverse = false;
      continue;
    }
    if (segment === '**') {
      if (i === pattern.segments.length - 1) break;
      traverse = true;
      continue;
    }
    if (segment.includes('**')) return false;
    if (rest.length === 0) return false;
    if (traverse) {
      traverse = false;
      let found = false;
      while (rest.length > 0) {
        const head = rest[0];
        rest = rest.slice(1);
        if (segmentMatch(segment, head)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
      matched = true;
    } else {
      if (!segmentMatch(segment, rest[0])) return false;
      matched = true;
      rest = rest.slice(1);
    }
  }
  if (matched && pattern.dirOnly && rest.length === 0) return false; // a file is not the folder
  return matched;
}

const segmentMatchers = new Map<string, (name: string) => boolean>();

/** Go's filepath.Match for one segment: `*`, `?`, `[...]` (`^` negates), `\\` escapes; a bad pattern matches nothing. */
export function segmentMatch(pattern: string, name: string): boolean {
  return segmentMatcher(pattern)(name);
}

/** segmentMatch for one pattern, made once: most patterns are a name, or `*` and a literal end (`*.png`), which need no regular expression. */
function segmentMatcher(pattern: string): (name: string) => boolean {
  let matcher = segmentMatchers.get(pattern);
  if (matcher === undefined) {
    matcher = newSegmentMatcher(pattern);
    segmentMatchers.set(pattern, matcher);
  }
  return matcher;
}

function newSegmentMatcher(pattern: string): (name: string) => boolean {
  if (!/[*?[\\]/.test(pattern)) return (name) => name === pattern;
  // `*` spans any characters but `/`, which no segment holds.
  const end = /^\*+([^*?[\\]*)$/.exec(pattern)?.[1];
  if (end !== undefined) return (name) => name.endsWith(end);
  const regexp = segmentRegExp(pattern);
  return regexp === null ? () => false : (name) => regexp.test(name);
}

function segmentRegExp(pattern: string): RegExp | null {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*') {
      source += '[^/]*';
      while (pattern[i + 1] === '*') i++; // runs of * mean one: no backtracking blow-up
    } else if (char === '?') source += '[^/]';
    else if (char === '\\') {
      if (i + 1 >= pattern.length) return null;
      source += escapeRegExp(pattern[++i]);
    } else if (char === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) return null;
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith('^');
      if (negated) body = body.slice(1);
      source += `[${negated ? '^' : ''}${body.replace(/[[\]^]/g, '\\$&')}]`;
      i = close;
    } else source += escapeRegExp(char);
  }
  try {
    return new RegExp(`^${source}$`, 's');
  } catch {
    return null;
  }
}

function escapeRegExp(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
