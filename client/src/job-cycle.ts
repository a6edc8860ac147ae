// The command behind a Job's code lens: the explanation of the Job's cycle.
// Where the Job has a TTL, the hover on it says it all (and stays in step with
// the server); without one, the explanation as a message.
import * as vscode from 'vscode';
import type { ShowJobCycleArgs } from '../../server/src/shared/settings';

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
