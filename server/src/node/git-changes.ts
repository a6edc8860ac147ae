// What changed since a git revision, for `audit --changed-since REV`: the
// paths that differ between REV and the working tree (staged or not,
// untracked files git does not ignore, deletions, both sides of a rename), and
// the repository as it was at REV, for the model of that revision. The user's
// own git does the work; nothing here runs code from the repository.
import type { ReadResult, RepoFs } from '../engine/base/repo-fs';
import { commitOf, git, nulSeparated, revisionReader } from './git-head';

/** `unstaged` (--staged only): the paths where the working tree is not the index, read from the index instead. */
export type ChangesSince = { ok: true; revision: string; files: Set<string>; unstaged?: Set<string> } | { ok: false; message: string };

/** git's answer to commitOf(root, rev), asked once by the caller where two questions need it (the changes and the blob ids). */
export type Resolving = ReturnType<typeof commitOf>;

/** The revision `rev` reads, in the git revision syntax, for the index (stage 0) rather than a commit. */
export const INDEX = '';

/** git's message, one line: what a user needs to see of it. */
function gitMessage(stderr: string): string {
  return stderr.trim().split('\n').join(' ') || 'git failed without a message';
}

/** The commit `rev` names (`flag`: the option asking, for messages), where `root` is in a git work tree. */
async function resolvedRevision(root: string, rev: string, flag: string, resolving: Resolving): Promise<{ ok: true; revision: string } | { ok: false; message: string }> {
  // Resolved first (commitOf), with the work tree question: outside one, its answer is not used.
  const [inside, resolved] = await Promise.all([git(root, ['rev-parse', '--is-inside-work-tree']), resolving]);
  if (!inside.ok || inside.stdout.trim() !== 'true') return { ok: false, message: `${flag} needs a git repository, and ${root} is not inside one (git: ${gitMessage(inside.stderr)})` };
  if (!resolved.ok) return { ok: false, message: `${flag}: git cannot resolve the revision ${JSON.stringify(rev)} (git: ${gitMessage(resolved.stderr)})` };
  return { ok: true, revision: resolved.stdout.trim() };
}

/** The untracked files git does not ignore (walking the working tree: the slowest question, so asked first). */
function untrackedFiles(root: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return git(root, ['ls-files', '--others', '--exclude-standard', '-z', '--', '.']);
}

/** The files below `root` (paths relative to it) that differ between `rev` and the working tree. */
export async function changesSince(root: string, rev: string, resolving: Resolving = commitOf(root, rev)): Promise<ChangesSince> {
  const untrackedAsked = untrackedFiles(root);
  const resolved = await resolvedRevision(root, rev, '--changed-since', resolving);
  if (!resolved.ok) return resolved;
  const { revision } = resolved;
  // --no-renames: a rename is its two paths, and both matter (the old one's builders lost a file).
  const [diff, untracked] = await Promise.all([git(root, ['diff', '--name-only', '-z', '--no-renames', '--relative', revision, '--', '.']), untrackedAsked]);
  if (!diff.ok) return { ok: false, message: `--changed-since: git diff ${rev} failed (git: ${gitMessage(diff.stderr)})` };
  if (!untracked.ok) return { ok: false, message: `--changed-since: git ls-files failed (git: ${gitMessage(untracked.stderr)})` };
  return { ok: true, revision, files: new Set([...nulSeparated(diff.stdout), ...nulSeparated(untracked.stdout)]) };
}

/**
 * For `audit --staged` (a pre-commit hook): the paths staged against HEAD, and the paths where the
 * working tree differs from the index (unstaged edits and deletions, untracked files), which the
 * audit reads as the index has them, since the commit will hold that.
 */
export async function stagedChanges(root: string, resolving: Resolving = commitOf(root, 'HEAD')): Promise<ChangesSince> {
  const untrackedAsked = untrackedFiles(root);
  const resolved = await resolvedRevision(root, 'HEAD', '--staged', resolving);
  if (!resolved.ok) return resolved;
  const { revision } = resolved;
  const [staged, unstaged, untracked] = await Promise.all([
    git(root, ['diff', '--cached', '--name-only', '-z', '--no-renames', '--relative', revision, '--', '.']),
    git(root, ['diff', '--name-only', '-z', '--no-renames', '--relative', '--', '.']),
    untrackedAsked,
  ]);
  if (!staged.ok) return { ok: false, message: `--staged: git diff --cached failed (git: ${gitMessage(staged.stderr)})` };
  if (!unstaged.ok) return { ok: false, message: `--staged: git diff failed (git: ${gitMessage(unstaged.stderr)})` };
  if (!untracked.ok) return { ok: false, message: `--staged: git ls-files failed (git: ${gitMessage(untracked.stderr)})` };
  return { ok: true, revision, files: new Set(nulSeparated(staged.stdout)), unstaged: new Set([...nulSeparated(unstaged.stdout), ...nulSeparated(untracked.stdout)]) };
}

/**
 * The repository as it was at `revision` (INDEX: as the index holds it): the working tree (`current`, its files listed in
 * `files`) with each changed path read from git instead. Files git does not track and that did
 * not change (ignored ones) are the same on both sides, so they cannot look like a change.
 */
export async function repositoryAt(root: string, revision: string, current: RepoFs, files: readonly string[], changed: ReadonlySet<string>): Promise<{ fs: RepoFs; files: string[] }> {
  const read = revisionReader(root, revision);
  const old = new Map<string, ReadResult>();
  for (const path of changed) {
    const text = await read(path);
    if (typeof text === 'string') old.set(path, { kind: 'text', text });
    else if (text === undefined) old.set(path, { kind: 'skipped', reason: `git cannot read it at ${revision}`, notYaml: false });
  }
  const listed = [...files.filter((path) => !changed.has(path)), ...old.keys()].sort();
  const fs: RepoFs = {
    listFiles: () => Promise.resolve([...listed]),
    read: (path) => (changed.has(path) ? Promise.resolve(old.get(path) ?? { kind: 'missing' }) : current.read(path)),
  };
  return { fs, files: listed };
}
