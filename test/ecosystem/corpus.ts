// The shared corpus (../shared/corpus/ beside the project) and the CLI run
// over it, for the corpus test and `npm run ecosystem`.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonReport } from '../../server/src/cli/formats';
import type { Triage } from './triage';

export const ROOT = join(__dirname, '..', '..', '..');
export const CORPUS = join(ROOT, '..', 'shared', 'corpus');
export const TRIAGE_FILE = join(ROOT, 'test', 'ecosystem', 'triage.json');
const CLI = join(ROOT, 'dist', 'cli.js');

export interface RepoRun {
  repo: string;
  status: number;
  stdout: string;
  stderr: string;
  report: JsonReport | null;
}

export function corpusRepos(): string[] {
  return existsSync(CORPUS)
    ? readdirSync(CORPUS)
        .filter((name) => statSync(join(CORPUS, name)).isDirectory())
        .sort()
    : [];
}

export function readTriage(): Triage {
  return JSON.parse(readFileSync(TRIAGE_FILE, 'utf8')) as Triage;
}

function auditRepo(repo: string): Promise<RepoRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'audit', join(CORPUS, repo), '--format', 'json'], { maxBuffer: 1 << 30, timeout: 300_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      let report: JsonReport | null;
      try {
        report = JSON.parse(stdout) as JsonReport;
      } catch {
        report = null;
      }
      resolve({ repo, status, stdout, stderr: stderr + (error && typeof error.code !== 'number' ? `${error.name}: ${error.message}` : ''), report });
    });
  });
}

/** Audits the repositories two at a time (the machine has two cores), in the order given. */
export async function auditCorpus(repos: string[]): Promise<RepoRun[]> {
  const results = new Map<string, RepoRun>();
  const queue = [...repos];
  await Promise.all(
    [0, 1].map(async () => {
      for (let repo = queue.shift(); repo !== undefined; repo = queue.shift()) results.set(repo, await auditRepo(repo));
    }),
  );
  return repos.map((repo) => results.get(repo)!);
}
