// Repositories written to temporary folders for tests that need real files
// (the CLI, the language server). Every folder made here is removed by
// `removeTempRepos`, which each test file calls from its `after` hook.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const created: string[] = [];

/** A new empty temporary folder, removed by `removeTempRepos`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes `files` (repository-relative paths to texts) into a new temporary folder. */
export function tempRepo(prefix: string, files: Record<string, string>): string {
  const dir = tempDir(prefix);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

export function removeTempRepos(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
