// The language server: thin LSP handlers over the engine (see project.ts).
// It analyses open YAML files as the user types, keeps the contract file's
// diagnostics in step with the manifests it names, serves quick fixes, and
// runs the workspace audit on request. Shared by the Node and browser builds:
// the platform supplies the connection and the way to read a folder.
import {
  CodeAction,
  CodeActionKind,
  CodeActionParams,
  Connection,
  Diagnostic,
  DidChangeConfigurationNotification,
  FileChangeType,
  InitializeParams,
  InitializeResult,
  Hover,
  Location,
  MarkupKind,
  ResponseError,
  ErrorCodes,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
import { LineIndex } from '../engine/yaml/line-index';
import { FIX_ALL_KIND, fixAllEdit } from './fix-all';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI, Utils } from 'vscode-uri';
import { sortFindings } from '../engine/pipeline/audit';
import { withDisableFixes } from '../engine/pipeline/directives';
import type { RepoFs } from '../engine/base/repo-fs';
import type { HeadReader } from '../engine/pipeline/repo-analysis';
import { auditLogLine, summaryLine } from '../engine/pipeline/summary-line';
import type { Finding } from '../engine/base/types';
import { holdWhileTyping, RecentEdit } from '../engine/editor/typing-hold';
import { AuditFolderSummary, AuditResponse, DEFAULT_SETTINGS, FluxJobGuardSettings, InitializationOptions, Notifications, Requests, SECTION, ServerCommands, withDefaults } from '../shared/settings';
import { VERSION } from '../shared/version';
import { AuditStatus } from './audit-status';
import { ContractHost, contractCompletion, contractHover, createContract } from './contract-file';
import { sameDiagnostic, toCodeAction, toDiagnostic, toWorkspaceEdit } from './convert';
import { AuditRunner, Project } from './project';
import { registerSymbolFeatures } from './symbols';

export interface Platform {
  /** A RepoFs for a workspace folder (or the folder of a loose file). */
  repoFs(root: URI, settings: FluxJobGuardSettings): RepoFs;
  /** Reads files at git HEAD (desktop, trusted workspaces only); null where that is not possible. */
  headReader?(root: URI): Promise<HeadReader | null>;
  /** Runs an audit's passes elsewhere (worker threads on desktop). */
  /** Audits the folder elsewhere (a worker thread on Node); undefined: in the server's thread. */
  auditRunner?(root: URI): AuditRunner | undefined;
}

export function startServer(connection: Connection, platform: Platform): void {
  /** What each open document's most recent edit inserted (a whole-text change leaves none): see typing-hold.ts. */
  const recentEdits = new Map<string, RecentEdit>();
  const documents = new TextDocuments({
    create: TextDocument.create,
    update(document, changes, version) {
      const updated = TextDocument.update(document, changes, version);
      const last = changes[changes.length - 1];
      if (last && 'range' in last) {
        const start = updated.offsetAt(last.range.start);
        recentEdits.set(updated.uri, { start, end: start + last.text.length });
      } else {
        recentEdits.delete(updated.uri);
      }
      return updated;
    },
  });
  const projects = new Map<string, Project>();
  /** What each URI's diagnostics were built from, for code actions. */
  const published = new Map<string, Finding[]>();
  /** The document version each URI's findings were computed from (null: the file on disk). */
  const publishedVersion = new Map<string, number | null>();
  /** Files the last audit published diagnostics for (they stay until the next audit). */
  const audited = new Map<string, Set<string>>();
  /** Findings the audit alone can make (contract-no-jobs), per contract URI. */
  const auditOnly = new Map<string, Finding[]>();
  let folders: URI[] = [];
  let canPullConfiguration = false;
  let hasWorkspaceFolders = false;
  /** The client says whether the workspace is trusted; git is read only when it is. */
  let trusted = false;
  /** Where the client shows each rule's documentation (diagnostics link there); none: no link. */
  let ruleDocs: Record<string, string> = {};
  let canShowDocument = false;

  const log = (message: string) => connection.console.log(message);
  const docLink = (rule: string): string | null => ruleDocs[rule] ?? null;
  const status = new AuditStatus(auditFolder, (params) => void connection.sendNotification(Notifications.status, params), log);
  const symbols = registerSymbolFeatures(connection, { documents, documentContext, uriOf, projects: () => projects.values() });

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    canPullConfiguration = params.capabilities.workspace?.configuration === true;
    hasWorkspaceFolders = params.capabilities.workspace?.workspaceFolders === true;
    const options = (params.initializationOptions ?? {}) as InitializationOptions;
    trusted = options.trusted === true;
    ruleDocs = options.ruleDocs && typeof options.ruleDocs === 'object' ? options.ruleDocs : {};
    canShowDocument = params.capabilities.window?.showDocument?.support === true;
    folders = (params.workspaceFolders ?? []).map((folder) => URI.parse(folder.uri));
    if (folders.length === 0 && params.rootUri) folders = [URI.parse(params.rootUri)];
    const symbolCapabilities = symbols.capabilities(params);
    return {
      capabilities: {
        // Saves matter: a syntax finding held while typing shows, and an audited folder is audited again.
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        hoverProvider: true,
        definitionProvider: true,
        ...symbolCapabilities,
        // Also a space: after `key:` in the contract file it offers the key's values (severities, modes).
        completionProvider: { ...symbolCapabilities.completionProvider, triggerCharacters: [...(symbolCapabilities.completionProvider?.triggerCharacters ?? []), ' '] },
        executeCommandProvider: { commands: [ServerCommands.createContract] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'flux-job-guard' },
    };
  });

  connection.onInitialized(() => {
    if (canPullConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: SECTION });
    if (hasWorkspaceFolders)
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        for (const removed of event.removed) {
          projects.delete(URI.parse(removed.uri).toString());
          status.forget(URI.parse(removed.uri).toString());
        }
        folders = folders.filter((folder) => !event.removed.some((removed) => URI.parse(removed.uri).toString() === folder.toString()));
        folders.push(...event.added.map((added) => URI.parse(added.uri)));
      });
    for (const folder of folders) void projectForRoot(folder).then(publishContract);
  });

  // ---- projects -------------------------------------------------------------

  async function settingsFor(root: URI): Promise<FluxJobGuardSettings> {
    if (!canPullConfiguration) return DEFAULT_SETTINGS;
    try {
      // Whatever the client sends: withDefaults checks every field.
      return withDefaults((await connection.workspace.getConfiguration({ scopeUri: root.toString(), section: SECTION })) as Partial<FluxJobGuardSettings> | null);
    } catch {
      return DEFAULT_SETTINGS;
    }
  }

  async function projectForRoot(root: URI): Promise<Project> {
    const key = root.toString();
    let project = projects.get(key);
    if (!project) {
      const settings = await settingsFor(root);
      const head = trusted && platform.headReader ? await platform.headReader(root) : null;
      project = projects.get(key) ?? new Project(key, platform.repoFs(root, settings), settings, head ?? undefined);
      if (!projects.has(key)) {
        projects.set(key, project);
        for (const document of documents.all()) {
          const path = relativePath(project, document.uri);
          if (path !== null) project.fs.open.set(path, document.getText());
        }
        void status.track(project.initialize());
      }
    }
    await project.whenReady();
    return project;
  }

  /** The folder that holds a document (the longest match), or the document's own folder. */
  function rootFor(uri: string): URI {
    const target = URI.parse(uri);
    let best: URI | null = null;
    for (const folder of folders) {
      const prefix = folder.path.endsWith('/') ? folder.path : folder.path + '/';
      if (folder.scheme === target.scheme && folder.authority === target.authority && target.path.startsWith(prefix)) {
        if (!best || folder.path.length > best.path.length) best = folder;
      }
    }
    return best ?? Utils.dirname(target);
  }

  function relativePath(project: Project, uri: string): string | null {
    const root = URI.parse(project.rootUri);
    const target = URI.parse(uri);
    const prefix = root.path.endsWith('/') ? root.path : root.path + '/';
    if (target.scheme !== root.scheme || target.authority !== root.authority || !target.path.startsWith(prefix)) return null;
    return target.path.slice(prefix.length);
  }

  function uriOf(project: Project, path: string): string {
    return Utils.joinPath(URI.parse(project.rootUri), ...path.split('/')).toString();
  }

  // ---- publishing -----------------------------------------------------------

  function publish(uri: string, findings: Finding[], version: number | null = documents.get(uri)?.version ?? null): void {
    const document = documents.get(uri);
    const shown = document ? holdWhileTyping(findings, document.getText(), recentEdits.get(uri) ?? null) : findings;
    const sorted = sortFindings(shown);
    published.set(uri, sorted);
    publishedVersion.set(uri, version);
    const project = projects.get(rootFor(uri).toString());
    const uriOfFile = project ? (file: string) => uriOf(project, file) : undefined;
    void connection.sendDiagnostics({ uri, diagnostics: sorted.map((finding) => toDiagnostic(finding, uriOfFile, docLink)) });
  }

  async function publishContract(project: Project): Promise<void> {
    if (!project.settings.enable) return;
    const uri = uriOf(project, project.contract.path);
    const findings = await project.contractFindings();
    publish(uri, [...findings, ...(auditOnly.get(uri) ?? [])]);
  }

  /** Analyses an open document; drops the result if the document changed meanwhile. */
  async function validate(document: TextDocument): Promise<void> {
    const project = await projectForRoot(rootFor(document.uri));
    const path = relativePath(project, document.uri);
    if (path === null || !project.wants(path)) return;
    const current = documents.get(document.uri);
    if (!current || current.version !== document.version) return; // a newer change is on its way
    if (!project.settings.enable) return publish(document.uri, []);
    if (path === project.contract.path) {
      await project.reloadContract();
      await revalidateOpen(project, document.uri);
      return publishContract(project);
    }
    const text = document.getText();
    let changed = project.updateIndex(path, text);
    // A kustomization file that names a new generator input: read it before analysing anything.
    if (changed && (await project.readNewInputs())) changed = true;
    const headText = await project.headText(path, text);
    if (documents.get(document.uri)?.version !== document.version) return; // superseded while git answered
    publish(document.uri, project.analyze(path, text, headText));
    if (changed) await revalidateOpen(project, document.uri);
    if (project.affectsContract(path)) await publishContract(project);
  }

  async function revalidateOpen(project: Project, except: string): Promise<void> {
    for (const document of documents.all()) {
      const path = relativePath(project, document.uri);
      if (document.uri === except || path === null || path === project.contract.path || !project.wants(path)) continue;
      const { version } = document;
      const text = document.getText();
      publish(document.uri, project.settings.enable ? project.analyze(path, text, await project.headText(path, text)) : [], version);
    }
    symbols.refresh();
  }

  // Changes are coalesced per document: the first keystroke is analysed at
  // once; keystrokes that arrive while it runs collapse into one more pass.
  const pending = new Map<string, Promise<void>>();
  const dirty = new Set<string>();
  function schedule(uri: string): void {
    if (pending.has(uri)) {
      dirty.add(uri);
      return;
    }
    const run = async () => {
      try {
        do {
          dirty.delete(uri);
          const document = documents.get(uri);
          if (!document) return;
          await validate(document);
        } while (dirty.has(uri));
      } catch (error) {
        log(`Flux Job Guard could not analyse ${uri}: ${error instanceof Error ? error.stack : String(error)}`);
      } finally {
        pending.delete(uri);
      }
    };
    pending.set(uri, run());
  }

  documents.onDidChangeContent(async (event) => {
    const project = await projectForRoot(rootFor(event.document.uri));
    const path = relativePath(project, event.document.uri);
    if (path !== null) {
      project.fs.open.set(path, event.document.getText());
      project.opened(path);
    }
    schedule(event.document.uri);
  });

  documents.onDidClose(async (event) => {
    const uri = event.document.uri;
    recentEdits.delete(uri);
    const project = await projectForRoot(rootFor(uri));
    const path = relativePath(project, uri);
    if (path === null) return;
    project.fs.open.delete(path);
    project.closed(path);
    if (path === project.contract.path) {
      await project.reloadContract();
      await revalidateOpen(project, uri);
      return publishContract(project);
    }
    if (audited.get(project.rootUri)?.has(uri)) await refreshFromDisk(project, path);
    else publish(uri, []);
    if (project.affectsContract(path)) await publishContract(project);
  });

  // A save ends what typing-hold.ts holds back, and re-audits an audited folder (the summary follows fixes).
  documents.onDidSave((event) => {
    const uri = event.document.uri;
    if (recentEdits.delete(uri)) schedule(uri);
    status.changed(rootFor(uri).toString());
  });

  async function refreshFromDisk(project: Project, path: string): Promise<void> {
    const uri = uriOf(project, path);
    const read = await project.fs.read(path);
    if (read.kind === 'text') publish(uri, project.analyze(path, read.text));
    else if (read.kind === 'skipped') publish(uri, project.isAnalyzed(path) ? project.skipped(path, read) : []);
    else publish(uri, []);
  }

  connection.onDidChangeWatchedFiles(async (params) => {
    for (const change of params.changes) {
      const project = await projectForRoot(rootFor(change.uri));
      const path = relativePath(project, change.uri);
      if (path === null || documents.get(change.uri)) continue; // open documents speak for themselves
      if (path === project.contract.path) {
        await project.reloadContract();
        await revalidateOpen(project, '');
        await publishContract(project);
        // A contract written on disk (a quick fix that created it, say) changes what every file says: an audited folder is audited again.
        status.changed(project.rootUri);
        continue;
      }
      const read = change.type === FileChangeType.Deleted ? undefined : await project.fs.read(path);
      const changed = project.updateIndex(path, read?.kind === 'text' ? read.text : read ? '' : undefined);
      if (changed || (await project.readNewInputs())) await revalidateOpen(project, '');
      if (audited.get(project.rootUri)?.has(change.uri) || change.type === FileChangeType.Created) {
        if (audited.has(project.rootUri)) {
          audited.get(project.rootUri)!.add(change.uri);
          await refreshFromDisk(project, path);
        }
      }
      if (project.affectsContract(path)) await publishContract(project);
      status.changed(project.rootUri);
    }
  });

  connection.onDidChangeConfiguration(async () => {
    for (const project of projects.values()) {
      project.settings = await settingsFor(URI.parse(project.rootUri));
      await status.track(project.initialize());
      await revalidateOpen(project, '');
      await publishContract(project);
    }
  });

  // ---- code actions ---------------------------------------------------------

  connection.onCodeAction(async (params: CodeActionParams): Promise<CodeAction[]> => {
    const findings = published.get(params.textDocument.uri) ?? [];
    const analysedVersion = publishedVersion.get(params.textDocument.uri);
    const project = await projectForRoot(rootFor(params.textDocument.uri));
    const wanted = params.context.only;
    // The edits carry the version their ranges were computed on: when the document has changed
    // since (its new analysis still running), the editor refuses them instead of misplacing them.
    const versionOf = (uri: string) => (uri === params.textDocument.uri && analysedVersion !== undefined ? analysedVersion : (documents.get(uri)?.version ?? null));
    if (wanted?.some((kind) => FIX_ALL_KIND.startsWith(kind) || kind === CodeActionKind.SourceFixAll)) {
      const fixAll = fixAllEdit(findings, params.textDocument.uri);
      return fixAll ? [{ title: 'Escape every Flux substitution hazard in this file', kind: FIX_ALL_KIND, edit: toWorkspaceEdit(fixAll, (file) => uriOf(project, file), versionOf) }] : [];
    }
    if (wanted && !wanted.some((kind) => kind === CodeActionKind.QuickFix || kind.startsWith(CodeActionKind.QuickFix))) return [];
    const actions: CodeAction[] = [];
    const diagnosticOf = (finding: Finding) => params.context.diagnostics.find((d) => sameDiagnostic(d, finding));
    const asked = findings.filter((finding) => diagnosticOf(finding) !== undefined || intersects(finding.range, params.range));
    for (const finding of withDisableFixesAsked(project, params.textDocument.uri, analysedVersion, asked)) {
      if (!finding.fixes) continue;
      const diagnostic: Diagnostic | undefined = diagnosticOf(finding);
      for (const fix of finding.fixes) {
        const edit = toWorkspaceEdit(fix, (file) => uriOf(project, file), versionOf);
        actions.push(toCodeAction(fix, diagnostic ?? toDiagnostic(finding, (file) => uriOf(project, file), docLink), edit));
      }
    }
    const fixAll = fixAllEdit(findings, params.textDocument.uri);
    if (fixAll && fixAll.edits.length > 1) {
      actions.push({ title: fixAll.title, kind: CodeActionKind.QuickFix, edit: toWorkspaceEdit(fixAll, (file) => uriOf(project, file), versionOf) });
    }
    return actions;
  });

  /**
   * The findings a code action request is about, each with the fix that disables it where it stands,
   * computed on the text the findings were published for (an open document at that version).
   */
  function withDisableFixesAsked(project: Project, uri: string, analysedVersion: number | null | undefined, asked: Finding[]): Finding[] {
    const document = documents.get(uri);
    const path = relativePath(project, uri);
    if (asked.length === 0 || !document || path === null || analysedVersion !== document.version) return asked;
    return withDisableFixes(asked, path, document.getText());
  }

  // ---- hover, definition, preview -------------------------------------------

  async function documentContext(uri: string) {
    const document = documents.get(uri);
    if (!document) return null;
    const project = await projectForRoot(rootFor(uri));
    const path = relativePath(project, uri);
    return path === null || !project.settings.enable ? null : { document, project, path, text: document.getText() };
  }

  const contractHost: ContractHost = { connection, documentContext, uriOf, docLink, canShowDocument: () => canShowDocument };

  // The contract file's keys, else a Flux variable after `${` (symbols.ts); a space completes only the contract's values.
  const completeContract = contractCompletion(contractHost);
  connection.onCompletion(async (params) => {
    const contract = await completeContract(params);
    if (contract || params.context?.triggerCharacter === ' ') return contract;
    return symbols.completion(params);
  });

  connection.onExecuteCommand(async (params) => {
    if (params.command !== ServerCommands.createContract) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${params.command}`);
    const [folder] = (params.arguments ?? []) as Array<string | undefined>;
    const root = typeof folder === 'string' ? URI.parse(folder) : folders[0];
    if (!root) throw new ResponseError(ErrorCodes.InvalidParams, 'no workspace folder to create the contract file in');
    return createContract(contractHost, await projectForRoot(root));
  });

  connection.onHover(async (params): Promise<Hover | null> => {
    const contract = await contractHover(contractHost, params.textDocument.uri, params.position);
    if (contract) return contract;
    const context = await documentContext(params.textDocument.uri);
    if (!context) return null;
    const { document, project, path, text } = context;
    const hover = await project.hover(path, text, document.offsetAt(params.position), (file) => uriOf(project, file));
    if (!hover) return null;
    return { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: { start: document.positionAt(hover.span[0]), end: document.positionAt(hover.span[1]) } };
  });

  connection.onDefinition(async (params): Promise<Location[]> => {
    const context = await documentContext(params.textDocument.uri);
    if (!context) return [];
    const { document, project, path, text } = context;
    const locations: Location[] = [];
    for (const definition of project.definitions(path, text, document.offsetAt(params.position))) {
      const read = await project.fs.read(definition.file);
      if (read.kind !== 'text') continue;
      const lines = new LineIndex(read.text);
      locations.push(Location.create(uriOf(project, definition.file), lines.range(definition.span[0], definition.span[1])));
    }
    return locations;
  });

  // `text`: the source as the editor shows it now (the preview follows typing, and its request may
  // overtake the change notification that carries the same text).
  connection.onRequest(Requests.previewSubstitution, async (params: { uri: string; text?: string }): Promise<{ text: string }> => {
    const context = await documentContext(params.uri);
    if (!context) return { text: '# Flux Job Guard: open a YAML file of a workspace folder to preview it.' };
    return { text: context.project.preview(context.path, typeof params.text === 'string' ? params.text : context.text) };
  });

  // ---- the workspace audit --------------------------------------------------

  connection.onRequest(Requests.audit, async (): Promise<AuditResponse> => {
    const roots = folders.length > 0 ? folders : [...projects.keys()].map((key) => URI.parse(key));
    return { folders: await status.audit(roots.map((root) => root.toString())) };
  });

  /** Audits one folder, publishes what it found, and logs the audit's one line. */
  async function auditFolder(rootKey: string): Promise<AuditFolderSummary> {
    const started = Date.now();
    const project = await projectForRoot(URI.parse(rootKey));
    const result = await project.audit(platform.auditRunner?.(URI.parse(rootKey)));
    const byUri = new Map<string, Finding[]>();
    for (const finding of result.findings) {
      const uri = uriOf(project, finding.file);
      byUri.set(uri, [...(byUri.get(uri) ?? []), finding]);
    }
    const contractUri = uriOf(project, project.contract.path);
    auditOnly.set(
      contractUri,
      result.findings.filter((finding) => finding.rule === 'contract-no-jobs'),
    );
    for (const uri of audited.get(project.rootUri) ?? []) if (!byUri.has(uri) && !documents.get(uri)) publish(uri, []);
    for (const [uri, findings] of byUri) if (!documents.get(uri) && uri !== contractUri) publish(uri, findings);
    audited.set(project.rootUri, new Set(byUri.keys()));
    await publishContract(project);
    const facts = { folder: project.rootUri, version: VERSION, contractPath: project.contract.path, contractExists: project.contract.exists, durationMs: Date.now() - started };
    log(auditLogLine(result.summary, facts));
    return {
      folder: project.rootUri,
      summaryLine: summaryLine(result.summary),
      ...result.summary,
      contractPath: facts.contractPath,
      contractExists: facts.contractExists,
      durationMs: facts.durationMs,
    };
  }

  documents.listen(connection);
  connection.listen();
}

function intersects(a: { start: { line: number; character: number }; end: { line: number; character: number } }, b: typeof a): boolean {
  const before = (p: typeof a.start, q: typeof a.start) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
