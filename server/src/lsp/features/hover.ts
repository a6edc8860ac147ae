// Hover (a `${NAME}` Flux substitutes, a Job's TTL, a contract key),
// go-to-definition of a variable or of a dependsOn entry's name (the
// Kustomization or HelmRelease it names), and the preview of a file as Flux
// would render it.
import { Hover, Location, MarkupKind, Position } from 'vscode-languageserver';
import { LineIndex } from '../../engine/yaml/line-index';
import { Requests } from '../../shared/settings';
import { contractHover } from './contract-file';
import type { Workspace } from '../workspace';
import type { Diagnostics } from './diagnostics';
import type { Finding } from '../../engine/base/types';

/** The rules of the findings published at `position`: VS Code shows their messages with the hover. */
function rulesAt(findings: readonly Finding[], position: Position): Set<string> {
  const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return new Set(findings.filter(({ range }) => before(range.start, position) && before(position, range.end)).map((finding) => finding.rule));
}

export function registerHover(workspace: Workspace, diagnostics: Diagnostics): void {
  const { connection } = workspace;
  connection.onHover(async (params): Promise<Hover | null> => {
    const contract = await contractHover(workspace, params.textDocument.uri, params.position);
    if (contract) return contract;
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) return null;
    const { document, project, path, text } = context;
    const shown = rulesAt(diagnostics.publishedFor(params.textDocument.uri).findings, params.position);
    const hover = await project.hover(path, text, document.offsetAt(params.position), (file) => workspace.uriOf(project, file), shown);
    if (!hover) return null;
    return { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: { start: document.positionAt(hover.span[0]), end: document.positionAt(hover.span[1]) } };
  });

  connection.onDefinition(async (params): Promise<Location[]> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context) return [];
    const { document, project, path, text } = context;
    const locations: Location[] = [];
    for (const definition of project.definitions(path, text, document.offsetAt(params.position))) {
      const read = await project.fs.read(definition.file);
      if (read.kind !== 'text') continue;
      const lines = new LineIndex(read.text);
      locations.push(Location.create(workspace.uriOf(project, definition.file), lines.range(definition.span[0], definition.span[1])));
    }
    return locations;
  });

  // `text`: the source as the editor shows it now (the preview follows typing, and its request may
  // overtake the change notification that carries the same text).
  connection.onRequest(Requests.previewSubstitution, async (params: { uri: string; text?: string }): Promise<{ text: string }> => {
    const context = await workspace.documentContext(params.uri);
    if (!context) return { text: '# Flux Job Guard: open a YAML file of a workspace folder to preview it.' };
    return { text: context.project.preview(context.path, typeof params.text === 'string' ? params.text : context.text) };
  });
}
