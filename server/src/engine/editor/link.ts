// How editor text names a place in a file: a Markdown link in the editor
// (the server makes it from a URI), `file:line` elsewhere (tests, the CLI).
import { LineIndex } from '../yaml/line-index';

/** A place in a file, for people: `[file:line](link)` in the editor, `file:line` elsewhere. */
export type Link = (file: string, at: { offset: number } | { line: number }) => string;

/** A Link over texts the caller can read: `file:line`, 1-based. */
export function plainLink(read: (file: string) => string | undefined): Link {
  return (file, at) => {
    if ('line' in at) return `${file}:${at.line + 1}`;
    const text = read(file);
    return text === undefined ? file : `${file}:${new LineIndex(text).position(at.offset).line + 1}`;
  };
}
