// Reads files at git HEAD with the user's own git (never code from the
// workspace). Used only where the workspace is trusted and git exists; any
// failure means "cannot tell", which keeps job-immutable-template silent.
// One `git cat-file --batch` process answers every read (a process per file
// cost the audit of a 300-Job repository seconds of spawning).
import { ChildProcess, execFile, spawn } from 'node:child_process';
import type { HeadReader } from '../engine/pipeline/repo-analysis';

const GIT_ENV = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };

/** Runs the user's git in `root`, `input` on its stdin; never throws (a failure is `ok: false` with git's stderr). */
export function git(root: string, args: string[], input?: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 10000, env: GIT_ENV }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) }),
    );
    child.stdin?.on('error', () => undefined); // git gone before reading it all: its exit says why
    child.stdin?.end(input);
  });
}

/**
 * git's answer to which commit the revision `rev` (as the user wrote it) names: on stdout where
 * it is `ok`. Resolved to a commit so that what is asked next names an object, not a path; a
 * revision that starts with "-" is never read as an option.
 */
export function commitOf(root: string, rev: string): ReturnType<typeof git> {
  return git(root, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`]);
}

/** The records of git's `-z` output (paths, or lines of other commands), without the empty last item. */
export function nulSeparated(stdout: string): string[] {
  return stdout.split('\0').filter((record) => record !== '');
}

type Answer = string | null | undefined;

/** Texts from git are decoded as files on disk are (decodeFile): a byte order mark at the start is not text. */
const UTF8 = new TextDecoder('utf-8');

/** `git cat-file --batch`: one request line in, one header (and the object's bytes) out, in order. */
class CatFile {
  private readonly process: ChildProcess;
  private buffer = Buffer.alloc(0);
  private readonly waiting: Array<(answer: Answer) => void> = [];
  private dead = false;

  constructor(root: string) {
    this.process = spawn('git', ['-C', root, 'cat-file', '--batch'], { env: GIT_ENV, stdio: ['pipe', 'pipe', 'ignore'] });
    this.process.stdout!.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    const fail = () => {
      this.dead = true;
      for (const resolve of this.waiting.splice(0)) resolve(undefined);
    };
    this.process.on('error', fail);
    this.process.on('exit', fail);
    this.process.stdin!.on('error', fail);
    this.hold(false);
  }

  read(spec: string): Promise<Answer> {
    if (this.dead) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.hold(true);
      this.process.stdin!.write(`${spec}\n`);
    });
  }

  /** The idle process must not keep Node alive; one with answers to come must. */
  private hold(on: boolean): void {
    const handles = [this.process, this.process.stdout, this.process.stdin] as unknown as Array<{ ref?: () => void; unref?: () => void }>;
    for (const handle of handles) (on ? handle.ref : handle.unref)?.call(handle);
  }

  private drain(): void {
    for (;;) {
      const newline = this.buffer.indexOf(10);
      if (this.waiting.length === 0) this.hold(false);
      if (newline === -1 || this.waiting.length === 0) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      const match = /^\S+ (\S+) (\d+)$/.exec(header);
      if (!match) {
        // `<spec> missing` (not in HEAD), `ambiguous`, ...: no content follows.
        this.buffer = this.buffer.subarray(newline + 1);
        this.waiting.shift()!(/ missing$/.test(header) ? null : undefined);
        continue;
      }
      const size = Number(match[2]);
      if (this.buffer.length < newline + 1 + size + 1) return; // the rest of the object is on its way
      const content = this.buffer.subarray(newline + 1, newline + 1 + size);
      this.buffer = this.buffer.subarray(newline + 1 + size + 1);
      this.waiting.shift()!(match[1] === 'blob' ? UTF8.decode(content) : null);
    }
  }
}

/** A HeadReader for `root`, or null when `root` is not inside a git checkout with a HEAD (or git is missing). */
export async function gitHeadReader(root: string): Promise<HeadReader | null> {
  const check = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  return check.ok ? revisionReader(root, 'HEAD') : null;
}

/**
 * Reads files (relative to `root`) as they are at `revision`, a name git has already resolved:
 * the text, null when the file is not there, undefined when git cannot tell.
 */
export function revisionReader(root: string, revision: string): HeadReader {
  let batch: CatFile | null = null;
  return async (path) => {
    // A path with a line break cannot be one request line: ask git for it on its own.
    if (/[\r\n]/.test(path)) {
      const shown = await git(root, ['show', `${revision}:./${path}`]);
      if (shown.ok) return shown.stdout.replace(/^\ufeff/, '');
      return /does not exist|exists on disk, but not in/.test(shown.stderr) ? null : undefined;
    }
    batch ??= new CatFile(root);
    return batch.read(`${revision}:./${path}`);
  };
}
