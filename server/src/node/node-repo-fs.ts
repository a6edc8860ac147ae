// RepoFs over Node's file system, for the CLI and the desktop server. It never
// leaves the root: symbolic links are followed only when their target is
// inside it, and linked folders are not descended (no loops, no escapes).
import { lstatSync, promises as fs, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { DEFAULT_MAX_FILE_SIZE, decodeFile, ReadResult, RepoFs } from '../engine/base/repo-fs';
import { CACHE_FOLDER } from './summary-cache';

// The CLI's --cache folder is the tool's own, never committed (its .gitignore ignores all of it).
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', CACHE_FOLDER]);

/** How many folders the listing reads between two turns of the event loop. */
const FOLDERS_PER_TURN = 64;

export class NodeRepoFs implements RepoFs {
  readonly root: string;

  /** Real paths of folders, when they cannot change while this object lives (see `stableFolders`). */
  private readonly realFolders: Map<string, string> | null;

  /**
   * `stableFolders`: the object lives for one audit (the CLI, an audit worker), so each folder's real
   * path is resolved once; a long-lived server resolves every path at every read, as a folder may
   * become a link while it runs.
   */
  constructor(
    root: string,
    private readonly maxFileSize = DEFAULT_MAX_FILE_SIZE,
    stableFolders = false,
  ) {
    this.realFolders = stableFolders ? new Map() : null;
    // A folder that does not exist (a file opened from a deleted folder) is an empty repository,
    // not an exception that takes the whole language server down.
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      real = nodePath.resolve(root);
    }
    this.root = real;
  }

  /**
   * Lists synchronously, like the reads: awaiting each of thousands of folders left the process
   * idle. Every FOLDERS_PER_TURN folders it lets the event loop take what came meanwhile (the CLI
   * asks git while it lists, and each answer may start the next question).
   */
  async listFiles(): Promise<string[]> {
    const files: string[] = [];
    const pending = [''];
    let listed = 0;
    while (pending.length > 0) {
      if (++listed % FOLDERS_PER_TURN === 0) await new Promise(setImmediate);
      const dir = pending.pop()!;
      let entries;
      try {
        entries = readdirSync(nodePath.join(this.root, dir), { withFileTypes: true });
      } catch {
        continue; // unreadable folder: nothing to list
      }
      for (const entry of entries) {
        const path = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIPPED_FOLDERS.has(entry.name)) pending.push(path);
        } else if (entry.isFile()) {
          files.push(path);
        } else if (entry.isSymbolicLink() && (await this.linkStaysInside(path))) {
          files.push(path);
        }
      }
    }
    return files;
  }

  /**
   * Reads synchronously: a file is a few kB and the audit reads thousands in a
   * row, where awaiting each one leaves the process idle half the time. Every
   * read resolves links first, so nothing outside the root is ever read.
   */
  read(path: string): Promise<ReadResult> {
    return Promise.resolve(this.readNow(path));
  }

  private readNow(path: string): ReadResult {
    const absolute = this.absolute(path);
    if (absolute === null) return { kind: 'missing' };
    try {
      const { real, stat } = this.realPath(absolute);
      if (!this.inside(real)) return { kind: 'skipped', reason: 'it links outside the repository', notYaml: false };
      if (!stat.isFile()) return { kind: 'missing' };
      if (stat.size > this.maxFileSize) {
        return { kind: 'skipped', reason: `the file is ${stat.size} bytes, more than the size limit of ${this.maxFileSize} bytes`, notYaml: false };
      }
      return decodeFile(readFileSync(real), this.maxFileSize);
    } catch {
      return { kind: 'missing' };
    }
  }

  /** Where a path really is, links resolved (each folder once, with stable folders), and what is there. */
  private realPath(absolute: string): { real: string; stat: Stats } {
    if (!this.realFolders) {
      const real = realpathSync.native(absolute);
      return { real, stat: statSync(real) };
    }
    const dir = nodePath.dirname(absolute);
    let folder = this.realFolders.get(dir);
    if (folder === undefined) this.realFolders.set(dir, (folder = realpathSync.native(dir)));
    const file = nodePath.join(folder, nodePath.basename(absolute));
    // A file that is no link is its own target: its lstat is its stat (one call, not two).
    const stat = lstatSync(file);
    if (!stat.isSymbolicLink()) return { real: file, stat };
    const real = realpathSync.native(file);
    return { real, stat: statSync(real) };
  }

  /** The absolute path of a repository-relative one, or null when it would leave the root. */
  absolute(path: string): string | null {
    const absolute = nodePath.resolve(this.root, path);
    return this.inside(absolute) ? absolute : null;
  }

  private inside(absolute: string): boolean {
    const relative = nodePath.relative(this.root, absolute);
    return relative === '' || (!relative.startsWith('..') && !nodePath.isAbsolute(relative));
  }

  private async linkStaysInside(path: string): Promise<boolean> {
    try {
      const real = await fs.realpath(nodePath.join(this.root, path));
      return this.inside(real) && (await fs.stat(real)).isFile();
    } catch {
      return false; // dangling or looping link
    }
  }
}
