// The command a fix that writes the contract runs after its edit: the contract
// opens with the placeholder reason selected, ready to be replaced (the fix
// alone would leave the edit unseen in a background document).
import * as vscode from 'vscode';
import type { RevealReasonArgs } from '../../server/src/shared/settings';

export async function revealReason(args: RevealReasonArgs): Promise<void> {
  const editor = await vscode.window.showTextDocument(vscode.Uri.parse(args.uri), { preview: false });
  const { start, end } = args.range;
  editor.selection = new vscode.Selection(start.line, start.character, end.line, end.character);
  editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
