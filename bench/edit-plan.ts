// Where the bench's edits go (bench/run.ts measures them, bench/profile.ts profiles them): one
// place near the middle of the file, and the characters written there in turn.
import type { Position } from './lsp-client';

/**
 * One-character edits at one place inside one document near the middle of the file, and how to
 * recognise each publish. Every edit writes a character that place has not held before, so the
 * document's text is new each time, as when a user types: an edit back to an earlier text would be
 * answered from the server's content-keyed caches.
 */
export interface EditPlan {
  position: Position;
  /** The characters the edits write there, in turn (none is the original). */
  replacements: string[];
  /** 'ttl': each edit sets another unexpected TTL, whose ttl-unexpected-value finding names it; 'neutral': the diagnostics stay the same. */
  kind: 'ttl' | 'neutral';
  line: number;
  /** The TTL as written before the changed digit ('ttl' only). */
  ttlPrefix?: string;
}

function lineAndCharacter(text: string, offset: number): Position {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, character: offset - lineStart };
}

function nearestToMiddle(text: string, pattern: RegExp): RegExpExecArray | null {
  const middle = text.length / 2;
  let best: RegExpExecArray | null = null;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (!best || Math.abs(m.index - middle) < Math.abs(best.index - middle)) best = m;
    if (m.index > middle && best !== m) break;
  }
  return best;
}

export function planEdit(text: string): EditPlan {
  const ttl = nearestToMiddle(text, /^[ \t]+ttlSecondsAfterFinished: 86400[ \t]*$/gm);
  if (ttl) {
    const offset = ttl.index + ttl[0].trimEnd().length - 1; // the last 0 of 86400: 86401, 86402, ...
    const position = lineAndCharacter(text, offset);
    return { position, replacements: [...'123456789'], kind: 'ttl', line: position.line, ttlPrefix: '8640' };
  }
  const scalar = nearestToMiddle(text, /^[ \t]+description: [A-Za-z]/gm) ?? nearestToMiddle(text, /^[ \t]+(?!kind:|apiVersion:)[A-Za-z][\w.-]*: [A-Za-z]/gm);
  if (!scalar) throw new Error('no place for a one-character edit');
  const offset = scalar.index + scalar[0].length - 1;
  const original = text[offset];
  const position = lineAndCharacter(text, offset);
  return { position, replacements: [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((letter) => letter !== original), kind: 'neutral', line: position.line };
}
