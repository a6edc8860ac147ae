// What the kustomize model reads of a repository: whether a path is a file or
// a folder, and a file's text. Kept abstract so the engine can answer from
// its own index (and the corpus test from the disk); the model never lists a
// folder it is not told to build, and never parses a file it does not need.
import { joinRepoPath } from '../base/paths';
import type { ResourceDoc } from './resource-docs';

export interface KustomizeFiles {
  isFile(path: string): boolean;
  isDir(path: string): boolean;
  /** The file's text (BOM dropped), undefined when it cannot be read as text. */
  read(path: string): string | undefined;
  /**
   * The documents of a resource file with their own metadata, where the caller
   * has parsed the file already (the engine's index); otherwise the model scans
   * the text for them itself.
   */
  resourceDocs?(path: string): ResourceDoc[] | undefined;
}

/** The names kustomize accepts for a kustomization file, in the order it tries them. */
export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** An entry kustomize would fetch (a URL or a git reference): nothing in the repository to read. */
export function isRemote(written: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(written) || /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(written) || /^git@/.test(written) || /^git::/.test(written);
}

/** A path written in a kustomization file, resolved against its folder; null when it leaves the repository. */
export function resolveIn(dir: string, written: string): string | null {
  return joinRepoPath(dir, written);
}

/**
 * Why kustomize cannot read a path: kustomize-controller builds on a file system rooted at the
 * source artifact, so a path that leaves the repository is never read (the build fails); any
 * other missing path is kustomize's own "no such file or directory".
 */
export function unreadable(written: string, resolved: string | null, shown = written): string {
  if (resolved === null) return `${JSON.stringify(written)} points outside the repository, and Flux reads only its source artifact`;
  return `open ${shown}: no such file or directory`;
}

/** The kustomization files present in a folder. */
export function kustomizationFilesIn(files: KustomizeFiles, dir: string): string[] {
  return KUSTOMIZATION_FILE_NAMES.map((name) => (dir === '' ? name : `${dir}/${name}`)).filter((path) => files.isFile(path));
}
