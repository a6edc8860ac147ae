// Single-file edits of real repositories, for the tests that hold a shortcut of the changed-only
// audit to the work it saves (unchanged-model, kept-model): each edit may or may not tell the
// model something new, so a shortcut is both taken and refused over them.

/** Edits of one YAML file's text, by what they do. */
export const EDITS: Record<string, (text: string) => string> = {
  'a comment added at the end': (text) => `${text}${text.endsWith('\n') ? '' : '\n'}# edited\n`,
  'a line added at the top': (text) => `# edited\n${text}`,
  'the first digit changed': (text) => text.replace(/\d/, (digit) => String((Number(digit) + 1) % 10)),
};

/**
 * Each of `edits` applied to the YAML files of `files`, spread over the repository (every file, or
 * about `limit` of them), where the edit changes the text.
 */
export function* sampledEdits(files: Record<string, string>, limit: number, edits: readonly string[] = Object.keys(EDITS)): Generator<{ path: string; what: string; text: string }> {
  const yamlFiles = Object.keys(files)
    .filter((path) => /\.ya?ml$/.test(path))
    .sort();
  const step = Math.max(1, Math.ceil(yamlFiles.length / limit));
  for (let i = 0; i < yamlFiles.length; i += step) {
    const path = yamlFiles[i];
    for (const what of edits) {
      const text = EDITS[what](files[path]);
      if (text !== files[path]) yield { path, what, text };
    }
  }
}
