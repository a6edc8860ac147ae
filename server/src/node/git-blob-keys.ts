// The keys of the cache's summaries (the CLI's --cache) are git's blob ids, so that git can say,
// without a file being read, which kept summary is the file's: a file git reports unchanged since
// the revision holds that revision's blob, and a kept summary made of a text with that blob id is
// its summary. A fresh clone (a CI job that restores the cache) then reads only what changed.
//
// That holds where the bytes in the working tree are the blob's: git converts nothing on checkout
// (no filter, ident, working-tree-encoding or CRLF conversion; on Windows a `text` attribute means
// CRLF unless core.eol=lf), nothing hides a change from git
// (assume-unchanged, skip-worktree), the path is a plain file in git (not a link, not a
// submodule), and reading it keeps it whole (within the size limit). Everywhere else the file is
// read, as without the cache.
import { createHash } from 'node:crypto';
import { BINARY_PROBE_BYTES } from '../engine/base/repo-fs';
import { commitOf, git, nulSeparated } from './git-head';

/**
 * The key of a text: git's blob id of its UTF-8 bytes where reading those bytes as a file gives
 * back this text (decodeFile: no byte order mark to drop, no NUL where it looks for one), so a
 * file git holds as that blob reads as this text. Else a digest no blob id equals, which only the
 * same text matches.
 */
export function textKey(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (text.charCodeAt(0) === 0xfeff || bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return `sha256:${createHash('sha256').update(bytes).digest('base64')}`;
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * Where git writes CRLF on checkout, whatever else the attributes say: `every` text file
 * (core.autocrlf=true; core.eol=crlf, taken as broadly), the files with a `text` attribute
 * (`text`: git's native line ending is CRLF, on Windows, unless core.eol says lf), or `none`.
 */
async function checkoutCrlf(root: string, platform: NodeJS.Platform): Promise<'every' | 'text' | 'none'> {
  const config = await git(root, ['config', '-z', '--get-regexp', '^core\\.(autocrlf|eol)$']);
  // Exit 1 with no output: neither is set.
  let eol = 'native';
  for (const record of nulSeparated(config.stdout)) {
    const [name, value = 'true'] = record.split('\n');
    const setting = value.toLowerCase();
    if (name === 'core.autocrlf' && !['false', 'no', 'off', '0', 'input'].includes(setting)) return 'every';
    if (name === 'core.eol') eol = setting;
  }
  if (eol === 'crlf') return 'every';
  return eol === 'native' && platform === 'win32' ? 'text' : 'none';
}

/**
 * The paths whose attributes ask git to change their bytes on checkout (a filter, ident, an
 * encoding, eol=crlf; with `textCrlf`, a `text` attribute too); undefined: git cannot tell.
 */
async function convertedPaths(root: string, paths: readonly string[], textCrlf: boolean): Promise<Set<string> | undefined> {
  // --all: only the attributes a path has set (most repositories set none), rather than five records for every path.
  const attributes = await git(root, ['check-attr', '-z', '--stdin', '--all'], `${paths.join('\0')}\0`);
  if (!attributes.ok) return undefined;
  const converted = new Set<string>();
  const fields = attributes.stdout.split('\0');
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [path, attribute, value] = [fields[i], fields[i + 1], fields[i + 2]];
    if (value === 'unspecified' || value === 'unset' || !CONVERTING.has(attribute)) continue;
    if (attribute === 'eol' ? value === 'crlf' : attribute !== 'text' || textCrlf) converted.add(path);
  }
  return converted;
}

/** The attributes that may make git convert a file's bytes on checkout. */
const CONVERTING = new Set(['filter', 'ident', 'working-tree-encoding', 'eol', 'text']);

/** The paths git's index flags as plain cached entries (`H`): not assume-unchanged, not skip-worktree, not unmerged. */
async function plainIndexEntries(root: string): Promise<Set<string> | undefined> {
  const listed = await git(root, ['ls-files', '-v', '-z', '--', '.']);
  if (!listed.ok) return undefined;
  // Read in place: 20,000 records split, then copied, cost tens of milliseconds of the thread that lists the files.
  const plain = new Set<string>();
  const out = listed.stdout;
  for (let start = 0, end = out.indexOf('\0'); end !== -1; start = end + 1, end = out.indexOf('\0', start)) {
    if (out.startsWith('H ', start)) plain.add(out.slice(start + 2, end));
  }
  return plain;
}

/** What git holds at a revision: the commit the revision names, and the keys blobKeysAt trusts. */
export interface BlobKeysAt {
  revision: string;
  keys: Map<string, string>;
}

/**
 * The key of each file below `root` (relative to it) as the revision `rev` (as the user wrote it)
 * holds it, where nothing can make the working tree's bytes other than the blob's; null where git
 * cannot tell (no such revision, another object format, an error). True of a file in the working
 * tree only where it did not change since (see unchangedSince). Asked at once, each question a
 * process of its own, so the caller can start it before it knows what changed.
 */
export async function blobKeysAt(root: string, rev: string, maxFileSize: number, platform = process.platform, resolving = commitOf(root, rev)): Promise<BlobKeysAt | null> {
  // Each question starts as soon as what it needs is known: the tree once the revision is resolved, the attributes once the index is listed.
  const listing = plainIndexEntries(root);
  const crlfAsked = checkoutCrlf(root, platform);
  const [resolved, format, crlf, plain, tree, converted] = await Promise.all([
    resolving,
    git(root, ['rev-parse', '--show-object-format']),
    crlfAsked,
    listing,
    resolving.then((answer) => (answer.ok ? git(root, ['ls-tree', '-r', '-l', '-z', answer.stdout.trim(), '--', '.']) : answer)),
    // The attributes of every plain index entry (a file the revision holds but the index does not is no plain entry).
    Promise.all([listing, crlfAsked]).then(([entries, checkout]) => (entries && checkout !== 'every' ? convertedPaths(root, [...entries], checkout === 'text') : undefined)),
  ]);
  if (!resolved.ok || !format.ok || format.stdout.trim() !== 'sha1' || crlf === 'every' || !plain || !tree.ok || !converted) return null;
  const keys = new Map<string, string>();
  for (const record of nulSeparated(tree.stdout)) {
    // <mode> SP <type> SP <object> SP+ <size> TAB <path>
    const tab = record.indexOf('\t');
    const [mode, type, object, size] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    if (type !== 'blob' || (mode !== '100644' && mode !== '100755') || Number(size) > maxFileSize || !plain.has(path) || converted.has(path)) continue;
    keys.set(path, object);
  }
  return { revision: resolved.stdout.trim(), keys };
}

/**
 * The keys of the files that did not change since `revision` (none of `differ`): `at`'s, where it
 * is that revision (a commit made while the audit started names another), else none.
 */
export function unchangedSince(at: BlobKeysAt | null, revision: string, differ: Iterable<string>): Map<string, string> {
  if (!at || at.revision !== revision) return new Map();
  const keys = new Map(at.keys);
  for (const path of differ) keys.delete(path);
  return keys;
}
