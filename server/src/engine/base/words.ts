// Which of some names a misspelt one was probably meant to be (Levenshtein distance).

/** The candidate nearest to `word` (case-insensitive edit distance, first wins a tie), with its distance; null without candidates. */
export function nearest(word: string, candidates: Iterable<string>): { candidate: string; distance: number } | null {
  let best: { candidate: string; distance: number } | null = null;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase(), best?.distance ?? Infinity);
    if (best === null || distance < best.distance) best = { candidate, distance };
  }
  return best;
}

/** The candidate a misspelt word was probably meant to be (edit distance under 3), or null. */
export function closest(word: string, candidates: Iterable<string>): string | null {
  const found = nearest(word, candidates);
  return found && found.distance < 3 ? found.candidate : null;
}

/** Close enough to be the name meant: at most two edits, and less than a third of the name. */
export function isClose(name: string, distance: number): boolean {
  return distance > 0 && distance <= 2 && distance * 3 <= name.length;
}

/** Levenshtein distance; anything at or above `bound` may be reported as `bound` (it cannot win). */
function editDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) >= bound) return bound;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
