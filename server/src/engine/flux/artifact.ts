// The source stage: which files of the repository a Flux source's artifact
// holds. A GitRepository that is this repository holds it all but what Flux's
// default exclusions, the `.sourceignore` files and its `spec.ignore` leave
// out (source-controller reads them in that order; the last match wins). A
// source the contract maps to a folder (`flux.sources`: an OCI artifact that
// CI pushes from it) holds that folder, with the defaults and the
// `.sourceignore` files inside it.
import { dirnameOf } from '../paths';
import { DEFAULT_IGNORE, excludedBy, IgnorePattern, parsePattern, readPatterns } from './gitignore';

export interface Artifact {
  /** Identity, for caches: one artifact per source object (or contract mapping). */
  key: string;
  /** The repository folder the source's root is ('' for the repository itself). */
  root: string;
  patterns: readonly IgnorePattern[];
  /** Says what the source is, for messages: `GitRepository flux-system`. */
  label: string;
  /** Only these repository folders (an ExternalArtifact made of copied folders); null: all of `root`. */
  include?: readonly string[] | null;
}

/** `.sourceignore` files by path, as the index holds them. */
export type IgnoreFiles = ReadonlyMap<string, string>;

export function makeArtifact(key: string, label: string, root: string, ignoreFiles: IgnoreFiles, specIgnore: string | null, specIgnoreOrigin: string): Artifact {
  const domain = root === '' ? [] : root.split('/');
  const patterns: IgnorePattern[] = DEFAULT_IGNORE.map((line) => parsePattern(line, domain, "Flux's default exclusions"));
  const inside = (path: string) => root === '' || path.startsWith(root + '/');
  // Shallow folders first, as source-controller walks the tree (order decides between conflicting files).
  const files = [...ignoreFiles.keys()].filter(inside).sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  for (const file of files) {
    const dir = dirnameOf(file);
    patterns.push(...readPatterns(ignoreFiles.get(file)!, dir === '' ? [] : dir.split('/'), file));
  }
  if (specIgnore !== null) patterns.push(...readPatterns(specIgnore, domain, specIgnoreOrigin));
  return { key, label, root, patterns };
}

/** Where an artifact-relative path lives in the repository (null when it climbs out: Flux clamps it). */
export function inRepository(artifact: Artifact, path: string): string {
  return artifact.root === '' ? path : path === '' ? artifact.root : `${artifact.root}/${path}`;
}

/** Memoized membership: whether the artifact holds a file, and if not, which pattern left it out. */
export class ArtifactIndex {
  private readonly cache = new Map<string, IgnorePattern | null | 'outside'>();
  constructor(readonly artifact: Artifact) {}

  exclusion(path: string): IgnorePattern | null | 'outside' {
    let result = this.cache.get(path);
    if (result === undefined) {
      const { root } = this.artifact;
      const { include } = this.artifact;
      const outside = (root !== '' && !path.startsWith(root + '/')) || (include && !include.some((folder) => path.startsWith(folder + '/')));
      result = outside ? 'outside' : excludedBy(this.artifact.patterns, path);
      this.cache.set(path, result);
    }
    return result;
  }

  holds(path: string): boolean {
    return this.exclusion(path) === null;
  }
}
