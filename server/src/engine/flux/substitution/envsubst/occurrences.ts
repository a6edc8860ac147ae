// Every occurrence Flux's substitution sees in a text, with its offsets: the same scanner and
// parser as the evaluator (template.ts), so the linter and the evaluator cannot disagree about
// what Flux sees.

import { Occurrence } from './node';
import { parseTop } from './parse';
import { DOLLAR } from './scan';

/**
 * Every top-level occurrence in `text`, in order, with UTF-16 offsets. Flux stops at the first
 * syntax error; this scan reports it and resumes where the lexer stopped, so a linter can show
 * every one.
 */
export function scanSubstitutions(text: string): Occurrence[] {
  const found: Occurrence[] = [];
  for (const item of parseTop(text, true)) {
    if (item.kind === 'expression') found.push(item.occurrence);
    else if (item.kind === 'error') found.push({ kind: 'syntax-error', start: item.start, end: item.end, error: item.error });
    else {
      // A text token: its skipped characters are the first `$` of each `$$` pair; any other
      // `$` in it is a lone one (the scanner never lets `${` into a text token).
      let skip = 0;
      for (let i = item.start; i < item.end; i++) {
        if (item.skipped[skip] === i) {
          skip++;
          const next = i + 2 < text.length ? String.fromCodePoint(text.codePointAt(i + 2)!) : '';
          found.push({ kind: 'escape', start: i, end: i + 2, next });
          i++;
        } else if (text.charCodeAt(i) === DOLLAR) {
          found.push({ kind: 'bare-dollar', start: i, end: i + 1 });
        }
      }
    }
  }
  return found;
}
