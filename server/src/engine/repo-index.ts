// The small, whole-repository facts a single file's analysis depends on:
// which files kustomize uses as patches, and where Helm charts are. Built
// from a text prefilter, so most files are never parsed for it.
import type { FileRole } from './analyze';
import { basenameOf, dirnameOf, joinRepoPath } from './paths';
import { asMap, asSeq, findPair, isScalar, parseYamlFile } from './yaml-docs';

export const KUSTOMIZATION_FILE_NAMES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
const PATCH_KEYS = ['patches', 'patchesStrategicMerge', 'patchesJson6902'];

export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.has(basenameOf(path));
}

/** The files a kustomization.yaml lists as patches, repository-relative. */
export function patchFilesOf(path: string, text: string): string[] {
  const dir = dirnameOf(path);
  const files: string[] = [];
  for (const parsed of parseYamlFile(text)) {
    const { doc } = parsed;
    const root = asMap(doc, doc.contents);
    for (const key of PATCH_KEYS) {
      for (const item of asSeq(doc, findPair(root, key)?.value)?.items ?? []) {
        const ref = isScalar(item) ? item.value : findPair(asMap(doc, item), 'path')?.value;
        const written = isScalar(ref) ? ref.value : ref;
        if (typeof written !== 'string') continue;
        const resolved = joinRepoPath(dir, written);
        if (resolved !== null) files.push(resolved);
      }
    }
  }
  return files;
}

export class RepoIndex {
  private readonly patchesByKustomization = new Map<string, string[]>();
  private readonly chartDirs = new Set<string>();
  private patchFiles: Set<string> | null = null;

  /** Records (or forgets, with `text` undefined) what one file contributes. */
  update(path: string, text: string | undefined): void {
    if (basenameOf(path) === 'Chart.yaml') {
      if (text === undefined) this.chartDirs.delete(dirnameOf(path));
      else this.chartDirs.add(dirnameOf(path));
    }
    if (isKustomizationFile(path)) {
      this.patchFiles = null;
      if (text === undefined) this.patchesByKustomization.delete(path);
      else this.patchesByKustomization.set(path, patchFilesOf(path, text));
    }
  }

  /** Whether a file's content can change this index (so a change to it must re-check others). */
  static isIndexed(path: string): boolean {
    return basenameOf(path) === 'Chart.yaml' || isKustomizationFile(path);
  }

  roleOf(path: string): FileRole {
    if (this.isChartTemplate(path)) return 'chart-template';
    this.patchFiles ??= new Set([...this.patchesByKustomization.values()].flat());
    return this.patchFiles.has(path) ? 'patch' : 'resource';
  }

  private isChartTemplate(path: string): boolean {
    const parts = path.split('/');
    for (let i = parts.length - 2; i >= 0; i--) {
      if (parts[i] === 'templates' && this.chartDirs.has(parts.slice(0, i).join('/'))) return true;
    }
    return false;
  }
}
