// Diagnostics: every open YAML document (and generator input) is analysed as
// the user types, and the contract file's diagnostics follow the manifests it
// names. Changes are coalesced per document; what was published is kept for
// the code actions, with the document version it was computed from.
import { URI } from 'vscode-uri';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Finding } from '../../engine/base/types';
import type { ProblemCounts } from '../../shared/settings';
import { holdWhileTyping } from '../../engine/editor/typing-hold';
import { sortFindings } from '../../engine/pipeline/audit';
import { toDiagnostic } from '../convert';
import type { Project } from '../project';
import type { Workspace } from '../workspace';

export class Diagnostics {
  /** What each URI's diagnostics were built from, for code actions. */
  private readonly published = new Map<string, Finding[]>();
  /** The document version each URI's findings were computed from (null: the file on disk). */
  private readonly publishedVersion = new Map<string, number | null>();
  /** Files the last audit published diagnostics for (they stay until the next audit), per folder. */
  readonly audited = new Map<string, Set<string>>();
  /** Findings the audit alone can make (contract-no-jobs), per contract URI. */
  readonly auditOnly = new Map<string, Finding[]>();
  /**
   * Open documents whose file the watcher reported deleted (the file, or a folder above it), not
   * edited since: the workbench keeps their text while something holds the document, but no
   * editor shows it and nothing applies it. They show nothing until they are edited or the file
   * comes back; analysed, they would report a file that no longer exists.
   */
  private readonly goneFromDisk = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();

  constructor(
    private readonly workspace: Workspace,
    /** Other files changed what hints and lenses say: the client asks again. */
    private readonly refreshViews: () => void,
    /** A file of the folder changed (an audited folder is audited again; `path`: which file, where known). */
    private readonly changed: (root: string, path?: string) => void,
    /** Diagnostics were published (the status item counts them). */
    private readonly shown: () => void = () => undefined,
  ) {}

  /** The errors and warnings published now, over every URI: what the Problems panel shows from this server. */
  problemCounts(): ProblemCounts {
    return { ...this.totals };
  }

  /** Kept as each URI is published (a keystroke publishes one file: no pass over the workspace). */
  private readonly totals: ProblemCounts = { errors: 0, warnings: 0, files: 0 };
  private readonly countsOf = new Map<string, { errors: number; warnings: number }>();

  private count(uri: string, findings: readonly Finding[]): void {
    const old = this.countsOf.get(uri) ?? { errors: 0, warnings: 0 };
    const now = { errors: findings.filter((finding) => finding.severity === 'error').length, warnings: findings.filter((finding) => finding.severity === 'warning').length };
    this.countsOf.set(uri, now);
    this.totals.errors += now.errors - old.errors;
    this.totals.warnings += now.warnings - old.warnings;
    this.totals.files += Number(now.errors + now.warnings > 0) - Number(old.errors + old.warnings > 0);
  }

  /**
   * Closed files of `project`'s folder whose diagnostics show findings now, whoever published them:
   * an audit, or a file analysed from disk (a watcher event) while an earlier audit ran, which that
   * audit's list of files then leaves out.
   */
  shownClosed(project: Project): string[] {
    const { workspace } = this;
    return [...this.published].filter(([uri, findings]) => findings.length > 0 && !workspace.documents.get(uri) && workspace.rootFor(uri).toString() === project.rootUri).map(([uri]) => uri);
  }

  /** The findings published for a URI, and the document version they were computed from. */
  publishedFor(uri: string): { findings: Finding[]; version: number | null | undefined } {
    return { findings: this.published.get(uri) ?? [], version: this.publishedVersion.get(uri) };
  }

  publish(uri: string, findings: Finding[], version: number | null = this.workspace.documents.get(uri)?.version ?? null): void {
    const { workspace } = this;
    const document = workspace.documents.get(uri);
    const shown = document ? holdWhileTyping(findings, document.getText(), workspace.recentEdits.get(uri) ?? null) : findings;
    const sorted = sortFindings(shown);
    this.published.set(uri, sorted);
    this.count(uri, sorted);
    this.publishedVersion.set(uri, version);
    const project = workspace.projects.get(workspace.rootFor(uri).toString());
    const uriOfFile = project ? (file: string) => workspace.uriOf(project, file) : undefined;
    void workspace.connection.sendDiagnostics({ uri, diagnostics: sorted.map((finding) => toDiagnostic(finding, uriOfFile, (rule) => workspace.docLink(rule))) });
    this.shown();
  }

  async publishContract(project: Project): Promise<void> {
    if (!project.settings.enable) return;
    const uri = this.workspace.uriOf(project, project.contract.path);
    const findings = await project.contractFindings();
    this.publish(uri, [...findings, ...(this.auditOnly.get(uri) ?? [])]);
  }

  /** The contract file changed: reload it, then everything it decides. */
  async contractChanged(project: Project, except: string): Promise<void> {
    await project.reloadContract();
    await this.revalidateOpen(project, except);
    return this.publishContract(project);
  }

  /** The watcher reported `uri` deleted (a file or a folder): open documents at or below it show nothing from now on. */
  deletedOnDisk(uri: string): void {
    for (const document of this.workspace.documents.all()) {
      if (document.uri !== uri && !document.uri.startsWith(`${uri}/`)) continue;
      this.goneFromDisk.add(document.uri);
      this.publish(document.uri, []);
    }
  }

  /** The watcher reported `uri` created or changed: an open document there is analysed again. */
  backOnDisk(uri: string): void {
    if (this.goneFromDisk.delete(uri)) this.schedule(uri);
  }

  /** Analyses an open document; drops the result if the document changed meanwhile. */
  private async validate(document: TextDocument): Promise<void> {
    const { workspace } = this;
    const project = await workspace.projectForRoot(workspace.rootFor(document.uri));
    const path = workspace.relativePath(project, document.uri);
    if (path === null || !project.wants(path)) return;
    const current = workspace.documents.get(document.uri);
    if (!current || current.version !== document.version) return; // a newer change is on its way
    if (this.goneFromDisk.has(document.uri)) return this.publish(document.uri, []);
    if (!project.settings.enable) return this.publish(document.uri, []);
    if (path === project.contract.path) return this.contractChanged(project, document.uri);
    const text = document.getText();
    let changed = project.updateIndex(path, text);
    // A kustomization file that names a new generator input: read it before analysing anything.
    if (changed && (await project.readNewInputs())) changed = true;
    const headText = await project.headText(path, text);
    if (workspace.documents.get(document.uri)?.version !== document.version) return; // superseded while git answered
    this.publish(document.uri, project.analyze(path, text, headText));
    if (changed) await this.revalidateOpen(project, document.uri);
    if (project.affectsContract(path)) await this.publishContract(project);
  }

  async revalidateOpen(project: Project, except: string): Promise<void> {
    const { workspace } = this;
    for (const document of workspace.documents.all()) {
      const path = workspace.relativePath(project, document.uri);
      if (document.uri === except || path === null || path === project.contract.path || !project.wants(path) || this.goneFromDisk.has(document.uri)) continue;
      const { version } = document;
      const text = document.getText();
      this.publish(document.uri, project.settings.enable ? project.analyze(path, text, await project.headText(path, text)) : [], version);
    }
    this.refreshViews();
  }

  // Changes are coalesced per document: the first keystroke is analysed at
  // once; keystrokes that arrive while it runs collapse into one more pass.
  schedule(uri: string): void {
    if (this.pending.has(uri)) {
      this.dirty.add(uri);
      return;
    }
    const run = async () => {
      try {
        do {
          this.dirty.delete(uri);
          const document = this.workspace.documents.get(uri);
          if (!document) return;
          await this.validate(document);
        } while (this.dirty.has(uri));
      } catch (error) {
        this.workspace.log(`Flux Job Guard could not analyse ${uri}: ${error instanceof Error ? error.stack : String(error)}`);
      } finally {
        this.pending.delete(uri);
      }
    };
    this.pending.set(uri, run());
  }

  async refreshFromDisk(project: Project, path: string): Promise<void> {
    const uri = this.workspace.uriOf(project, path);
    const read = await project.fs.read(path);
    if (read.kind === 'text') this.publish(uri, project.analyze(path, read.text));
    else if (read.kind === 'skipped') this.publish(uri, project.isAnalyzed(path) ? project.skipped(path, read) : []);
    else this.publish(uri, []);
  }

  /** Open, change, close and save of documents. */
  register(): void {
    const { workspace } = this;
    const { documents } = workspace;
    documents.onDidChangeContent(async (event) => {
      // Edited (or opened again): the user works on it, whatever happened to its file.
      this.goneFromDisk.delete(event.document.uri);
      const project = await workspace.projectForRoot(workspace.rootFor(event.document.uri));
      const path = workspace.relativePath(project, event.document.uri);
      if (path !== null) {
        project.fs.open.set(path, event.document.getText());
        project.opened(path);
      }
      this.schedule(event.document.uri);
    });

    documents.onDidClose(async (event) => {
      const uri = event.document.uri;
      this.goneFromDisk.delete(uri);
      workspace.recentEdits.delete(uri);
      const project = await workspace.projectForRoot(workspace.rootFor(uri));
      const path = workspace.relativePath(project, uri);
      if (path === null) return;
      project.fs.open.delete(path);
      project.closed(path);
      if (path === project.contract.path) return this.contractChanged(project, uri);
      if (this.audited.get(project.rootUri)?.has(uri)) await this.refreshFromDisk(project, path);
      else this.publish(uri, []);
      if (project.affectsContract(path)) await this.publishContract(project);
    });

    // A save ends what typing-hold.ts holds back, and re-audits an audited folder (the summary follows fixes).
    documents.onDidSave(async (event) => {
      const uri = event.document.uri;
      if (workspace.recentEdits.delete(uri)) this.schedule(uri);
      const root = workspace.rootFor(uri);
      const project = await workspace.projectForRoot(root);
      // The edits saved reach the index first: the audit that follows may then redo only this file.
      await this.pending.get(uri);
      this.changed(root.toString(), workspace.relativePath(project, uri) ?? undefined);
    });
  }

  /** The diagnostics of every folder once it is read. */
  publishFolders(folders: URI[]): void {
    for (const folder of folders) void this.workspace.projectForRoot(folder).then((project) => this.publishContract(project));
  }
}
