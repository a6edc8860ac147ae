// Reads files at git HEAD with the user's own git (never code from the
// workspace). Used only where the workspace is trusted and git exists; any
// failure means "cannot tell", which keeps job-immutable-template silent.
import { execFile } from 'node:child_process';
import type { HeadReader } from '../engine/repo-analysis';

function git(root: string, args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 10000, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** A HeadReader for `root`, or null when `root` is not inside a git checkout with a HEAD (or git is missing). */
export async function gitHeadReader(root: string): Promise<HeadReader | null> {
  const check = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (!check.ok) return null;
  return async (path) => {
    const shown = await git(root, ['show', `HEAD:./${path}`]);
    if (shown.ok) return shown.stdout;
    return /does not exist|exists on disk, but not in/.test(shown.stderr) ? null : undefined;
  };
}
