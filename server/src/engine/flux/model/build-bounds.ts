// Where a build can reach, without building it. A build of a folder adds files
// below that folder and the paths that kustomization files on the way
// reference; so everything it adds lies below the folder or below a path that a
// kustomization file below it references out of it, and so on. Root choice
// uses this bound to build only the Kustomizations that may apply themselves
// (self-applying.ts): on a repository of thousands of Kustomizations, building
// each was most of the Flux model's time, and almost none is on a cycle.
import { push } from '../../base/collections';
import { dirnameOf } from '../../base/paths';
import type { KustomizeConfig } from '../facts/model';

/** True when `path` is `dir` or lies below it ('' holds everything). */
export function isBelow(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir + '/');
}

export class BuildBounds {
  /** Per folder, the paths that kustomization files below it reference outside of it. */
  private readonly exits = new Map<string, string[]>();

  constructor(configs: Iterable<KustomizeConfig>) {
    for (const config of configs) {
      const dir = dirnameOf(config.file);
      // A reference that leaves the repository (null) is not built: the build reports it.
      for (const ref of [...config.resources, ...config.components]) {
        if (ref.path === null) continue;
        const target = ref.path;
        for (let folder = dir; !isBelow(target, folder); folder = dirnameOf(folder)) push(this.exits, folder, target);
      }
    }
  }

  /**
   * Paths below which lies every file that a build starting from `starts` (folders) adds. Each
   * kustomization file the build reads lies below one of them (induction over the build), and
   * the references out of each path are followed. Kustomization files the artifact leaves out are
   * followed too, which only makes the bound wider.
   */
  reach(starts: readonly string[]): string[] {
    const roots: string[] = [];
    const queue = [...starts];
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      if (roots.some((root) => isBelow(path, root))) continue;
      roots.push(path);
      queue.push(...(this.exits.get(path) ?? []));
    }
    return roots;
  }
}
