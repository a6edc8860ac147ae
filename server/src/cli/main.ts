#!/usr/bin/env node
// flux-job-guard: the CLI face of the engine (cli.md).
//   audit [DIR] [--config FILE] [--format text|json|sarif] [--quiet] [--changed-since REV | --staged]
//   envsubst [--var NAME=VALUE]... [--env] [--strict]
//   lsp --stdio
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { audit } from '../engine/pipeline/audit';
import { CONTRACT_FILE_NAME } from '../engine/contract/model';
import { ReadResult, RepoFs } from '../engine/base/repo-fs';
import { NodeRepoFs } from '../node/node-repo-fs';
import { commitOf, gitHeadReader } from '../node/git-head';
import { workerExecutor } from '../node/audit-workers';
import { formatJson, formatSarif, formatText } from './formats';
import { runEnvsubst } from './envsubst-command';
import { auditSince } from './changed-since';
import { changesSince, INDEX, repositoryAt, stagedChanges } from '../node/git-changes';
import { decodeFile, DEFAULT_MAX_FILE_SIZE } from '../engine/base/repo-fs';

import { VERSION } from '../shared/version';
import { CACHE_FOLDER, refusedCacheFolder, SummaryCache } from '../node/summary-cache';
import { blobKeysAt, unchangedSince } from '../node/git-blob-keys';

const HELP = `flux-job-guard ${VERSION}: keeps the Jobs of a Flux GitOps repository safe to run again.

Usage:
  flux-job-guard audit [DIR] [--config FILE] [--format text|json|sarif] [--quiet] [--max-file-size BYTES] [--no-git] [--threads N] [--changed-since REV | --staged] [--cache] [--cache-location DIR]
  flux-job-guard envsubst [--var NAME=VALUE]... [--env] [--strict]   Flux's substitution, stdin to stdout
  flux-job-guard lsp --stdio                                         the language server
  flux-job-guard --version | --help

--git (the default in a git checkout) compares Jobs with git HEAD for job-immutable-template; --no-git turns that off.
--changed-since REV reports only the findings of the files the change since REV (git diff REV, untracked files too) can affect.
--staged audits the repository as the index holds it (what a commit would hold: unstaged edits and untracked files left out) and reports what its changes against HEAD can affect (a pre-commit hook).
--cache keeps each file's summary for the next --changed-since or --staged run, in DIR/${CACHE_FOLDER} (or --cache-location DIR, which implies --cache); a file whose text is unchanged is not summarised again. The whole audit neither reads nor writes it.
Exit status: 0 no error finding, 1 at least one error finding, 2 usage error or unreadable input.
`;

export class UsageError extends Error {}

interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): string;
  env: Record<string, string | undefined>;
  cwd: string;
}

export async function runCli(args: string[], io: Io): Promise<number> {
  try {
    const [command, ...rest] = args;
    if (command === '--version' || command === '-v') return (io.stdout(`${VERSION}\n`), 0);
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') return (io.stdout(HELP), 0);
    if (command === 'audit') return await runAudit(rest, io);
    if (command === 'envsubst') {
      const result = runEnvsubst(rest, io.readStdin(), io.env);
      io.stdout(result.stdout);
      io.stderr(result.stderr);
      return result.exitCode;
    }
    if (command === 'lsp') {
      if (!rest.includes('--stdio')) throw new UsageError('lsp needs --stdio');
      return -1; // the caller starts the server
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`flux-job-guard: ${error.message}\n${HELP}`);
      return 2;
    }
    throw error;
  }
}

interface AuditArgs {
  dir: string;
  config: string | null;
  format: 'text' | 'json' | 'sarif';
  quiet: boolean;
  maxFileSize: number;
  git: boolean;
  /** Worker threads for the audit; null: one per core. */
  threads: number | null;
  /** Report only the files the change since this git revision can affect; null: every file. */
  changedSince: string | null;
  /** Audit the index (what a commit would hold) and report what its changes against HEAD can affect. */
  staged: boolean;
  /** Where summaries are kept between changed-only runs (--cache, --cache-location); null: nowhere. */
  cacheLocation: string | null;
}

function parseAuditArgs(args: string[]): AuditArgs {
  const parsed: AuditArgs = {
    dir: '.',
    config: null,
    format: 'text',
    quiet: false,
    maxFileSize: DEFAULT_MAX_FILE_SIZE,
    git: true,
    threads: null,
    changedSince: null,
    staged: false,
    cacheLocation: null,
  };
  let dirSeen = false;
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].startsWith('--') ? args[i].split(/=(.*)/s, 2) : [args[i], undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--config') parsed.config = value();
    else if (flag === '--format') {
      const format = value();
      if (format !== 'text' && format !== 'json' && format !== 'sarif') throw new UsageError(`--format must be text, json or sarif, not ${JSON.stringify(format)}`);
      parsed.format = format;
    } else if (flag === '--quiet' || flag === '-q') parsed.quiet = true;
    else if (flag === '--git') parsed.git = true;
    else if (flag === '--no-git') parsed.git = false;
    else if (flag === '--changed-since') {
      parsed.changedSince = value();
      if (parsed.changedSince === '') throw new UsageError('--changed-since needs a git revision');
    } else if (flag === '--staged') parsed.staged = true;
    else if (flag === '--cache') parsed.cacheLocation ??= '';
    else if (flag === '--cache-location') {
      parsed.cacheLocation = value();
      if (parsed.cacheLocation === '') throw new UsageError('--cache-location needs a folder');
    } else if (flag === '--threads') {
      parsed.threads = Number(value());
      if (!Number.isSafeInteger(parsed.threads) || parsed.threads < 1) throw new UsageError('--threads must be a positive whole number');
    } else if (flag === '--max-file-size') {
      parsed.maxFileSize = Number(value());
      if (!Number.isSafeInteger(parsed.maxFileSize) || parsed.maxFileSize <= 0) throw new UsageError('--max-file-size must be a positive number of bytes');
    } else if (flag.startsWith('-')) throw new UsageError(`unknown option ${flag}`);
    else if (dirSeen) throw new UsageError(`only one DIR may be given (got ${JSON.stringify(parsed.dir)} and ${JSON.stringify(flag)})`);
    else {
      parsed.dir = flag;
      dirSeen = true;
    }
  }
  if (parsed.staged && parsed.changedSince !== null) throw new UsageError('--staged and --changed-since cannot be combined (--staged compares the index with HEAD)');
  return parsed;
}

async function runAudit(args: string[], io: Io): Promise<number> {
  const options = parseAuditArgs(args);
  const dir = nodePath.resolve(io.cwd, options.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    io.stderr(`flux-job-guard: cannot read directory ${options.dir}\n`);
    return 2;
  }
  let fs: RepoFs = new NodeRepoFs(dir, options.maxFileSize, true); // one audit: folders are stable
  let contractPath: string | undefined;
  if (options.config !== null) {
    const configAbsolute = nodePath.resolve(io.cwd, options.config);
    let bytes: Buffer;
    try {
      bytes = readFileSync(configAbsolute);
    } catch {
      io.stderr(`flux-job-guard: cannot read config ${options.config}\n`);
      return 2;
    }
    contractPath = nodePath
      .relative((fs as NodeRepoFs).root, configAbsolute)
      .split(nodePath.sep)
      .join('/');
    fs = withFile(fs, contractPath, decodeFile(bytes, options.maxFileSize));
  } else if (existsSync(nodePath.join(dir, CONTRACT_FILE_NAME))) {
    // cli.md: an unreadable config exits 2. A contract file that is there but cannot be read (a folder,
    // no permission) must not silently become "no contract, defaults apply".
    try {
      readFileSync(nodePath.join(dir, CONTRACT_FILE_NAME));
    } catch {
      io.stderr(`flux-job-guard: cannot read config ${nodePath.join(options.dir, CONTRACT_FILE_NAME)}\n`);
      return 2;
    }
  }
  const root = (fs as NodeRepoFs).root ?? dir;
  // git is asked at once, and works while the files are listed: what changed, HEAD, and (with
  // --cache) the blob ids of the files that may not have changed, which are then not read where
  // the cache holds their texts' summaries.
  const base = options.staged ? 'HEAD' : options.changedSince;
  // The revision is resolved once, for both questions that need it.
  const resolving = base === null ? undefined : commitOf(root, base);
  const changesAsked = options.staged ? stagedChanges(root, resolving) : base === null ? null : changesSince(root, base, resolving);
  const blobKeys = base !== null && options.cacheLocation !== null ? blobKeysAt(root, base, options.maxFileSize, process.platform, resolving) : undefined;
  const headAsked = options.git ? gitHeadReader(dir) : null;
  // The cache folder is checked while git works; its files are read when the audit asks for them
  // (a run that uses the kept model reads none of the summaries).
  const cacheOpened =
    base !== null && options.cacheLocation !== null ? openCache(options.cacheLocation === '' ? nodePath.join(root, CACHE_FOLDER) : nodePath.resolve(io.cwd, options.cacheLocation)) : undefined;
  // Listed once: the count decides the threads, and the audit walks the same list.
  let files = await fs.listFiles();
  // Before the audit: a revision git cannot resolve is a usage error, said at once.
  const changes = await changesAsked;
  if (changes && !changes.ok) {
    io.stderr(`flux-job-guard: ${changes.message}\n`);
    return 2;
  }
  const head = (await headAsked) ?? undefined;
  let listed: RepoFs = { listFiles: () => Promise.resolve([...files]), read: (path) => fs.read(path) };
  /** Texts that are not the disk's (--staged: the index's), for the workers too. */
  const open: Array<[string, string]> = [];
  const unstaged = changes?.ok ? changes.unstaged : undefined;
  if (unstaged) {
    ({ fs: listed, files } = await repositoryAt(root, INDEX, listed, files, unstaged));
    for (const path of unstaged) {
      const read = await listed.read(path);
      if (read.kind === 'text') open.push([path, read.text]);
    }
  }
  const executor =
    options.threads === 1
      ? undefined
      : workerExecutor({ root, maxFileSize: options.maxFileSize, git: head !== undefined, open }, files.length, options.threads ?? undefined, (message) => io.stderr(`flux-job-guard: ${message}\n`));
  // Only the files the change can affect, each as the whole audit reports it; the whole audit where the change reaches every file.
  if (!changes && options.cacheLocation !== null) io.stderr('flux-job-guard: --cache applies to --changed-since and --staged; the whole audit neither reads nor writes it\n');
  const opened = changes ? await cacheOpened : undefined;
  if (opened?.refused) io.stderr(`flux-job-guard: ${opened.refused}: the cache is neither read nor written\n`);
  const cache = opened?.cache;
  if (cache && changes && blobKeys) cache.presume(unchangedSince(await blobKeys, changes.revision, [...changes.files, ...(changes.unstaged ?? [])]));
  const since = changes ? await auditSince(root, changes.revision, listed, files, changes.files, { contractPath, head, executor, summaryStore: cache, modelStore: cache }) : null;
  try {
    cache?.save();
  } catch (error) {
    io.stderr(`flux-job-guard: cannot write the cache ${cache!.file} (${error instanceof Error ? error.message : String(error)}); the next run summarises every file again\n`);
  }
  const result = since ?? (await audit(listed, { contractPath, head, executor }));
  const shown = options.quiet ? result.findings.filter((f) => f.severity === 'error') : result.findings;
  const output = options.format === 'json' ? formatJson(result, shown) : options.format === 'sarif' ? formatSarif(result, shown, VERSION) : formatText(result, shown);
  io.stdout(output);
  return result.summary.errors > 0 ? 1 : 0;
}

/** The --cache folder's summaries, or why the folder must not be used (said once, by the caller). */
async function openCache(folder: string): Promise<{ cache?: SummaryCache; refused?: string }> {
  const refused = await refusedCacheFolder(folder);
  return refused === null ? { cache: SummaryCache.open(folder) } : { refused };
}

/** A RepoFs that answers one path (the --config file, which may live outside DIR) from memory. */
function withFile(fs: RepoFs, path: string, content: ReadResult): RepoFs {
  return { listFiles: () => fs.listFiles(), read: (p) => (p === path ? Promise.resolve(content) : fs.read(p)) };
}
