// The VS Code side, shared by the desktop and browser builds: a thin client
// that starts the server, forwards settings and file events, and offers the
// commands. All analysis lives in the server.
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient';
import type { BaseLanguageClient, LanguageClientOptions } from 'vscode-languageclient';
import {
  AuditFolderSummary,
  AuditResponse,
  CreateContractResult,
  InitializationOptions,
  Notifications,
  Requests,
  REVEAL_REASON,
  SECTION,
  ServerCommands,
  SHOW_JOB_CYCLE,
  SHOW_REFERENCES,
  StatusParams,
} from '../../server/src/shared/settings';
import { showJobCycle, showReferences } from './job-cycle';
import { PREVIEW_SCHEME, SubstitutionPreview } from './preview';
import { registerRuleDocs, ruleDocLinks, showRuleDocs } from './rule-docs';
import { restartPolicy } from './restart-policy';
import { revealReason } from './reveal-reason';
import { StatusItem, StatusSnapshot } from './status';

export const OUTPUT_NAME = 'Flux Job Guard';

export const Commands = {
  audit: 'fluxJobGuard.auditWorkspace',
  showOutput: 'fluxJobGuard.showOutput',
  restart: 'fluxJobGuard.restartServer',
  previewSubstitution: 'fluxJobGuard.previewSubstitution',
  createContract: 'fluxJobGuard.createContract',
  showRuleDocs: 'fluxJobGuard.showRuleDocs',
} as const;

/** Where workspace files live: on disk, in vscode.dev/github.dev, in the web test host. */
const WORKSPACE_SCHEMES = ['file', 'vscode-vfs', 'vscode-test-web'];

export type ClientFactory = (options: LanguageClientOptions, output: vscode.LogOutputChannel) => BaseLanguageClient;

export interface ExtensionApi {
  client: () => BaseLanguageClient;
  output: vscode.LogOutputChannel;
  /** The summary of the last audit, one line per folder. */
  lastAuditSummary: () => string[];
  /** Every state the language status item has shown, oldest first. */
  statusHistory: () => StatusSnapshot[];
}

export async function activateWith(context: vscode.ExtensionContext, createClient: ClientFactory): Promise<ExtensionApi> {
  const output = vscode.window.createOutputChannel(OUTPUT_NAME, { log: true });
  const status = new StatusItem(Commands.audit);

  const initializationOptions = (): InitializationOptions => ({ trusted: vscode.workspace.isTrusted, ruleDocs: ruleDocLinks() });
  const options: LanguageClientOptions = {
    // YAML, and any file of the workspace: a script, an env or config file that a kustomize
    // generator reads is substituted by Flux too. The server answers only for files its model
    // says Flux builds (as vscode-eslint probes files), so other documents cost a lookup.
    documentSelector: [{ language: 'yaml' }, ...WORKSPACE_SCHEMES.map((scheme) => ({ scheme, pattern: '**/*' }))],
    synchronize: {
      configurationSection: SECTION,
      // Any file can be a generator input or a .sourceignore.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*'),
    },
    outputChannel: output,
    traceOutputChannel: output,
    diagnosticCollectionName: 'flux-job-guard',
    // The server reads git (job-immutable-template) only in a trusted workspace; diagnostics link
    // to the bundled rule docs.
    initializationOptions,
    errorHandler: restartPolicy(OUTPUT_NAME),
  };
  let client: BaseLanguageClient;
  const preview = new SubstitutionPreview(() => client);
  const startClient = async () => {
    status.starting();
    client = createClient(options, output);
    client.onNotification(Notifications.status, (params: StatusParams) => status.update(params));
    client.onNotification(Notifications.viewsChanged, () => preview.refreshAll());
    await client.start();
  };

  const runAudit = async () => {
    // The server logs the audit's one line (version, contract, counts, timing) and reports it to the status item.
    const response = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Flux Job Guard: auditing the workspace…' }, () =>
      client.sendRequest<AuditResponse>(Requests.audit, {}),
    );
    const lines = response.folders.map((folder) => `${vscode.Uri.parse(folder.folder).path.split('/').pop()}: ${auditOutcome(folder)}`);
    const failed = response.folders.some((folder) => folder.errors > 0);
    const show = failed ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    void show(lines.join('\n') || 'Flux Job Guard: no workspace folder to audit.', 'Open Problems').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
    return response;
  };

  const createContract = async (): Promise<CreateContractResult | undefined> => {
    const folder = await pickFolder();
    if (!folder) return undefined;
    // The server writes the file (workspace/applyEdit) and shows it (window/showDocument); an edit
    // that creates a file leaves its text unsaved, and a contract is read from the disk too.
    const result = (await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.createContract, arguments: [folder.uri.toString()] })) as CreateContractResult;
    if (result.created) {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(result.uri));
      if (document.isDirty) await document.save();
    }
    return result;
  };

  context.subscriptions.push(
    output,
    status,
    preview,
    registerRuleDocs(),
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, preview),
    vscode.commands.registerCommand(Commands.previewSubstitution, async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return void vscode.window.showInformationMessage('Flux Job Guard: open a YAML file to preview its Flux substitution.');
      return preview.show(editor.document.uri);
    }),
    vscode.commands.registerCommand(Commands.audit, runAudit),
    vscode.commands.registerCommand(Commands.createContract, createContract),
    vscode.commands.registerCommand(Commands.showRuleDocs, (rule?: string) => showRuleDocs(typeof rule === 'string' ? rule : undefined)),
    vscode.commands.registerCommand(SHOW_JOB_CYCLE, showJobCycle),
    vscode.commands.registerCommand(SHOW_REFERENCES, showReferences),
    vscode.commands.registerCommand(REVEAL_REASON, revealReason),
    vscode.commands.registerCommand(Commands.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(Commands.restart, async () => {
      output.info('Restarting the Flux Job Guard server');
      await client.stop();
      await startClient();
    }),
    { dispose: () => void client.stop() },
    vscode.workspace.onDidGrantWorkspaceTrust(() => vscode.commands.executeCommand(Commands.restart)),
  );
  await startClient();
  return { client: () => client, output, lastAuditSummary: () => status.summaryLines(), statusHistory: () => [...status.history] };
}

/** The folder a command is for: the active file's, the only one, or the one the user picks. */
async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const owner = active && vscode.workspace.getWorkspaceFolder(active);
  if (owner) return owner;
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) {
    if (folders.length === 0) void vscode.window.showInformationMessage('Flux Job Guard: open a folder to create its contract file.');
    return folders[0];
  }
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder whose contract file to create' });
}

/**
 * One folder's audit for the toast: the counts and the files that hold them, as the Problems panel
 * shows them (the CLI's closing line counts the files audited instead), then what was audited.
 */
function auditOutcome(folder: AuditFolderSummary): string {
  if (folder.errors + folder.warnings === 0) return folder.summaryLine;
  return `${folder.errors} error(s), ${folder.warnings} warning(s) in ${folder.filesWithProblems} file(s); ${folder.jobs} Job(s) in ${folder.files} file(s) audited`;
}
