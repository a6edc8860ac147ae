// `audit --changed-since REV`: the files whose findings the change since REV
// can alter, from the engine's model of the repository at REV and now
// (pipeline/affected.ts). The audit itself is the normal, full one; the CLI
// keeps the findings of these files.
import type { RepoFs } from '../engine/base/repo-fs';
import { affectedFiles, revisionViewOf } from '../engine/pipeline/affected';
import { repositoryAt } from '../node/git-changes';

/**
 * The files (relative to `root`) the change can affect, null for every file. `current` lists
 * `files` as they are now; `changed` are the paths that differ from `revision` (git-changes.ts).
 */
export async function affectedSince(
  root: string,
  revision: string,
  current: RepoFs,
  files: readonly string[],
  changed: ReadonlySet<string>,
  contractPath: string | undefined,
): Promise<Set<string> | null> {
  if (changed.size === 0) return new Set();
  const sorted = [...files].sort();
  const after = await revisionViewOf(current, sorted, contractPath);
  const at = await repositoryAt(root, revision, current, sorted, changed);
  const before = await revisionViewOf(at.fs, at.files, contractPath);
  return affectedFiles({ files: changed, before: before.view, after: after.view, contract: { before: before.contract, after: after.contract } });
}
