// How the engine reads a repository: a file list and file contents, nothing
// else. Node's `fs` implements it for the CLI and the desktop server; the
// browser build implements it over the client's `workspace.fs`.

export type ReadResult =
  | { kind: 'text'; text: string }
  | { kind: 'missing' }
  /** Not analysed: `reason` says why (too large, binary, not UTF-8). `notYaml` when it cannot be YAML at all. */
  | { kind: 'skipped'; reason: string; notYaml: boolean };

export interface RepoFs {
  /** Every file below the root, repository-relative with `/`; never `.git/` or `node_modules/`, never outside the root. */
  listFiles(): Promise<string[]>;
  read(path: string): Promise<ReadResult>;
}

export const DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024;

/** A file is binary when a NUL byte is among this many first bytes (decodeFile). */
export const BINARY_PROBE_BYTES = 8192;

/** Turns raw bytes into text the way every face of the tool must: BOM dropped, binary and bad UTF-8 refused. */
export function decodeFile(bytes: Uint8Array, maxFileSize: number): ReadResult {
  if (bytes.length > maxFileSize) {
    return { kind: 'skipped', reason: `the file is ${bytes.length} bytes, more than the size limit of ${maxFileSize} bytes`, notYaml: false };
  }
  if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { kind: 'skipped', reason: 'the file is binary (it holds NUL bytes), not YAML text', notYaml: true };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { kind: 'skipped', reason: 'the file is not valid UTF-8 text', notYaml: true };
  }
  return { kind: 'text', text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/** Open documents shadow the disk: the editor's text is the truth while a file is open. */
export class OverlayFs implements RepoFs {
  readonly open = new Map<string, string>();
  constructor(private readonly disk: RepoFs) {}
  listFiles(): Promise<string[]> {
    return this.disk.listFiles();
  }
  read(path: string): Promise<ReadResult> {
    const text = this.open.get(path);
    return text !== undefined ? Promise.resolve({ kind: 'text', text }) : this.disk.read(path);
  }
}
