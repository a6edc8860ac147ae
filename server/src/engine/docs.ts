// Where each rule is documented for users (diagnostics link here).
export const DOCS_BASE = 'https://github.com/flux-job-guard/flux-job-guard/blob/main/docs/rules.md';

export function docsUrl(ruleId?: string): string {
  return ruleId ? `${DOCS_BASE}#${ruleId}` : DOCS_BASE;
}
