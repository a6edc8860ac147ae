// Where a shell script's comments are: a `#` that starts a word, to the end of
// its line. The shell never reads a `$` in a comment, so the `$$` rules (a PID
// that arrives as `$`, a needless `$$`) have nothing to say there. A `#` inside
// quotes, inside `${…}`, inside a word (`a#b`, `$#`) or in a here-document's
// body is not a comment: the shell expands a `$$` there, and the rules still
// read it.

/** The characters after which a `#` starts a word (blanks and the shell's operators). */
const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** A here-document's operator: `<<WORD`, `<<-WORD`, `<<'WORD'`, `<<"WORD"` (not `<<<`, a here-string). */
const HERE_DOCUMENT = /^<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|([^\s;&|()<>'"]+))/;

/** The [start, end) ranges of the comments of a shell script, in order. */
export function shellCommentRanges(script: string): Array<[number, number]> {
  const comments: Array<[number, number]> = [];
  const pendingBodies: Array<{ delimiter: string; stripTabs: boolean }> = [];
  let braces = 0; // depth of `${…}`, inside which `#` is an operator
  let doubleQuoted = false;
  let i = 0;
  while (i < script.length) {
    const c = script[i];
    if (c === '\\') {
      i += 2;
    } else if (doubleQuoted) {
      if (c === '"') doubleQuoted = false;
      i++;
    } else if (c === '"') {
      doubleQuoted = true;
      i++;
    } else if (c === "'") {
      i = closingQuote(script, i, script[i - 1] === '$');
    } else if (c === '$' && script[i + 1] === '{') {
      braces++;
      i += 2;
    } else if (c === '}' && braces > 0) {
      braces--;
      i++;
    } else if (c === '#' && braces === 0 && (i === 0 || WORD_BREAK.has(script[i - 1]))) {
      const end = lineEnd(script, i);
      comments.push([i, end]);
      i = end;
    } else if (script.startsWith('<<<', i)) {
      i += 3;
    } else if (script.startsWith('<<', i)) {
      const operator = HERE_DOCUMENT.exec(script.slice(i, i + 200));
      if (operator) pendingBodies.push({ delimiter: operator[2] ?? operator[3] ?? operator[4], stripTabs: operator[1] === '-' });
      i += operator ? operator[0].length : 2;
    } else if (c === '\n' && pendingBodies.length > 0) {
      // The bodies start on the next line, one after another, each up to its delimiter line.
      i++;
      for (const body of pendingBodies.splice(0)) i = afterBody(script, i, body.delimiter, body.stripTabs);
    } else {
      i++;
    }
  }
  return comments;
}

/** Whether `offset` falls inside one of the ranges (sorted, as shellCommentRanges returns them). */
function inRanges(ranges: ReadonlyArray<[number, number]>, offset: number): boolean {
  return ranges.some(([start, end]) => offset >= start && offset < end);
}

/** The offset after the quote that closes the one at `open` (in `$'…'`, a backslash escapes a quote). */
function closingQuote(script: string, open: number, ansiC: boolean): number {
  for (let i = open + 1; i < script.length; i++) {
    if (ansiC && script[i] === '\\') i++;
    else if (script[i] === "'") return i + 1;
  }
  return script.length;
}

function lineEnd(script: string, from: number): number {
  const end = script.indexOf('\n', from);
  return end === -1 ? script.length : end;
}

/** The offset after a here-document body that starts at `from` (after its delimiter line, or the end of the script). */
function afterBody(script: string, from: number, delimiter: string, stripTabs: boolean): number {
  let at = from;
  while (at < script.length) {
    const end = lineEnd(script, at);
    const line = script.slice(at, end);
    at = end + 1;
    if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) return at;
  }
  return script.length;
}

let lastScript: { script: string; comments: Array<[number, number]> } | null = null;

/** Whether `offset` of a shell script sits in one of its comments (the comments of the last script asked about are kept: a scalar's occurrences come one after another). */
export function inShellComment(script: string, offset: number): boolean {
  if (!script.includes('#')) return false;
  if (lastScript?.script !== script) lastScript = { script, comments: shellCommentRanges(script) };
  return inRanges(lastScript.comments, offset);
}
