// A model problem's fix that replaces one scalar of its file (a dependsOn name by
// the one meant), written in the scalar's own quotes.
import type { Fix } from '../../base/types';
import type { GraphProblem } from '../../flux/model/build';
import type { LineIndex } from '../../yaml/line-index';

/** The problem's `replace` as a fix (none when the model offers no replacement). */
export function replaceFixes(problem: GraphProblem, lines: LineIndex): Fix[] {
  const replace = problem.replace;
  if (!replace) return [];
  const written = lines.text.slice(replace.span[0], replace.span[1]);
  const quote = /^["']/.test(written) && written.length > 1 && written.endsWith(written[0]) ? written[0] : '';
  return [{ title: replace.title, edits: [{ file: problem.file, range: lines.range(replace.span[0], replace.span[1]), newText: `${quote}${replace.newText}${quote}` }], preferred: true }];
}
