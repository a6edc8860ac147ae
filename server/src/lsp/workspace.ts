// The server's one facade over the engine: the open documents, the workspace
// folders and the Project of each (its contract, index and analysis), what the
// client said it can do, and the mapping between URIs and repository paths.
// Every feature module (features/) gets this and nothing else of the server.
import type { Connection } from 'vscode-languageserver';
import { TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI, Utils } from 'vscode-uri';
import type { RepoFs } from '../engine/base/repo-fs';
import type { RecentEdit } from '../engine/editor/typing-hold';
import type { HeadReader } from '../engine/pipeline/repo-analysis';
import { DEFAULT_SETTINGS, FluxJobGuardSettings, SECTION, withDefaults } from '../shared/settings';
import { AuditRunner, Project, type Summarizer } from './project';

export interface Platform {
  /** A RepoFs for a workspace folder (or the folder of a loose file). */
  repoFs(root: URI, settings: FluxJobGuardSettings): RepoFs;
  /** Reads files at git HEAD (desktop, trusted workspaces only); null where that is not possible. */
  headReader?(root: URI): Promise<HeadReader | null>;
  /** Audits the folder elsewhere (a worker thread on Node); undefined: in the server's thread. */
  auditRunner?(root: URI): AuditRunner | undefined;
  /** Reads and summarises the folder's files for its index elsewhere (worker threads on Node); undefined: in the server's thread. */
  summarizer?(root: URI): Summarizer | undefined;
}

/** An open document of an enabled folder, with its project and repository path. */
export interface DocumentContext {
  document: TextDocument;
  project: Project;
  path: string;
  text: string;
}

export class Workspace {
  /** What each open document's most recent edit inserted (a whole-text change leaves none): see typing-hold.ts. */
  readonly recentEdits = new Map<string, RecentEdit>();
  readonly documents: TextDocuments<TextDocument>;
  readonly projects = new Map<string, Project>();
  folders: URI[] = [];
  canPullConfiguration = false;
  hasWorkspaceFolders = false;
  /** The client says whether the workspace is trusted; git is read only when it is. */
  trusted = false;
  /** Where the client shows each rule's documentation (diagnostics link there); none: no link. */
  ruleDocs: Record<string, string> = {};
  canShowDocument = false;
  /** Whether the client can be told to ask for inlay hints and code lenses again. */
  refreshes = { inlayHints: false, codeLenses: false };

  constructor(
    readonly connection: Connection,
    private readonly platform: Platform,
    /** Runs while a folder is first read (the status item shows it). */
    private readonly tracked: (work: Promise<void>) => Promise<void>,
  ) {
    const recentEdits = this.recentEdits;
    this.documents = new TextDocuments({
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
  }

  log(message: string): void {
    this.connection.console.log(message);
  }

  docLink(rule: string): string | null {
    return this.ruleDocs[rule] ?? null;
  }

  auditRunner(root: URI): AuditRunner | undefined {
    return this.platform.auditRunner?.(root);
  }

  async settingsFor(root: URI): Promise<FluxJobGuardSettings> {
    if (!this.canPullConfiguration) return DEFAULT_SETTINGS;
    try {
      // Whatever the client sends: withDefaults checks every field.
      return withDefaults((await this.connection.workspace.getConfiguration({ scopeUri: root.toString(), section: SECTION })) as Partial<FluxJobGuardSettings> | null);
    } catch {
      return DEFAULT_SETTINGS;
    }
  }

  async projectForRoot(root: URI): Promise<Project> {
    const key = root.toString();
    let project = this.projects.get(key);
    if (!project) {
      const settings = await this.settingsFor(root);
      const head = this.trusted && this.platform.headReader ? await this.platform.headReader(root) : null;
      project = this.projects.get(key) ?? new Project(key, this.platform.repoFs(root, settings), settings, head ?? undefined, this.platform.summarizer?.(root));
      if (!this.projects.has(key)) {
        this.projects.set(key, project);
        for (const document of this.documents.all()) {
          const path = this.relativePath(project, document.uri);
          if (path !== null) project.fs.open.set(path, document.getText());
        }
        void this.tracked(this.indexFolder(project));
      }
    }
    await project.whenReady();
    return project;
  }

  /** Reads a folder into its project's index, and says in the log how long that took and where it ran. */
  private async indexFolder(project: Project): Promise<void> {
    const started = Date.now();
    await project.initialize();
    const { files, elsewhere } = project.indexed;
    this.log(`index ${project.rootUri}: ${files} file(s) in ${Date.now() - started} ms${elsewhere ? ', read and summarised in worker threads' : ''}`);
  }

  /** The folder that holds a document (the longest match), or the document's own folder. */
  rootFor(uri: string): URI {
    const target = URI.parse(uri);
    let best: URI | null = null;
    for (const folder of this.folders) {
      const prefix = folder.path.endsWith('/') ? folder.path : folder.path + '/';
      if (folder.scheme === target.scheme && folder.authority === target.authority && target.path.startsWith(prefix)) {
        if (!best || folder.path.length > best.path.length) best = folder;
      }
    }
    return best ?? Utils.dirname(target);
  }

  relativePath(project: Project, uri: string): string | null {
    const root = URI.parse(project.rootUri);
    const target = URI.parse(uri);
    const prefix = root.path.endsWith('/') ? root.path : root.path + '/';
    if (target.scheme !== root.scheme || target.authority !== root.authority || !target.path.startsWith(prefix)) return null;
    return target.path.slice(prefix.length);
  }

  uriOf(project: Project, path: string): string {
    return Utils.joinPath(URI.parse(project.rootUri), ...path.split('/')).toString();
  }

  async documentContext(uri: string): Promise<DocumentContext | null> {
    const document = this.documents.get(uri);
    if (!document) return null;
    const project = await this.projectForRoot(this.rootFor(uri));
    const path = this.relativePath(project, uri);
    return path === null || !project.settings.enable ? null : { document, project, path, text: document.getText() };
  }
}
