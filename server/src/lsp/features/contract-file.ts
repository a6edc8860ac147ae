// The contract file in the editor: key completion and hover from the
// contract's JSON Schema (engine/editor/contract-keys.ts; a key whose value
// is a closed list opens its values once chosen), and the Create Contract File
// command, which works in any LSP client: the server writes the
// file with workspace/applyEdit and shows it with window/showDocument.
import {
  CompletionItem,
  CompletionItemKind,
  CompletionList,
  CompletionParams,
  CompletionTriggerKind,
  ErrorCodes,
  ResponseError,
  CreateFile,
  Hover,
  MarkupKind,
  OptionalVersionedTextDocumentIdentifier,
  Range,
  TextDocumentEdit,
  TextEdit,
} from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import { newContractText } from '../../engine/contract/edit';
import { contractCompletions, contractKeyHover } from '../../engine/editor/contract-keys';
import { ServerCommands, type CreateContractResult } from '../../shared/settings';
import type { Project } from '../project';
import type { Workspace } from '../workspace';

/** VS Code's command that opens the completion list again (run by the editor after the item is inserted). */
const TRIGGER_SUGGEST = { title: 'Suggest the values', command: 'editor.action.triggerSuggest' };

export function contractCompletion(host: Workspace) {
  return async (params: CompletionParams): Promise<CompletionList | null> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context || context.path !== context.project.contract.path) return null;
    const { document } = context;
    // A space completes values only (`key: ` → its closed list); keys come as the user types letters,
    // not at every space of the indentation.
    const afterSpace = params.context?.triggerKind === CompletionTriggerKind.TriggerCharacter && params.context.triggerCharacter === ' ';
    const items = contractCompletions(document.getText(), document.offsetAt(params.position), (rule) => host.docLink(rule))
      .filter((item) => !afterSpace || item.kind === 'value')
      .map((item, i): CompletionItem => ({
        label: item.label,
        kind: item.kind === 'key' ? CompletionItemKind.Property : CompletionItemKind.EnumMember,
        documentation: item.documentation ? { kind: MarkupKind.Markdown, value: item.documentation } : undefined,
        textEdit: TextEdit.replace(Range.create(document.positionAt(item.replace[0]), document.positionAt(item.replace[1])), item.insertText),
        // `key: ` of a closed list: its values come at once, as Red Hat YAML (and VS Code's JSON) do it.
        command: item.chain ? TRIGGER_SUGGEST : undefined,
        // The schema's order (the order docs/contract.md explains the keys in), not the alphabet.
        sortText: String(i).padStart(4, '0'),
      }));
    return items.length > 0 ? { isIncomplete: false, items } : null;
  };
}

/** Hover on a key of the contract file (null elsewhere, so the other hovers can answer). */
export async function contractHover(host: Workspace, uri: string, position: { line: number; character: number }): Promise<Hover | null> {
  const context = await host.documentContext(uri);
  if (!context || context.path !== context.project.contract.path) return null;
  const { document } = context;
  const found = contractKeyHover(document.getText(), document.offsetAt(position), (rule) => host.docLink(rule));
  if (!found) return null;
  return { contents: { kind: MarkupKind.Markdown, value: found.markdown }, range: Range.create(document.positionAt(found.span[0]), document.positionAt(found.span[1])) };
}

/**
 * Creates the folder's contract file (header and a minimal body) unless it exists, then shows it.
 * An existing file is never written: it is shown as it is.
 */
async function createContract(host: Workspace, project: Project): Promise<CreateContractResult> {
  await project.whenReady();
  const path = project.contract.path;
  const uri = host.uriOf(project, path);
  const exists = (await project.fs.read(path)).kind !== 'missing';
  if (!exists) {
    const text = newContractText(project.settings.ttl.required);
    const applied = await host.connection.workspace.applyEdit({
      label: 'Create the Flux Job Guard contract file',
      edit: {
        documentChanges: [
          CreateFile.create(uri, { ignoreIfExists: true }),
          TextDocumentEdit.create(OptionalVersionedTextDocumentIdentifier.create(uri, null), [TextEdit.insert({ line: 0, character: 0 }, text)]),
        ],
      },
    });
    if (!applied.applied) throw new Error(`the editor did not create ${path}${applied.failureReason ? `: ${applied.failureReason}` : ''}`);
  }
  if (host.canShowDocument) await host.connection.window.showDocument({ uri, takeFocus: true });
  return { uri, created: !exists };
}

/** The Create Contract File command (its argument: the folder; default: the first). */
export function registerContractCommands(workspace: Workspace): void {
  workspace.connection.onExecuteCommand(async (params) => {
    if (params.command !== ServerCommands.createContract) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${params.command}`);
    const [folder] = (params.arguments ?? []) as Array<string | undefined>;
    const root = typeof folder === 'string' ? URI.parse(folder) : workspace.folders[0];
    if (!root) throw new ResponseError(ErrorCodes.InvalidParams, 'no workspace folder to create the contract file in');
    return createContract(workspace, await workspace.projectForRoot(root));
  });
}
