// The CLI as its npm package (scripts/pack-cli.mjs), installed the way a CI
// installs it: `npm install --offline <tarball>` into an empty folder, with no
// other package. Used by the package, pre-commit and GitHub Action tests.
import assert from 'node:assert/strict';
import { spawnSync, SpawnSyncOptions } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './temp-repo';

export const ROOT = join(__dirname, '..', '..', '..');
export const EXAMPLE = join(ROOT, 'examples', 'flux-repo');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no shell); stdout and stderr as text. */
export function run(command: string, args: string[], options: SpawnSyncOptions = {}): Run {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...options });
  if (result.error) throw result.error;
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

export const describeRun = (what: string, result: Run) => `${what} exited ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;

/** `node scripts/pack-cli.mjs` writing into a new temporary folder; the tarball's path (the last line). */
export function packCli(extraArgs: string[] = []): { tarball: string; output: string } {
  const packed = run(process.execPath, ['scripts/pack-cli.mjs', `--out-dir=${tempDir('fjg-cli-tgz-')}`, ...extraArgs], { cwd: ROOT });
  assert.equal(packed.status, 0, describeRun('pack:cli', packed));
  const tarball = packed.stdout.trimEnd().split('\n').at(-1)!;
  return { tarball, output: packed.stdout };
}

/** Installs `tarball` offline into a new empty folder; the path of its `flux-job-guard` bin. */
export function installCli(tarball: string): string {
  const folder = tempDir('fjg-cli-install-');
  const installed = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: folder });
  assert.equal(installed.status, 0, describeRun('npm install --offline', installed));
  return join(folder, 'node_modules', '.bin', 'flux-job-guard');
}
