// What the editor holds back while the user is still writing it. Typing `${`
// makes most editors close it to `${}` at once, and Flux rejects `${}`: without
// this, a syntax error flashes at every substitution the user starts. As
// rust-analyzer and ESLint do for code being typed, the finding waits while the
// most recent edit of the document is the one that touched the expression and
// the expression is still incomplete (`${}`, or a `${` not closed yet); it shows
// as soon as the user edits anywhere else or saves. The server does not see the
// cursor (an auto-closed `{}` arrives as one insertion), so the edit's own range
// stands for it. Only flux-substitution-syntax is held, only in the editor (the
// audit and the CLI always report it); every other finding is published at once.
import { LineIndex } from '../yaml/line-index';
import { fluxSubstitutionSyntax } from '../rules/flux-substitution-syntax';
import type { Finding } from '../base/types';

/** The most recent edit of a document: what it inserted, as offsets in the current text. */
export interface RecentEdit {
  start: number;
  end: number;
}

export const HELD_RULE = fluxSubstitutionSyntax.meta.id;

/**
 * Whether the expression starting at `start` (its finding ends at `end`) is incomplete and the edit
 * touched it: `${}`, or a `${` with no `}` of its own before the line ends (the lexer's error range
 * stops where it gave up, `${arr[` of a finished `${arr[@]}`, so the line is what tells).
 */
export function stillTyping(text: string, start: number, end: number, lineEnd: number, edit: RecentEdit): boolean {
  if (!text.startsWith('${', start) || edit.end < start || edit.start > end) return false;
  if (text.startsWith('${}', start)) return true;
  const rest = text.slice(start + 2, lineEnd);
  const close = rest.indexOf('}');
  const next = rest.indexOf('${');
  return close === -1 || (next !== -1 && next < close);
}

/** The findings to publish now: all of them, but a syntax finding on the expression the user is typing. */
export function holdWhileTyping(findings: Finding[], text: string, edit: RecentEdit | null): Finding[] {
  if (!edit || !findings.some((finding) => finding.rule === HELD_RULE)) return findings;
  const lines = new LineIndex(text);
  const editLine = lines.position(edit.start).line;
  return findings.filter((finding) => {
    if (finding.rule !== HELD_RULE || finding.range.start.line !== editLine || finding.range.end.line !== editLine) return true;
    return !stillTyping(text, lines.offset(finding.range.start), lines.offset(finding.range.end), lines.lineEnd(editLine), edit);
  });
}
