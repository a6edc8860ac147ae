// The two requests the browser build of the server sends to the client to read
// a workspace folder (a web worker has no file system of its own). The client
// answers them with vscode.workspace.findFiles / workspace.fs, so they work on
// any file system the workbench knows: vscode-test-web's mount, vscode.dev's
// GitHub repositories, a local folder opened in the browser.
// Request names: Requests.listFiles / Requests.readFile in shared/settings.ts.

/** server → client: every file below a folder. */
export interface ListFilesParams {
  /** The folder's URI (a workspace folder, or the folder of a loose file). */
  folder: string;
}
/** Folder-relative paths with `/`, without `.git/` and `node_modules/`. */
export type ListFilesResult = string[];

/** server → client: one file's bytes. */
export interface ReadFileParams {
  uri: string;
  /** Files larger than this are not sent: the client answers with their size. */
  maxFileSize: number;
}
/** `base64` holds the bytes; `size` alone means the file is larger than maxFileSize; null: no such file. */
export type ReadFileResult = { base64: string } | { size: number } | null;

/** Folders no listing descends into (as the Node RepoFs). */
export const SKIPPED_FOLDERS = ['.git', 'node_modules'];
