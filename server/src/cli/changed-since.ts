// `audit --changed-since REV` and `audit --staged`: the audit of the files the change since REV
// can affect (pipeline/audit-changed.ts), with the repository at REV read from git.
import type { RepoFs } from '../engine/base/repo-fs';
import type { AuditResult } from '../engine/pipeline/audit';
import { auditChanged, type ChangedOptions } from '../engine/pipeline/audit-changed';
import { repositoryAt } from '../node/git-changes';

/**
 * The findings of the files (relative to `root`) the change can affect, null where it reaches
 * every file (the caller runs the whole audit). `current` lists `files` as they are now;
 * `changed` are the paths that differ from `revision` (git-changes.ts).
 */
export async function auditSince(root: string, revision: string, current: RepoFs, files: readonly string[], changed: ReadonlySet<string>, options: ChangedOptions): Promise<AuditResult | null> {
  const sorted = [...files].sort();
  return auditChanged({ fs: current, files: sorted }, changed, (now) => repositoryAt(root, revision, now, sorted, changed), options);
}
