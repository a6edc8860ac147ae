// Symbols: the outline of a file, one symbol per Kubernetes object (kind and name),
// and workspace symbols (the Jobs the tool checks and every Flux Kustomization
// of every enabled folder, at most MAX_SYMBOLS).
import { DocumentSymbol, Range, SymbolInformation, SymbolKind } from 'vscode-languageserver';
import { isYamlText } from '../../engine/editor/substituted-text';
import { JobSymbols, kustomizationSymbols, MAX_SYMBOLS, WorkspaceSymbolItem } from '../../engine/editor/workspace-symbols';
import type { Project } from '../project';
import type { Workspace } from '../workspace';
import { locator, reader } from './locations';
import type { ResourceCaches } from './resource-caches';

export function registerSymbols(workspace: Workspace, caches: ResourceCaches): void {
  const { connection } = workspace;
  const jobSymbols = new WeakMap<Project, JobSymbols>();

  connection.onDocumentSymbol(async (params): Promise<DocumentSymbol[]> => {
    const context = await workspace.documentContext(params.textDocument.uri);
    if (!context || !isYamlText(context.path)) return [];
    const { document, text } = context;
    const resources = caches.of(params.textDocument.uri).resources.of(text);
    // Every object, a file of one too: Go to Symbol (Ctrl+Shift+O) finds it, and the outline merges
    // these with a YAML extension's own keys.
    const range = (span: [number, number]) => Range.create(document.positionAt(span[0]), document.positionAt(span[1]));
    return resources.map((resource) =>
      DocumentSymbol.create(`${resource.kind} ${resource.name ?? '(no name)'}`, resource.apiVersion ?? undefined, symbolKind(resource.kind), range(resource.span), range(resource.selectionSpan)),
    );
  });

  connection.onWorkspaceSymbol(async (params): Promise<SymbolInformation[]> => {
    const symbols: SymbolInformation[] = [];
    for (const project of workspace.projects.values()) {
      if (!project.settings.enable) continue;
      await project.whenReady();
      const read = reader(project);
      let jobs = jobSymbols.get(project);
      if (!jobs) jobSymbols.set(project, (jobs = new JobSymbols()));
      const items: WorkspaceSymbolItem[] = [...kustomizationSymbols(project.index, params.query), ...(await jobs.find(project.index, project.contract, params.query, read))];
      const rangeOf = locator(read);
      for (const item of items.slice(0, MAX_SYMBOLS - symbols.length)) {
        const range = item.range ?? (await rangeOf(item.file, item.span));
        if (range) symbols.push(SymbolInformation.create(item.name, item.kind === 'Job' ? SymbolKind.Event : SymbolKind.Module, range, workspace.uriOf(project, item.file), item.container));
      }
    }
    return symbols;
  });
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
