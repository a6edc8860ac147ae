// The repository's folders and files, indexed for the build stage (build.ts
// reads it through RepoLayout): the files of each folder, its sub-folders, and
// the kustomization file that decides how a folder builds.
import { push } from '../../base/collections';
import { dirnameOf } from '../../base/paths';
import { KUSTOMIZATION_FILE_NAMES, type FileFacts, type KustomizeConfig } from '../facts/model';
import type { RepoLayout } from './build';

export class Layout implements RepoLayout {
  private readonly filesByDir = new Map<string, string[]>();
  private readonly dirs = new Set<string>(['']);
  private readonly childDirs = new Map<string, string[]>();
  private readonly configs = new Map<string, KustomizeConfig>();

  constructor(
    private readonly files: ReadonlySet<string>,
    facts: ReadonlyMap<string, FileFacts>,
  ) {
    for (const file of files) {
      const dir = dirnameOf(file);
      push(this.filesByDir, dir, file);
      for (let d = dir; d !== '' && !this.dirs.has(d); d = dirnameOf(d)) {
        this.dirs.add(d);
        push(this.childDirs, dirnameOf(d), d);
      }
    }
    for (const fileFacts of facts.values()) {
      const config = fileFacts.kustomize;
      if (!config) continue;
      const dir = dirnameOf(config.file);
      const existing = this.configs.get(dir);
      if (!existing || rank(config.file) < rank(existing.file)) this.configs.set(dir, config);
    }
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }
  hasDir(path: string): boolean {
    return this.dirs.has(path);
  }
  filesIn(dir: string): readonly string[] {
    return this.filesByDir.get(dir) ?? [];
  }
  subdirs(dir: string): readonly string[] {
    return this.childDirs.get(dir) ?? [];
  }
  configIn(dir: string): KustomizeConfig | undefined {
    return this.configs.get(dir);
  }

  /** The folders a path with `${VAR}`s can name, each variable standing for one folder name (`clusters/${CLUSTER}`). */
  dirsMatching(pathWithVariables: string): string[] {
    const path = pathWithVariables.replace(/^\.?\//, '').replace(/\/+$/, '');
    const literal = path.split(/\$\{[^}]*\}/).map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'));
    const pattern = new RegExp(`^${literal.join('[^/]+')}$`);
    return [...this.dirs].filter((dir) => pattern.test(dir)).sort();
  }

  /** The folders F for which `F/path` is a folder of the repository. */
  foldersHolding(path: string): string[] {
    const out: string[] = [];
    if (path === '') return [''];
    for (const dir of this.dirs) {
      if (dir === path) out.push('');
      else if (dir.endsWith('/' + path)) out.push(dir.slice(0, dir.length - path.length - 1));
    }
    return out;
  }
}

function rank(file: string): number {
  return KUSTOMIZATION_FILE_NAMES.indexOf(file.slice(file.lastIndexOf('/') + 1));
}
