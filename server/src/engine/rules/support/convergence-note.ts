// The convergence note: a comment starting with the contract's marker
// (default `converges:`) directly above `ttlSecondsAfterFinished` or at the end
// of its line. The comment the quick fix inserts is a placeholder, and a
// placeholder is not a reason.
import { CONVERGENCE_REASON_PLACEHOLDER } from '../../base/placeholders';
import { commentLinesAbove, trailingComment } from '../../yaml/edit';
import type { LineIndex } from '../../yaml/line-index';

export function placeholderComment(marker: string): string {
  return `# ${marker} ${CONVERGENCE_REASON_PLACEHOLDER}`;
}

export type NoteState = 'present' | 'missing' | 'placeholder';

/** The reason after the marker in one comment's text (without `#`), or null when it has no marker. */
function reasonAfterMarker(comment: string, marker: string): string | null {
  const trimmed = comment.replace(/^#*\s*/, '');
  return trimmed.startsWith(marker) ? trimmed.slice(marker.length).trim() : null;
}

export function convergenceNote(lines: LineIndex, keyOffset: number, valueEnd: number, marker: string): NoteState {
  const keyLine = lines.position(keyOffset).line;
  const comments = commentLinesAbove(lines, keyLine).map((line) => lines.lineText(line).trimStart());
  const trailing = trailingComment(lines, lines.position(valueEnd).line, valueEnd);
  if (trailing !== null) comments.push(trailing);
  let state: NoteState = 'missing';
  for (const comment of comments) {
    const reason = reasonAfterMarker(comment, marker);
    if (reason === null) continue;
    // rules.md: a comment that still contains the placeholder text counts as missing.
    if (reason === '' || reason.startsWith('TODO') || reason.includes(CONVERGENCE_REASON_PLACEHOLDER)) state = 'placeholder';
    else return 'present';
  }
  return state;
}
