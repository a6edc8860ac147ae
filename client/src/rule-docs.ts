// The rule documentation, offline and rendered: docs/rules.md is bundled into
// the extension (as text), served as a read-only document of our own scheme,
// and shown in VS Code's Markdown preview, scrolled to the rule's heading.
//
// Each diagnostic's code links to a document of its own per rule
// (`/rule/<id>#L<line>`). Wherever a link is clicked (the hover, the Problems
// panel, in any host) the workbench opens it as text: such a document, once in
// an editor, gives way to the rendered page at its rule. Its path has no `.md`,
// so it is no Markdown file a preview would follow. In a host without VS
// Code's Markdown preview the text stays, at the rule's heading.
import * as vscode from 'vscode';
import rulesMarkdown from '../../docs/rules.md';
import { ruleHeadingLines } from '../../server/src/engine/rules/docs';

const DOCS_SCHEME = 'flux-job-guard-docs';
/** The page the preview renders. */
const RULES_DOC = vscode.Uri.from({ scheme: DOCS_SCHEME, path: '/rules.md' });
/** The path of a rule's link. */
const RULE_LINK = /^\/rule\/([a-z][a-z0-9-]*)$/;
const HEADINGS = ruleHeadingLines(rulesMarkdown);

class RuleDocsProvider implements vscode.TextDocumentContentProvider {
  provideTextDocumentContent(): string {
    return rulesMarkdown;
  }
}

/** Rule id → the link to its docs (what the server puts in each diagnostic), at its heading when opened as text. */
export function ruleDocLinks(): Record<string, string> {
  return Object.fromEntries([...HEADINGS].map(([rule, line]) => [rule, vscode.Uri.from({ scheme: DOCS_SCHEME, path: `/rule/${rule}`, fragment: `L${line + 1}` }).toString()]));
}

/** The docs in the Markdown preview, scrolled to the rule's heading (`#rule-id`, the heading's anchor); false where the host has no preview. */
async function renderRuleDocs(rule: string | undefined): Promise<boolean> {
  try {
    await vscode.commands.executeCommand('markdown.showPreview', RULES_DOC.with({ fragment: rule ?? '' }));
    return true;
  } catch {
    return false;
  }
}

/** Opens the docs rendered, at a rule's heading when given one (the walkthrough's "Open the rule docs"); as text without a preview. */
export async function showRuleDocs(rule?: string): Promise<void> {
  const known = rule !== undefined && HEADINGS.has(rule) ? rule : undefined;
  if (await renderRuleDocs(known)) return;
  const line = known ? HEADINGS.get(known)! : 0;
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(RULES_DOC), { selection: new vscode.Range(line, 0, line, 0), preview: true });
}

/** A rule's link opened as text (its code clicked): the rendered page at that rule takes the text's place. */
async function renderLink(editor: vscode.TextEditor | undefined): Promise<void> {
  const uri = editor?.document.uri;
  const rule = uri?.scheme === DOCS_SCHEME ? RULE_LINK.exec(uri.path)?.[1] : undefined;
  if (!uri || !rule || !HEADINGS.has(rule) || !(await renderRuleDocs(rule))) return;
  const texts = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString());
  await vscode.window.tabGroups.close(texts);
}

export function registerRuleDocs(): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(DOCS_SCHEME, new RuleDocsProvider()),
    vscode.window.onDidChangeActiveTextEditor((editor) => void renderLink(editor)),
  );
}
