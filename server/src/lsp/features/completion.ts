// Completion: the contract file's keys and values (contract-file.ts), else
// the names a Flux Kustomization's or HelmRelease's dependsOn entry may give
// (the Kustomizations, resp. HelmReleases, of the repository), else the Flux
// variables after `${` (the names the Kustomizations that substitute this
// very text define, with value and origin), and in text a shell runs one more
// item that escapes what is typed to `$${…}` for the shell. A space completes
// only the contract's values and dependsOn names (after `name: ` or `- `).
import { CompletionItem, CompletionItemKind, CompletionList, CompletionParams, MarkupKind, Range, TextEdit } from 'vscode-languageserver';
import { variableCompletion } from '../../engine/editor/completion';
import { dependsOnCompletion } from '../../engine/editor/depends-on-completion';
import type { Workspace } from '../workspace';
import { contractCompletion } from './contract-file';

/** The trigger characters: `${` for variables, a space after `key:` in the contract file (its values) and after a dependsOn entry's `name:` or `- `. */
export const COMPLETION_TRIGGERS = ['{', '$', ' '];

export function registerCompletion(workspace: Workspace): void {
  const completeContract = contractCompletion(workspace);
  workspace.connection.onCompletion(async (params) => {
    const contract = await completeContract(params);
    if (contract) return contract;
    const names = await dependsOnNames(workspace, params);
    if (names || params.context?.triggerCharacter === ' ') return names;
    return variables(workspace, params);
  });
}

async function dependsOnNames(workspace: Workspace, params: CompletionParams): Promise<CompletionList | null> {
  const context = await workspace.documentContext(params.textDocument.uri);
  if (!context) return null;
  const { document, project, path, text } = context;
  const found = dependsOnCompletion(project.index, path, text, document.offsetAt(params.position));
  if (!found) return null;
  const range = Range.create(document.positionAt(found.replace[0]), document.positionAt(found.replace[1]));
  const items = found.candidates.map((candidate, i): CompletionItem => ({
    label: candidate.name,
    kind: CompletionItemKind.Reference,
    labelDetails: { description: candidate.namespace ?? undefined },
    detail: candidate.detail,
    // On a bare `- `, what is typed is matched against what the item writes.
    filterText: found.item ? `name: ${candidate.name}` : candidate.name,
    textEdit: TextEdit.replace(range, candidate.newText),
    additionalTextEdits: candidate.insert ? [TextEdit.insert(document.positionAt(candidate.insert.at), candidate.insert.text)] : undefined,
    // The engine's order: those in the entry's namespace first.
    sortText: String(i).padStart(4, '0'),
  }));
  return { isIncomplete: false, items };
}

async function variables(workspace: Workspace, params: CompletionParams): Promise<CompletionList | null> {
  const context = await workspace.documentContext(params.textDocument.uri);
  if (!context) return null;
  const { document, project, path, text } = context;
  const found = variableCompletion(project.index, project.contract, path, text, document.offsetAt(params.position));
  if (!found) return null;
  const range = Range.create(document.positionAt(found.replace[0]), document.positionAt(found.replace[1]));
  const items: CompletionItem[] = found.names.map((name) => ({
    label: name.name,
    kind: CompletionItemKind.Variable,
    labelDetails: { detail: ` = ${name.value}`, description: name.partial ? 'partly defined' : name.from },
    detail: [`${name.value} — ${name.from}`, name.differs, name.partial].filter(Boolean).join(' · '),
    documentation: { kind: MarkupKind.Markdown, value: name.documentation },
    textEdit: TextEdit.replace(range, name.name + (found.close ? '}' : '')),
    // Names every substituting Kustomization defines come first.
    sortText: `${name.partial ? 1 : 0}${name.name}`,
  }));
  if (found.escape) {
    // The name as the other items write it, and the `$` that escapes it before the `${`. Filtered
    // on `$${name`: a name typed matches it, but less well than a defined name it begins.
    const written = text.slice(found.replace[0], found.replace[1]);
    const dollar = document.positionAt(found.escape.dollar);
    items.push({
      label: found.escape.label,
      kind: CompletionItemKind.Text,
      // In the list's row too, where the names show their origin: the label alone says little.
      labelDetails: { description: found.escape.detail },
      detail: found.escape.detail,
      documentation: { kind: MarkupKind.Markdown, value: found.escape.documentation },
      filterText: `$\${${written}`,
      textEdit: TextEdit.replace(range, written + (found.close ? '}' : '')),
      additionalTextEdits: [TextEdit.insert(dollar, '$')],
      sortText: '2',
    });
  }
  return { isIncomplete: false, items };
}
