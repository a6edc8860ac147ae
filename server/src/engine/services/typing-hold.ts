// What the editor holds back while the user is still writing it. Typing `${`
// makes most editors close it to `${}` at once, and Flux rejects `${}`: without
// this, a syntax error flashes at every substitution the user starts. As
// rust-analyzer and ESLint do for code being typed, the finding waits while the
// cursor of the most recent edit is still inside the expression, and shows as
// soon as the user edits elsewhere or saves. Only flux-substitution-syntax is
// held, only in the editor (the audit and the CLI always report it), and every
// other finding is published at once.
import { LineIndex } from '../text';
import type { Finding } from '../types';

/** Where the most recent edit of a document ended, as an offset in its current text. */
export interface RecentEdit {
  offset: number;
}

export const HELD_RULE = 'flux-substitution-syntax';

/**
 * Whether the expression at [start, end) is still being written with the cursor at `cursor`: the
 * cursor is past its `${` and before its closing `}`, or at the end of an expression not closed yet.
 */
export function stillTyping(text: string, start: number, end: number, cursor: number): boolean {
  if (!text.startsWith('${', start) || cursor < start + 2 || cursor > end) return false;
  const closed = text[end - 1] === '}' && end - start > 2;
  return closed ? cursor < end : true;
}

/** The findings to publish now: all of them, but a syntax finding on the expression the user is typing. */
export function holdWhileTyping(findings: Finding[], text: string, edit: RecentEdit | null): Finding[] {
  if (!edit || !findings.some((finding) => finding.rule === HELD_RULE)) return findings;
  const lines = new LineIndex(text);
  const editLine = lines.position(edit.offset).line;
  return findings.filter((finding) => {
    if (finding.rule !== HELD_RULE || finding.range.start.line !== editLine || finding.range.end.line !== editLine) return true;
    return !stillTyping(text, lines.offset(finding.range.start), lines.offset(finding.range.end), edit.offset);
  });
}
