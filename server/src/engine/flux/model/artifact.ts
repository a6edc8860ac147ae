// The source stage: which files of the repository a Flux source's artifact
// holds. A GitRepository that is this repository holds it all but what Flux's
// default exclusions, the `.sourceignore` files and its `spec.ignore` leave
// out (source-controller reads them in that order; the last match wins). A
// source the contract maps to a folder (`flux.sources`: an OCI artifact that
// CI pushes from it) holds that folder, with the defaults and the
// `.sourceignore` files inside it.
import { dirnameOf } from '../../base/paths';
import { DEFAULT_IGNORE, excludedBy, VCS_IGNORE, IgnorePattern, matchUnder, parsePattern, readPatterns } from './gitignore';

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
  const inside = (path: string) => root === '' || path.startsWith(root + '/');
  // Shallow folders first, as source-controller walks the tree (order decides between conflicting files).
  const files = [...ignoreFiles.keys()].filter(inside).sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const own: IgnorePattern[] = [];
  for (const file of files) {
    const dir = dirnameOf(file);
    own.push(...readPatterns(ignoreFiles.get(file)!, dir === '' ? [] : dir.split('/'), file));
  }
  if (specIgnore !== null) own.push(...readPatterns(specIgnore, domain, specIgnoreOrigin));
  return { key, label, root, patterns: [...defaultPatterns(domain, own.length > 0), ...own] };
}

/** Flux's own exclusions: VCS files always, the rest only for a source that gives no pattern of its own (storage.SourceIgnoreFilter). */
function defaultPatterns(domain: string[], ownPatterns: boolean): IgnorePattern[] {
  const vcs = VCS_IGNORE.map((line) => parsePattern(line, domain, "Flux's default exclusions"));
  if (ownPatterns) return vcs;
  return [...vcs, ...DEFAULT_IGNORE.map((line) => parsePattern(line, domain, "Flux's default exclusions"))];
}

/** Where an artifact-relative path lives in the repository (null when it climbs out: Flux clamps it). */
export function inRepository(artifact: Artifact, path: string): string {
  return artifact.root === '' ? path : path === '' ? artifact.root : `${artifact.root}/${path}`;
}

/** The patterns that can decide for the files of one folder, or the verdict they all share. */
interface FolderPatterns {
  patterns: readonly IgnorePattern[];
  /** Set when one verdict holds for every file below: the excluding pattern, or null (kept). */
  uniform?: IgnorePattern | null;
}

/**
 * Memoized membership: whether the artifact holds a file, and if not, which
 * pattern left it out. Patterns are narrowed folder by folder (those of other
 * folders' ignore files drop out), and a folder whose files share one verdict
 * (`/*` before `!/deploy/crds` leaves out all of `apps/`) answers without
 * looking at its files: the cost follows the folders, not files × patterns.
 */
export class ArtifactIndex {
  private readonly cache = new Map<string, IgnorePattern | null | 'outside'>();
  private readonly folders = new Map<string, FolderPatterns>();
  constructor(readonly artifact: Artifact) {}

  exclusion(path: string): IgnorePattern | null | 'outside' {
    let result = this.cache.get(path);
    if (result === undefined) {
      const { root } = this.artifact;
      const { include } = this.artifact;
      const outside = (root !== '' && !path.startsWith(root + '/')) || (include && !include.some((folder) => path.startsWith(folder + '/')));
      if (outside) result = 'outside';
      else {
        const folder = this.folderPatterns(dirnameOf(path));
        result = folder.uniform !== undefined ? folder.uniform : excludedBy(folder.patterns, path);
      }
      this.cache.set(path, result);
    }
    return result;
  }

  holds(path: string): boolean {
    return this.exclusion(path) === null;
  }

  /** Whether no file below `dir` can be in the artifact (outside it, or left out by one pattern). */
  holdsNothingUnder(dir: string): boolean {
    const { root, include } = this.artifact;
    const under = (folder: string) => folder === '' || dir === folder || dir.startsWith(folder + '/') || folder.startsWith(dir === '' ? '' : dir + '/');
    if (!under(root) || (include && !include.some(under))) return true;
    const uniform = this.folderPatterns(dir).uniform;
    return uniform !== undefined && uniform !== null;
  }

  private folderPatterns(dir: string): FolderPatterns {
    let found = this.folders.get(dir);
    if (found) return found;
    const parent = dir === '' ? { patterns: this.artifact.patterns } : this.folderPatterns(dirnameOf(dir));
    if (parent.uniform !== undefined) found = parent;
    else {
      const segments = dir === '' ? [] : dir.split('/');
      let patterns: IgnorePattern[] = [];
      for (const pattern of parent.patterns) {
        const match = matchUnder(pattern, segments);
        if (match === 'all')
          patterns = [pattern]; // the last pattern that matches every file below decides before all earlier ones
        else if (match === 'some') patterns.push(pattern);
      }
      const last = patterns[patterns.length - 1];
      const decides = patterns.length === 0 || matchUnder(last, segments) === 'all';
      found = decides ? { patterns, uniform: last && !last.inclusion ? last : null } : { patterns };
    }
    this.folders.set(dir, found);
    return found;
  }
}
