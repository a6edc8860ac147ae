// Edits shared by the TTL rules: removing a TTL key with its convergence
// comment, and the text of a TTL moved to `spec`.
import type { TtlFacts } from '../../k8s/jobs';
import type { LineIndex } from '../../yaml/line-index';
import { commentLinesAbove, deleteLines, OffsetEdit } from '../../yaml/edit';

/** The first line of the key's own comment block: from the nearest marker comment directly above. */
export function ownCommentStart(lines: LineIndex, keyLine: number, marker: string): number {
  const above = commentLinesAbove(lines, keyLine);
  for (let i = above.length - 1; i >= 0; i--) {
    if (
      lines
        .lineText(above[i])
        .trimStart()
        .replace(/^#+\s*/, '')
        .startsWith(marker)
    )
      return above[i];
  }
  return keyLine;
}

/** Deletes a TTL key, its value and its convergence comment; null when the key shares its line with other content. */
export function removeKeyEdit(lines: LineIndex, ttl: TtlFacts, marker: string): OffsetEdit | null {
  const keyLine = lines.position(ttl.keySpan[0]).line;
  const lastLine = lines.position(Math.max(ttl.valueSpan[1], ttl.keySpan[1])).line;
  const before = lines.text.slice(lines.lineStart(keyLine), ttl.keySpan[0]);
  if (before.trim() !== '' && before.trim() !== '-') return null;
  if (before.trim() === '-') return null; // the key starts a list item: deleting it would change the item
  const after = lines.text.slice(Math.max(ttl.valueSpan[1], ttl.keySpan[1]), lines.lineEnd(lastLine));
  if (after.trim() !== '' && !after.trim().startsWith('#')) return null;
  return deleteLines(lines, ownCommentStart(lines, keyLine, marker), lastLine);
}

/** The lines of a TTL key as they should read under `spec`: its comment block and `key: value`. */
export function movedKeyLines(lines: LineIndex, ttl: TtlFacts, marker: string): string[] {
  const keyLine = lines.position(ttl.keySpan[0]).line;
  const commentLines: string[] = [];
  for (let l = ownCommentStart(lines, keyLine, marker); l < keyLine; l++) commentLines.push(lines.lineText(l).trim());
  const keyText = lines.text.slice(ttl.keySpan[0], Math.max(ttl.valueSpan[1], ttl.keySpan[1]));
  const after = lines.text.slice(Math.max(ttl.valueSpan[1], ttl.keySpan[1]), lines.lineEnd(lines.position(ttl.valueSpan[1]).line));
  return [...commentLines, keyText + after.trimEnd()];
}
