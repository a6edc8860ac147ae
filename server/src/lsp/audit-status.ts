// What the server is doing, for the client's status item: reading a folder
// (indexing), auditing, or idle with the summary of each folder's last audit.
// Audits run one at a time. Once a folder has been audited, a saved or changed
// file audits it again (requests made meanwhile collapse into one run, with
// the files they name), so the summary follows the fixes instead of going
// stale; given the files, the folder's audit may redo only those.
import type { AuditFolderSummary, ProblemCounts, ServerState, StatusParams } from '../shared/settings';

export class AuditStatus {
  private readonly last = new Map<string, AuditFolderSummary>();
  private indexing = 0;
  private auditing = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Folders to audit again, with the files changed since their last audit (null: a whole audit). */
  private readonly pending = new Map<string, Set<string> | null>();
  private draining = false;

  constructor(
    /** `changed`: the files changed since the folder's last audit, where known (else all of it is audited). */
    private readonly auditFolder: (root: string, changed?: string[]) => Promise<AuditFolderSummary>,
    private readonly notify: (params: StatusParams) => void,
    private readonly log: (message: string) => void,
    /** What the Problems panel holds from this server now. */
    private readonly problems: () => ProblemCounts,
  ) {}

  private shownPending = false;

  /** Diagnostics were published: the counts follow (one notification for a burst, such as an audit's). */
  shown(): void {
    if (this.shownPending) return;
    this.shownPending = true;
    setTimeout(() => {
      this.shownPending = false;
      this.announce();
    }, 0);
  }

  get state(): ServerState {
    return this.auditing > 0 ? 'auditing' : this.indexing > 0 ? 'indexing' : 'idle';
  }

  private announce(): void {
    this.notify({ state: this.state, folders: [...this.last.values()], problems: this.problems() });
  }

  /** Shows `indexing` until `work` settles. */
  async track<T>(work: Promise<T>): Promise<T> {
    this.indexing++;
    if (this.indexing === 1) this.announce();
    try {
      return await work;
    } finally {
      this.indexing--;
      this.announce();
    }
  }

  /** Audits the folders one after the other, whole, after any audit already running. */
  audit(roots: string[]): Promise<AuditFolderSummary[]> {
    return this.queued(async () => {
      const results: AuditFolderSummary[] = [];
      for (const root of roots) results.push(await this.auditOne(root));
      return results;
    });
  }

  /** Runs `work` after any audit already running (audits run one at a time). */
  private queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** `path` of `root` changed (no path: anything may have): audit it again if it has been audited (collapsing requests that arrive meanwhile). */
  changed(root: string, path?: string): void {
    if (!this.last.has(root)) return;
    const files = this.pending.has(root) ? this.pending.get(root)! : new Set<string>();
    this.pending.set(root, files && path !== undefined ? files.add(path) : null);
    if (!this.draining) void this.drain();
  }

  wasAudited(root: string): boolean {
    return this.last.has(root);
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.pending.size > 0) {
        const requests = [...this.pending];
        this.pending.clear();
        try {
          await this.queued(async () => {
            for (const [root, files] of requests) await this.auditOne(root, files ? [...files] : undefined);
          });
        } catch (error) {
          this.log(`Flux Job Guard could not audit ${requests.map(([root]) => root).join(', ')} again: ${error instanceof Error ? error.stack : String(error)}`);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async auditOne(root: string, changed?: string[]): Promise<AuditFolderSummary> {
    this.auditing++;
    this.announce();
    try {
      const summary = await this.auditFolder(root, changed);
      this.last.set(root, summary);
      return summary;
    } finally {
      this.auditing--;
      this.announce();
    }
  }

  /** A folder left the workspace: its summary goes. */
  forget(root: string): void {
    this.pending.delete(root);
    if (this.last.delete(root)) this.announce();
  }
}
