// Inlay hints: after each `${…}` Flux substitutes, what Flux writes there (a
// Secret's value never), or that it blanks or fails it; after `$$`, what the
// shell gets. Only the range the editor asks for is analysed.
import { InlayHint, MarkupKind } from 'vscode-languageserver';
import { inlayHints } from '../../engine/editor/inlay-hints';
import type { Workspace } from '../workspace';

export function registerInlayHints(workspace: Workspace): void {
  workspace.connection.languages.inlayHint.on(async (params): Promise<InlayHint[]> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context || !context.project.settings.inlayHints.enabled) return [];
    const { document, project, path, text } = context;
    const hints = inlayHints(project.index, project.contract, path, text, document.offsetAt(params.range.start), document.offsetAt(params.range.end));
    return hints.map((hint) => ({ position: document.positionAt(hint.offset), label: hint.label, paddingLeft: true, tooltip: { kind: MarkupKind.Markdown, value: hint.tooltip } }));
  });
}
