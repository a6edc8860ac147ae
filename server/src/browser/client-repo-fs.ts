// RepoFs for the browser build of the server: it asks the client for the file
// list and the bytes (see protocol.ts) and decodes them exactly as the Node
// RepoFs does (decodeFile: BOM dropped, binary and bad UTF-8 refused).
import type { Connection } from 'vscode-languageserver';
import { URI, Utils } from 'vscode-uri';
import { decodeFile, DEFAULT_MAX_FILE_SIZE, ReadResult, RepoFs } from '../engine/base/repo-fs';
import { Requests } from '../shared/settings';
import type { ListFilesParams, ListFilesResult, ReadFileParams, ReadFileResult } from './protocol';

export class ClientRepoFs implements RepoFs {
  constructor(
    private readonly connection: Pick<Connection, 'sendRequest'>,
    readonly root: URI,
    private readonly maxFileSize = DEFAULT_MAX_FILE_SIZE,
  ) {}

  async listFiles(): Promise<string[]> {
    const params: ListFilesParams = { folder: this.root.toString() };
    try {
      const files = await this.connection.sendRequest<ListFilesResult>(Requests.listFiles, params);
      return files.filter((path) => safeRelative(path) !== null).sort();
    } catch {
      return []; // the client could not list the folder: nothing to analyse
    }
  }

  async read(path: string): Promise<ReadResult> {
    const relative = safeRelative(path);
    if (relative === null) return { kind: 'missing' };
    const params: ReadFileParams = { uri: Utils.joinPath(this.root, ...relative).toString(), maxFileSize: this.maxFileSize };
    let result: ReadFileResult;
    try {
      result = await this.connection.sendRequest<ReadFileResult>(Requests.readFile, params);
    } catch {
      return { kind: 'missing' };
    }
    if (result === null) return { kind: 'missing' };
    if (!('base64' in result)) {
      return { kind: 'skipped', reason: `the file is ${result.size} bytes, more than the size limit of ${this.maxFileSize} bytes`, notYaml: false };
    }
    return decodeFile(fromBase64(result.base64), this.maxFileSize);
  }
}

/** The segments of a repository-relative path, or null when it is absolute or climbs out of the root. */
function safeRelative(path: string): string[] | null {
  if (path === '' || path.startsWith('/')) return null;
  const segments = path.split('/');
  return segments.some((segment) => segment === '' || segment === '.' || segment === '..') ? null : segments;
}

function fromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
