// The commands behind a Job's code lens: the explanation of the Job's cycle.
// Where the Job has a TTL, the hover on it says it all (and stays in step with
// the server); without one, the explanation as a message. A lens that counts
// the Kustomizations applying the Job lists them as references.
import * as vscode from 'vscode';
import type { ShowJobCycleArgs, ShowReferencesArgs } from '../../server/src/shared/settings';

export async function showJobCycle(args: ShowJobCycleArgs): Promise<void> {
  if (!args.position) {
    void vscode.window.showInformationMessage(plainText(args.markdown));
    return;
  }
  const editor = await vscode.window.showTextDocument(vscode.Uri.parse(args.uri));
  const at = new vscode.Position(args.position.line, args.position.character);
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  await vscode.commands.executeCommand('editor.action.showHover');
}

/** A message box shows no Markdown: its emphasis and code marks go. */
function plainText(markdown: string): string {
  return markdown.replace(/\*\*|`/g, '').replace(/\n\n+/g, ' ');
}

/** The places in the peek view a references lens opens (its arguments arrive as JSON: made into VS Code's own types). */
export async function showReferences(args: ShowReferencesArgs): Promise<void> {
  const range = ({ start, end }: ShowReferencesArgs['locations'][number]['range']) => new vscode.Range(start.line, start.character, end.line, end.character);
  const locations = args.locations.map((location) => new vscode.Location(vscode.Uri.parse(location.uri), range(location.range)));
  await vscode.commands.executeCommand('editor.action.showReferences', vscode.Uri.parse(args.uri), new vscode.Position(args.position.line, args.position.character), locations);
}
