// The VS Code side, shared by the desktop and browser builds: a thin client
// that starts the server, forwards settings and file events, and offers the
// commands. All analysis lives in the server.
import * as vscode from 'vscode';
import type { BaseLanguageClient, LanguageClientOptions } from 'vscode-languageclient';
import { AuditResponse, Requests, SECTION, SHOW_JOB_CYCLE } from '../../server/src/shared/settings';
import { showJobCycle } from './job-cycle';

export const OUTPUT_NAME = 'Flux Job Guard';

export const Commands = {
  audit: 'fluxJobGuard.auditWorkspace',
  showOutput: 'fluxJobGuard.showOutput',
  restart: 'fluxJobGuard.restartServer',
  previewSubstitution: 'fluxJobGuard.previewSubstitution',
} as const;

const PREVIEW_SCHEME = 'flux-job-guard-preview';

/** Where workspace files live: on disk, in vscode.dev/github.dev, in the web test host. */
const WORKSPACE_SCHEMES = ['file', 'vscode-vfs', 'vscode-test-web'];

/** Read-only documents that show a file as Flux would render it (the server computes the text). */
class PreviewProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  constructor(private readonly client: () => BaseLanguageClient) {}
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const response = await this.client().sendRequest<{ text: string }>(Requests.previewSubstitution, { uri: uri.query });
    return response.text;
  }
}

export type ClientFactory = (options: LanguageClientOptions, output: vscode.LogOutputChannel) => BaseLanguageClient;

export interface ExtensionApi {
  client: () => BaseLanguageClient;
  output: vscode.LogOutputChannel;
  /** The summary of the last audit, one line per folder. */
  lastAuditSummary: () => string[];
}

export async function activateWith(context: vscode.ExtensionContext, createClient: ClientFactory): Promise<ExtensionApi> {
  const output = vscode.window.createOutputChannel(OUTPUT_NAME, { log: true });
  const status = vscode.languages.createLanguageStatusItem('fluxJobGuard.status', { language: 'yaml' });
  status.name = 'Flux Job Guard';
  status.text = 'Flux Job Guard';
  status.detail = 'no audit yet';
  status.command = { title: 'Audit Workspace', command: Commands.audit };
  let lastSummary: string[] = [];

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
    // The server reads git (job-immutable-template) only in a trusted workspace.
    initializationOptions: () => ({ trusted: vscode.workspace.isTrusted }),
  };
  let client = createClient(options, output);

  const runAudit = async () => {
    const response = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Flux Job Guard: auditing the workspace…' },
      () => client.sendRequest<AuditResponse>(Requests.audit, {}),
    );
    lastSummary = response.folders.map((folder) => `${vscode.Uri.parse(folder.folder).path.split('/').pop()}: ${folder.summaryLine}`);
    for (const line of lastSummary) output.info(line);
    const failed = response.folders.some((folder) => folder.errors > 0);
    status.severity = failed ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    status.text = failed ? 'Flux Job Guard: FAIL' : 'Flux Job Guard: ok';
    status.detail = lastSummary.join(' · ');
    const show = failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(lastSummary.join('\n') || 'Flux Job Guard: no workspace folder to audit.', 'Open Problems').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
    return response;
  };

  const previews = new PreviewProvider(() => client);
  context.subscriptions.push(
    output,
    status,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
    vscode.commands.registerCommand(Commands.previewSubstitution, async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return void vscode.window.showInformationMessage('Flux Job Guard: open a YAML file to preview its Flux substitution.');
      const source = editor.document.uri;
      const preview = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${source.path.split('/').pop()} (as Flux renders it)`, query: source.toString() });
      previews.refresh(preview);
      const document = await vscode.workspace.openTextDocument(preview);
      await vscode.languages.setTextDocumentLanguage(document, 'yaml');
      await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }),
    vscode.commands.registerCommand(Commands.audit, runAudit),
    vscode.commands.registerCommand(SHOW_JOB_CYCLE, showJobCycle),
    vscode.commands.registerCommand(Commands.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(Commands.restart, async () => {
      output.info('Restarting the Flux Job Guard server');
      await client.stop();
      client = createClient(options, output);
      await client.start();
    }),
    { dispose: () => void client.stop() },
    vscode.workspace.onDidGrantWorkspaceTrust(() => vscode.commands.executeCommand(Commands.restart)),
  );
  await client.start();
  return { client: () => client, output, lastAuditSummary: () => lastSummary };
}
