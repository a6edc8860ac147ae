// Where a fix that writes the contract leaves the reason a person must write:
// the placeholder's range in the edited file as it stands after the fix, so
// the client can open the contract there (issue 21: a contract fix that saved
// in the background looked as if nothing had happened).
import { CONTRACT_ENTRY_REASON_PLACEHOLDER, FLUX_VARIABLE_REASON_PLACEHOLDER } from '../engine/base/placeholders';
import type { Fix, Range } from '../engine/base/types';

const PLACEHOLDERS = [CONTRACT_ENTRY_REASON_PLACEHOLDER, FLUX_VARIABLE_REASON_PLACEHOLDER];

/** The first placeholder reason the fix writes into a file other than `ownFile`, with its range after the fix. */
export function reasonPlaceholder(fix: Fix, ownFile: string): { file: string; range: Range } | null {
  for (const edit of fix.edits) {
    if (edit.file === ownFile) continue;
    const at = Math.min(...PLACEHOLDERS.map((p) => edit.newText.indexOf(p)).filter((i) => i >= 0));
    if (!Number.isFinite(at)) continue;
    const length = PLACEHOLDERS.find((p) => edit.newText.startsWith(p, at))!.length;
    // Edits of the same file that end above this one move it by the lines they add or remove.
    const shift = fix.edits
      .filter((other) => other !== edit && other.file === edit.file && other.range.end.line < edit.range.start.line)
      .reduce((lines, other) => lines + lineCount(other.newText) - 1 - (other.range.end.line - other.range.start.line), 0);
    const before = edit.newText.slice(0, at);
    const line = edit.range.start.line + shift + lineCount(before) - 1;
    const character = before.includes('\n') ? before.length - before.lastIndexOf('\n') - 1 : edit.range.start.character + before.length;
    return { file: edit.file, range: { start: { line, character }, end: { line, character: character + length } } };
  }
  return null;
}

function lineCount(text: string): number {
  return text.split('\n').length;
}
