// Reading files as the editor has them, and turning spans in them into LSP
// ranges: what references, rename and workspace symbols share.
import type { Range } from 'vscode-languageserver';
import type { ReadText } from '../../engine/editor/variable-sites';
import { LineIndex } from '../../engine/yaml/line-index';
import type { Project } from '../project';

/**
 * Reads files as the editor has them. Not remembered: a search for a variable reads every file
 * its Kustomizations build, and keeps none of them (the locator keeps what it needs).
 */
export function reader(project: Project): ReadText {
  return async (path) => {
    const read = await project.fs.read(path);
    return read.kind === 'text' ? read.text : undefined;
  };
}

/** Spans in repository files as LSP ranges (each file read once per request). */
export function locator(read: ReadText): (file: string, span: [number, number]) => Promise<Range | null> {
  const lines = new Map<string, LineIndex | null>();
  return async (file, span) => {
    if (!lines.has(file)) {
      const text = await read(file);
      lines.set(file, text === undefined ? null : new LineIndex(text));
    }
    return lines.get(file)?.range(span[0], span[1]) ?? null;
  };
}
