// The language server's front door: it answers initialize with what the
// features offer and registers them, one module per feature (features/), all
// over one facade (workspace.ts: the documents, the folders and their
// Projects). Shared by the Node and browser builds: the platform supplies the
// connection and the way to read a folder.
//
//   diagnostics.ts    open documents analysed as the user types; the contract file's diagnostics
//   watched-files.ts  files changed on disk, settings changed
//   code-actions.ts   quick fixes, "Disable … for this line", fix-all
//   hover.ts          hover, go-to-definition (a variable, a dependsOn name), the substitution preview
//   completion.ts     contract keys and values, dependsOn names, Flux variables after `${`
//   contract-file.ts  contract completion and hover, the Create Contract File command
//   variables.ts      references and rename of a Flux variable, or of a Kustomization's or HelmRelease's name
//   inlay-hints.ts    what Flux writes for each `${…}`
//   job-lenses.ts     the lens over each Job
//   symbols.ts        the outline, workspace symbols
//   audit.ts          the workspace audit and its status
import { CodeLensRefreshRequest, Connection, DidChangeConfigurationNotification, InitializeParams, InitializeResult, InlayHintRefreshRequest, TextDocumentSyncKind } from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import { InitializationOptions, Notifications, SECTION, ServerCommands } from '../shared/settings';
import { AuditStatus } from './audit-status';
import { auditFolder, registerAudit } from './features/audit';
import { CODE_ACTION_KINDS, registerCodeActions } from './features/code-actions';
import { COMPLETION_TRIGGERS, registerCompletion } from './features/completion';
import { registerContractCommands } from './features/contract-file';
import { Diagnostics } from './features/diagnostics';
import { registerHover } from './features/hover';
import { registerInlayHints } from './features/inlay-hints';
import { registerJobLenses } from './features/job-lenses';
import { ResourceCaches } from './features/resource-caches';
import { registerSymbols } from './features/symbols';
import { registerVariables } from './features/variables';
import { registerWatchedFiles } from './features/watched-files';
import { Platform, Workspace } from './workspace';

export function startServer(connection: Connection, platform: Platform): void {
  const status: AuditStatus = new AuditStatus(
    (root, changed) => auditFolder(workspace, diagnostics, root, changed),
    (params) => void connection.sendNotification(Notifications.status, params),
    (message) => connection.console.log(message),
    () => diagnostics.problemCounts(),
  );
  const workspace = new Workspace(connection, platform, (work) => status.track(work));
  const diagnostics = new Diagnostics(
    workspace,
    () => refreshViews(workspace),
    (root, path) => status.changed(root, path),
    () => status.shown(),
  );
  const caches = new ResourceCaches(workspace.documents);
  registerVariables(workspace);
  registerInlayHints(workspace);
  registerJobLenses(workspace, caches);
  registerSymbols(workspace, caches);

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const { capabilities } = params;
    workspace.canPullConfiguration = capabilities.workspace?.configuration === true;
    workspace.hasWorkspaceFolders = capabilities.workspace?.workspaceFolders === true;
    const options = (params.initializationOptions ?? {}) as InitializationOptions;
    workspace.trusted = options.trusted === true;
    workspace.ruleDocs = options.ruleDocs && typeof options.ruleDocs === 'object' ? options.ruleDocs : {};
    workspace.canShowDocument = capabilities.window?.showDocument?.support === true;
    workspace.refreshes = { inlayHints: capabilities.workspace?.inlayHint?.refreshSupport === true, codeLenses: capabilities.workspace?.codeLens?.refreshSupport === true };
    workspace.folders = (params.workspaceFolders ?? []).map((folder) => URI.parse(folder.uri));
    if (workspace.folders.length === 0 && params.rootUri) workspace.folders = [URI.parse(params.rootUri)];
    return {
      capabilities: {
        // Saves matter: a syntax finding held while typing shows, and an audited folder is audited again.
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: CODE_ACTION_KINDS },
        hoverProvider: true,
        definitionProvider: true,
        completionProvider: { triggerCharacters: COMPLETION_TRIGGERS, resolveProvider: false },
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        inlayHintProvider: true,
        codeLensProvider: { resolveProvider: true },
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
        executeCommandProvider: { commands: [ServerCommands.createContract] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'flux-job-guard' },
    };
  });

  connection.onInitialized(() => {
    if (workspace.canPullConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: SECTION });
    if (workspace.hasWorkspaceFolders)
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        for (const removed of event.removed) {
          workspace.projects.delete(URI.parse(removed.uri).toString());
          status.forget(URI.parse(removed.uri).toString());
        }
        workspace.folders = workspace.folders.filter((folder) => !event.removed.some((removed) => URI.parse(removed.uri).toString() === folder.toString()));
        workspace.folders.push(...event.added.map((added) => URI.parse(added.uri)));
      });
    diagnostics.publishFolders(workspace.folders);
  });

  diagnostics.register();
  registerWatchedFiles(workspace, diagnostics, status);
  registerCodeActions(workspace, diagnostics);
  registerCompletion(workspace);
  registerContractCommands(workspace);
  registerHover(workspace, diagnostics);
  registerAudit(workspace, status);

  workspace.documents.listen(connection);
  connection.listen();
}

/** Other files changed what hints, lenses and previews say (a variable's value, a Kustomization's interval): the client asks again. */
function refreshViews(workspace: Workspace): void {
  void workspace.connection.sendNotification(Notifications.viewsChanged);
  if (workspace.refreshes.inlayHints) void workspace.connection.sendRequest(InlayHintRefreshRequest.type);
  if (workspace.refreshes.codeLenses) void workspace.connection.sendRequest(CodeLensRefreshRequest.type);
}
