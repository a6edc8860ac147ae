// Files changed outside the editor (a checkout, a generator's output) and
// settings changes: the index learns the new text, the open documents it can
// change are analysed again, and a folder the audit reported on shows the
// file's new findings (a new contract on disk: the folder is audited again).
import { FileChangeType } from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import type { AuditStatus } from '../audit-status';
import type { Project } from '../project';
import type { Workspace } from '../workspace';
import type { Diagnostics } from './diagnostics';

export function registerWatchedFiles(workspace: Workspace, diagnostics: Diagnostics, status: AuditStatus): void {
  const { connection, documents } = workspace;
  connection.onDidChangeWatchedFiles(async (params) => {
    for (const change of params.changes) {
      const project = await workspace.projectForRoot(workspace.rootFor(change.uri));
      const path = workspace.relativePath(project, change.uri);
      if (change.type === FileChangeType.Deleted) diagnostics.deletedOnDisk(change.uri);
      else diagnostics.backOnDisk(change.uri);
      if (path === null || documents.get(change.uri)) continue; // open documents speak for themselves
      if (path === project.contract.path) {
        await diagnostics.contractChanged(project, '');
        // A contract written on disk (a quick fix that created it, say) changes what every file says: an audited folder is audited again.
        status.changed(project.rootUri);
        continue;
      }
      const changed = change.type === FileChangeType.Deleted ? forget(project, path, (file) => documents.get(workspace.uriOf(project, file)) !== undefined) : await indexChange(project, path);
      // Always, not only when nothing changed: a Kustomization just learnt of wants the inputs and
      // the names of files read before it (skipping this left a source's names short, by event order).
      const learnt = await project.readNewInputs();
      if (changed || learnt) await diagnostics.revalidateOpen(project, '');
      const audited = diagnostics.audited.get(project.rootUri);
      if (audited?.has(change.uri) || change.type === FileChangeType.Created) {
        if (audited) {
          audited.add(change.uri);
          await diagnostics.refreshFromDisk(project, path);
        }
      }
      if (project.affectsContract(path)) await diagnostics.publishContract(project);
      status.changed(project.rootUri, path);
    }
  });

  connection.onDidChangeConfiguration(async () => {
    for (const project of workspace.projects.values()) {
      project.settings = await workspace.settingsFor(URI.parse(project.rootUri));
      await status.track(project.initialize());
      await diagnostics.revalidateOpen(project, '');
      await diagnostics.publishContract(project);
    }
  });
}

/**
 * What one watcher event changes in the index. A path that reads as missing without being deleted
 * is a folder (a checkout or a copy creates one with its files, and the watcher may report only the
 * folder) or a file gone since: it is no file (it used to be recorded as an empty one), and the
 * files below it that the index has not seen are read now.
 */
async function indexChange(project: Project, path: string): Promise<boolean> {
  const read = await project.fs.read(path);
  if (read.kind !== 'missing') return project.updateIndex(path, read.kind === 'text' ? read.text : '');
  let changed = project.updateIndex(path, undefined);
  const below = (await project.fs.listFiles()).filter((file) => file.startsWith(`${path}/`) && !project.index.hasFile(file));
  for (const file of below) {
    const inside = await project.fs.read(file);
    changed = project.updateIndex(file, inside.kind === 'text' ? inside.text : inside.kind === 'missing' ? undefined : '') || changed;
  }
  return changed;
}

/**
 * A deleted path leaves the index, and so does every file below it: the watcher may report a
 * deleted folder alone, not each file in it (kept until now, those files went on shaping the model
 * and showing their findings). Open documents speak for themselves (`open`: their paths).
 */
function forget(project: Project, path: string, open: (file: string) => boolean): boolean {
  let changed = project.updateIndex(path, undefined);
  const below = [...project.index.filePaths()].filter((file) => file.startsWith(`${path}/`) && !open(file));
  for (const file of below) changed = project.updateIndex(file, undefined) || changed;
  return changed;
}
