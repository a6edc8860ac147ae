// References and rename of a Flux variable: every definition and every use
// (engine/editor/variable-sites.ts), across the files the Kustomizations that
// substitute it build; else of a Flux Kustomization's or HelmRelease's name:
// its metadata.name and the dependsOn entries that name it
// (engine/editor/depends-on-sites.ts). Rename edits only the name's
// characters, versioned so a document that changed meanwhile refuses the edit.
import { ErrorCodes, Location, OptionalVersionedTextDocumentIdentifier, Range, ResponseError, TextDocumentEdit, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { objectSites, objectTargetAt } from '../../engine/editor/depends-on-sites';
import { prepareRename, rename } from '../../engine/editor/rename';
import { ReadText, VariableSite, variableSites, variableTargetAt } from '../../engine/editor/variable-sites';
import type { Project } from '../project';
import type { Workspace } from '../workspace';
import { locator, reader } from './locations';

export function registerVariables(workspace: Workspace): void {
  const { connection } = workspace;
  connection.onReferences(async (params): Promise<Location[]> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) return [];
    const { document, project, path, text } = context;
    const offset = document.offsetAt(params.position);
    const read = reader(project);
    const found = await sitesAt(project, path, text, offset, read);
    const rangeOf = locator(read);
    const locations: Location[] = [];
    for (const site of found) {
      if (site.definition && !params.context.includeDeclaration) continue;
      const range = await rangeOf(site.file, site.span);
      if (range) locations.push(Location.create(workspace.uriOf(project, site.file), range));
    }
    return locations;
  });

  connection.onPrepareRename(async (params) => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) return null;
    const { document, project, path, text } = context;
    const prepared = prepareRename(project.index, project.contract, path, text, document.offsetAt(params.position));
    if ('error' in prepared) throw new ResponseError(ErrorCodes.InvalidRequest, prepared.error);
    return { range: Range.create(document.positionAt(prepared.span[0]), document.positionAt(prepared.span[1])), placeholder: prepared.name };
  });

  connection.onRenameRequest(async (params): Promise<WorkspaceEdit> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) throw new ResponseError(ErrorCodes.InvalidRequest, 'Flux Job Guard does not handle this file.');
    const { document, project, path, text } = context;
    const read = reader(project);
    const renamed = await rename(project.index, project.contract, path, text, document.offsetAt(params.position), params.newName, read);
    if ('error' in renamed) throw new ResponseError(ErrorCodes.InvalidRequest, renamed.error);
    const rangeOf = locator(read);
    const byUri = new Map<string, TextEdit[]>();
    for (const edit of renamed.edits) {
      const range = await rangeOf(edit.file, edit.span);
      const uri = workspace.uriOf(project, edit.file);
      if (range) byUri.set(uri, [...(byUri.get(uri) ?? []), TextEdit.replace(range, edit.newText)]);
    }
    // Versioned: if a document changed since, the editor refuses the edit instead of misplacing it.
    const versionOf = (uri: string) => workspace.documents.get(uri)?.version ?? null;
    return { documentChanges: [...byUri].map(([uri, edits]) => TextDocumentEdit.create(OptionalVersionedTextDocumentIdentifier.create(uri, versionOf(uri)), edits)) };
  });
}

/** The sites of the variable at `offset`, else of the Kustomization or HelmRelease name there. */
async function sitesAt(project: Project, path: string, text: string, offset: number, read: ReadText): Promise<VariableSite[]> {
  const variable = variableTargetAt(project.index, project.contract, path, text, offset);
  if (variable) return (await variableSites(project.index, project.contract, variable, read)).sites;
  const object = objectTargetAt(project.index, path, text, offset);
  return object ? (await objectSites(object, path, text, read)).sites : [];
}
