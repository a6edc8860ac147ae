// What the kustomizations of a repository list as resources. Where nothing
// else decides what is applied (no Flux, or no Flux root), kustomize and Argo
// CD, which runs it, apply a folder that holds a kustomization file only
// through that file: a manifest beside it that neither it nor any other
// kustomization lists under `resources` (or the deprecated `bases`) is never
// applied (a deprecated Job kept in git). The paths resolve as a build
// resolves them (build.ts: resolveIn over the loaded Kustomization).
import { basenameOf, dirnameOf } from '../base/paths';
import { isRemote, KUSTOMIZATION_FILE_NAMES, kustomizationFilesIn, resolveIn, type KustomizeFiles } from './files';
import { loadKustomization } from './kustomization';
import { BuildError } from './types';

/** The files one folder's kustomization lists as resources; null where kustomize cannot load it (its build fails, and is reported as such). */
export function listedResources(files: KustomizeFiles, dir: string): string[] | null {
  try {
    const k = loadKustomization(files, dir, { file: dir, span: null });
    return k.resources.flatMap((entry) => {
      const path = isRemote(entry.value) ? null : resolveIn(k.dir, entry.value);
      return path === null ? [] : [path];
    });
  } catch (error) {
    if (error instanceof BuildError) return null;
    throw error;
  }
}

export interface ResourceListing {
  /**
   * The kustomization file of `path`'s folder when no kustomization of the repository lists `path`
   * as a resource; null when one does, or when the folder holds no kustomization kustomize can
   * load (its files are plain manifests, or its broken kustomization is the finding).
   */
  unlistedBy(path: string): string | null;
}

/** The listing over every kustomization file of a repository (each folder's loaded once). */
export function resourceListing(files: KustomizeFiles, kustomizationFiles: Iterable<string>): ResourceListing {
  const listed = new Set<string>();
  const deciding = new Map<string, string>();
  for (const dir of new Set([...kustomizationFiles].map(dirnameOf))) {
    const resources = listedResources(files, dir);
    if (resources === null) continue;
    deciding.set(dir, kustomizationFilesIn(files, dir)[0]);
    for (const path of resources) listed.add(path);
  }
  return {
    unlistedBy(path) {
      // The kustomization file itself is the folder's build, not one of its resources.
      if ((KUSTOMIZATION_FILE_NAMES as readonly string[]).includes(basenameOf(path)) || listed.has(path)) return null;
      return deciding.get(dirnameOf(path)) ?? null;
    },
  };
}
