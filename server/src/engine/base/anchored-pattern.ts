// A name pattern as kustomize matches it: an anchored regular expression of
// Go's RE2, which runs in linear time. A JS RegExp backtracks: `(a|aa)+$b`
// against a 50-letter name runs for hours. A pattern that can backtrack badly
// (a quantified group, a back-reference, more than three quantifiers) is
// compared as text instead: the model may then miss what such a pattern
// selects, but it always ends.

/** What a compiled pattern answers: whether a whole value matches. */
export interface AnchoredPattern {
  test(value: string): boolean;
}

/** The pattern, anchored at both ends; null when it is no regular expression (kustomize refuses it). */
export function anchoredPattern(pattern: string): AnchoredPattern | null {
  let compiled: RegExp;
  try {
    compiled = new RegExp(`^(?:${pattern})$`);
  } catch {
    return null;
  }
  return mayBacktrack(pattern) ? { test: (value) => value === pattern } : compiled;
}

function mayBacktrack(pattern: string): boolean {
  // escapes and character classes are single characters: they cannot nest quantifiers
  const bare = pattern.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  return /\)[*+?{]/.test(bare) || /\\[1-9]/.test(pattern) || (bare.match(/[*+?]|\{\d/g) ?? []).length > 3;
}
