// The rule documentation, offline: docs/rules.md is bundled into the
// extension (as text) and shown as a read-only Markdown document of our own
// scheme. Each diagnostic's rule code links to that document at the rule's
// heading (`#L<line>`, which VS Code's link opener turns into a selection),
// so it opens in any host, desktop or browser, without a network.
import * as vscode from 'vscode';
import rulesMarkdown from '../../docs/rules.md';
import { ruleHeadingLines } from '../../server/src/engine/rules/docs';

export const DOCS_SCHEME = 'flux-job-guard-docs';
export const RULES_DOC = vscode.Uri.from({ scheme: DOCS_SCHEME, path: '/rules.md' });

class RuleDocsProvider implements vscode.TextDocumentContentProvider {
  provideTextDocumentContent(): string {
    return rulesMarkdown;
  }
}

/** Rule id → the link to its heading in the bundled docs (what the server puts in each diagnostic). */
export function ruleDocLinks(): Record<string, string> {
  return Object.fromEntries([...ruleHeadingLines(rulesMarkdown)].map(([rule, line]) => [rule, RULES_DOC.with({ fragment: `L${line + 1}` }).toString()]));
}

/** Opens the bundled docs, at a rule's heading when given one (the walkthrough's "Open the rule docs"). */
export async function showRuleDocs(rule?: string): Promise<void> {
  const line = rule ? ruleHeadingLines(rulesMarkdown).get(rule) : undefined;
  const document = await vscode.workspace.openTextDocument(RULES_DOC);
  const at = new vscode.Range(line ?? 0, 0, line ?? 0, 0);
  await vscode.window.showTextDocument(document, { selection: at, preview: true });
}

export function registerRuleDocs(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(DOCS_SCHEME, new RuleDocsProvider());
}
