// Flux variables as symbols, and the outline of a repository: thin LSP
// handlers over the editor services (engine/services/): completion after
// `${`, references and rename of a variable, inlay hints with the values
// Flux substitutes, a code lens on every Job, document and workspace symbols.
// server.ts registers them with one call and declares what they return.
import {
  CodeLens,
  CodeLensRefreshRequest,
  CompletionItem,
  CompletionItemKind,
  CompletionList,
  CompletionParams,
  Connection,
  DocumentSymbol,
  ErrorCodes,
  InitializeParams,
  InlayHint,
  InlayHintRefreshRequest,
  Location,
  MarkupKind,
  OptionalVersionedTextDocumentIdentifier,
  Range,
  ResponseError,
  ServerCapabilities,
  SymbolInformation,
  SymbolKind,
  TextDocumentEdit,
  TextDocuments,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { LineIndex } from '../engine/yaml/line-index';
import { variableCompletion } from '../engine/editor/completion';
import { plainLink } from '../engine/editor/link';
import { inlayHints } from '../engine/editor/inlay-hints';
import { jobCycleExplanation, jobLenses } from '../engine/editor/job-lens';
import { prepareVariableRename, renameVariable } from '../engine/editor/rename';
import { ChunkCache, MAY_BE_JOB, ResourceFacts, resourcesIn } from '../engine/editor/resource-facts';
import { isYamlText } from '../engine/editor/substituted-text';
import { ReadText, variableSites, variableTargetAt } from '../engine/editor/variable-sites';
import { JobSymbols, kustomizationSymbols, MAX_SYMBOLS, WorkspaceSymbolItem } from '../engine/editor/workspace-symbols';
import { SHOW_JOB_CYCLE, ShowJobCycleArgs } from '../shared/settings';
import type { Project } from './project';

/** What the handlers need of the server: its documents, projects and paths. */
export interface SymbolHost {
  documents: TextDocuments<TextDocument>;
  documentContext(uri: string): Promise<{ document: TextDocument; project: Project; path: string; text: string } | null>;
  uriOf(project: Project, path: string): string;
  projects(): Iterable<Project>;
}

interface LensData {
  uri: string;
  offset: number;
}

export function registerSymbolFeatures(connection: Connection, host: SymbolHost) {
  let refreshes = { inlayHints: false, codeLenses: false };
  /** Per open document: its Jobs, and all its resources (for the outline), cached by document content. */
  const caches = new Map<string, { jobs: ChunkCache<ResourceFacts>; resources: ChunkCache<ResourceFacts> }>();
  const jobSymbols = new WeakMap<Project, JobSymbols>();
  const cachesOf = (uri: string) => {
    let cache = caches.get(uri);
    if (!cache) caches.set(uri, (cache = { jobs: new ChunkCache(resourcesIn, (text) => MAY_BE_JOB.test(text)), resources: new ChunkCache(resourcesIn) }));
    return cache;
  };
  host.documents.onDidClose((event) => caches.delete(event.document.uri));

  /**
   * Reads files as the editor has them. Not remembered: a search for a variable reads every file
   * its Kustomizations build, and keeps none of them (the locator keeps what it needs).
   */
  const reader =
    (project: Project): ReadText =>
    async (path) => {
      const read = await project.fs.read(path);
      return read.kind === 'text' ? read.text : undefined;
    };

  /** Spans in repository files as LSP ranges (each file read once per request). */
  const locator = (project: Project, read: ReadText) => {
    const lines = new Map<string, LineIndex | null>();
    return async (file: string, span: [number, number]): Promise<Range | null> => {
      if (!lines.has(file)) {
        const text = await read(file);
        lines.set(file, text === undefined ? null : new LineIndex(text));
      }
      return lines.get(file)?.range(span[0], span[1]) ?? null;
    };
  };

  // ---- completion -----------------------------------------------------------

  // Registered by server.ts, which asks the contract file's completion first.
  const completion = async (params: CompletionParams): Promise<CompletionList | null> => {
    const context = await host.documentContext(params.textDocument.uri);
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
        detail: 'Leave it to the shell: Flux writes $${…} as ${…}',
        filterText: `$\${${written}`,
        textEdit: TextEdit.replace(range, written + (found.close ? '}' : '')),
        additionalTextEdits: [TextEdit.insert(dollar, '$')],
        sortText: '2',
      });
    }
    return { isIncomplete: false, items };
  };

  // ---- references and rename --------------------------------------------------

  connection.onReferences(async (params): Promise<Location[]> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context) return [];
    const { document, project, path, text } = context;
    const target = variableTargetAt(project.index, project.contract, path, text, document.offsetAt(params.position));
    if (!target) return [];
    const read = reader(project);
    const found = await variableSites(project.index, project.contract, target, read);
    const rangeOf = locator(project, read);
    const locations: Location[] = [];
    for (const site of found.sites) {
      if (site.definition && !params.context.includeDeclaration) continue;
      const range = await rangeOf(site.file, site.span);
      if (range) locations.push(Location.create(host.uriOf(project, site.file), range));
    }
    return locations;
  });

  connection.onPrepareRename(async (params) => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context) return null;
    const { document, project, path, text } = context;
    const prepared = prepareVariableRename(project.index, project.contract, path, text, document.offsetAt(params.position));
    if ('error' in prepared) throw new ResponseError(ErrorCodes.InvalidRequest, prepared.error);
    return { range: Range.create(document.positionAt(prepared.span[0]), document.positionAt(prepared.span[1])), placeholder: prepared.name };
  });

  connection.onRenameRequest(async (params): Promise<WorkspaceEdit> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context) throw new ResponseError(ErrorCodes.InvalidRequest, 'Flux Job Guard does not handle this file.');
    const { document, project, path, text } = context;
    const read = reader(project);
    const renamed = await renameVariable(project.index, project.contract, path, text, document.offsetAt(params.position), params.newName, read);
    if ('error' in renamed) throw new ResponseError(ErrorCodes.InvalidRequest, renamed.error);
    const rangeOf = locator(project, read);
    const byUri = new Map<string, TextEdit[]>();
    for (const edit of renamed.edits) {
      const range = await rangeOf(edit.file, edit.span);
      const uri = host.uriOf(project, edit.file);
      if (range) byUri.set(uri, [...(byUri.get(uri) ?? []), TextEdit.replace(range, edit.newText)]);
    }
    // Versioned: if a document changed since, the editor refuses the edit instead of misplacing it.
    const versionOf = (uri: string) => host.documents.get(uri)?.version ?? null;
    return { documentChanges: [...byUri].map(([uri, edits]) => TextDocumentEdit.create(OptionalVersionedTextDocumentIdentifier.create(uri, versionOf(uri)), edits)) };
  });

  // ---- inlay hints ------------------------------------------------------------

  connection.languages.inlayHint.on(async (params): Promise<InlayHint[]> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context || !context.project.settings.inlayHints.enabled) return [];
    const { document, project, path, text } = context;
    const hints = inlayHints(project.index, project.contract, path, text, document.offsetAt(params.range.start), document.offsetAt(params.range.end));
    return hints.map((hint) => ({ position: document.positionAt(hint.offset), label: hint.label, paddingLeft: true, tooltip: { kind: MarkupKind.Markdown, value: hint.tooltip } }));
  });

  // ---- code lenses --------------------------------------------------------------

  const lensesOf = (context: { project: Project; path: string; text: string; document: TextDocument }) =>
    isYamlText(context.path) && MAY_BE_JOB.test(context.text) ? jobLenses(context.project.index, context.project.contract, context.path, cachesOf(context.document.uri).jobs.of(context.text)) : [];

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context) return [];
    return lensesOf(context).map((lens) => {
      const at = context.document.positionAt(lens.span[0]);
      const data: LensData = { uri: params.textDocument.uri, offset: lens.span[0] };
      return { range: Range.create(at, at), data };
    });
  });

  connection.onCodeLensResolve(async (codeLens): Promise<CodeLens> => {
    const data = codeLens.data as LensData;
    const context = await host.documentContext(data.uri);
    const lens = context ? lensesOf(context).find((candidate) => candidate.span[0] === data.offset) : undefined;
    if (!context || !lens) return { ...codeLens, command: { title: 'Flux Job Guard: the file changed, the lens will be redrawn', command: '' } };
    const args: ShowJobCycleArgs = {
      uri: data.uri,
      position: lens.ttlKeySpan ? context.document.positionAt(lens.ttlKeySpan[0]) : null,
      // `file:line`: the client shows it in a message when there is no TTL hover to show.
      markdown: jobCycleExplanation(
        context.project.index,
        context.project.contract,
        context.path,
        context.text,
        lens,
        plainLink(() => undefined),
      ),
    };
    return { ...codeLens, command: { title: lens.title, command: SHOW_JOB_CYCLE, arguments: [args] } };
  });

  // ---- document and workspace symbols --------------------------------------------

  connection.onDocumentSymbol(async (params): Promise<DocumentSymbol[]> => {
    const context = await host.documentContext(params.textDocument.uri);
    if (!context || !isYamlText(context.path)) return [];
    const { document, text } = context;
    const resources = cachesOf(params.textDocument.uri).resources.of(text);
    // One resource is the file itself: the outline is for files of several.
    if (resources.length < 2) return [];
    const range = (span: [number, number]) => Range.create(document.positionAt(span[0]), document.positionAt(span[1]));
    return resources.map((resource) =>
      DocumentSymbol.create(`${resource.kind} ${resource.name ?? '(no name)'}`, resource.apiVersion ?? undefined, symbolKind(resource.kind), range(resource.span), range(resource.selectionSpan)),
    );
  });

  connection.onWorkspaceSymbol(async (params): Promise<SymbolInformation[]> => {
    const symbols: SymbolInformation[] = [];
    for (const project of host.projects()) {
      if (!project.settings.enable) continue;
      await project.whenReady();
      const read = reader(project);
      let jobs = jobSymbols.get(project);
      if (!jobs) jobSymbols.set(project, (jobs = new JobSymbols()));
      const items: WorkspaceSymbolItem[] = [...kustomizationSymbols(project.index, params.query), ...(await jobs.find(project.index, project.contract, params.query, read))];
      const rangeOf = locator(project, read);
      for (const item of items.slice(0, MAX_SYMBOLS - symbols.length)) {
        const range = item.range ?? (await rangeOf(item.file, item.span));
        if (range) symbols.push(SymbolInformation.create(item.name, item.kind === 'Job' ? SymbolKind.Event : SymbolKind.Module, range, host.uriOf(project, item.file), item.container));
      }
    }
    return symbols;
  });

  return {
    completion,
    /** What these handlers offer (merged into the server's capabilities); notes whether the client can be told to refresh. */
    capabilities(params: InitializeParams): ServerCapabilities {
      refreshes = { inlayHints: params.capabilities.workspace?.inlayHint?.refreshSupport === true, codeLenses: params.capabilities.workspace?.codeLens?.refreshSupport === true };
      return {
        completionProvider: { triggerCharacters: ['{', '$'], resolveProvider: false },
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        inlayHintProvider: true,
        codeLensProvider: { resolveProvider: true },
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
      };
    },
    /** Other files changed what hints and lenses say (a variable's value, a Kustomization's interval): the client asks again. */
    refresh(): void {
      if (refreshes.inlayHints) void connection.sendRequest(InlayHintRefreshRequest.type);
      if (refreshes.codeLenses) void connection.sendRequest(CodeLensRefreshRequest.type);
    },
  };
}

/** The outline's icon for a resource kind. */
function symbolKind(kind: string): SymbolKind {
  switch (kind) {
    case 'Job':
    case 'CronJob':
      return SymbolKind.Event;
    case 'Kustomization':
    case 'HelmRelease':
      return SymbolKind.Module;
    case 'ConfigMap':
    case 'Secret':
    case 'ExternalSecret':
      return SymbolKind.Constant;
    case 'Namespace':
      return SymbolKind.Namespace;
    case 'GitRepository':
    case 'OCIRepository':
    case 'HelmRepository':
    case 'Bucket':
      return SymbolKind.Package;
    case 'CustomResourceDefinition':
      return SymbolKind.Struct;
    default:
      return SymbolKind.Object;
  }
}
