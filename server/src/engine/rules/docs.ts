// Where each rule is documented for users. The editor ships docs/rules.md and
// opens it at the rule's heading (ruleHeadingLines); the SARIF report of the CLI
// names the repository's copy.
export const DOCS_BASE = 'https://github.com/flux-job-guard/flux-job-guard/blob/main/docs/rules.md';

export function docsUrl(ruleId?: string): string {
  return ruleId ? `${DOCS_BASE}#${ruleId}` : DOCS_BASE;
}

/** The 0-based line of each rule's heading (`### rule-id`) in docs/rules.md. */
export function ruleHeadingLines(markdown: string): Map<string, number> {
  const lines = new Map<string, number>();
  markdown.split(/\r?\n/).forEach((line, i) => {
    const heading = /^###\s+([a-z][a-z0-9-]*)\s*$/.exec(line);
    if (heading && !lines.has(heading[1])) lines.set(heading[1], i);
  });
  return lines;
}
