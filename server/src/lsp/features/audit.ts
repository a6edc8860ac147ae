// The workspace audit (fluxJobGuard/audit, the "Audit Workspace" command, and
// again after saves in an audited folder): each folder is audited (in a worker
// thread where the platform can), its findings are published for the files
// that are not open, and its summary goes to the status item and the log.
import { URI } from 'vscode-uri';
import type { Finding } from '../../engine/base/types';
import { auditLogLine, summaryLine } from '../../engine/pipeline/summary-line';
import { contractNoJobs } from '../../engine/rules/contract-no-jobs';
import { AuditFolderSummary, AuditResponse, Requests } from '../../shared/settings';
import { VERSION } from '../../shared/version';
import type { AuditStatus } from '../audit-status';
import type { Workspace } from '../workspace';
import type { Diagnostics } from './diagnostics';

export function registerAudit(workspace: Workspace, status: AuditStatus): void {
  workspace.connection.onRequest(Requests.audit, async (): Promise<AuditResponse> => {
    const roots = workspace.folders.length > 0 ? workspace.folders : [...workspace.projects.keys()].map((key) => URI.parse(key));
    return { folders: await status.audit(roots.map((root) => root.toString())) };
  });
}

/**
 * Audits one folder, publishes what it found, and logs the audit's one line. `changed`: the files
 * changed since its last audit, where known; the project may then audit only those again, and
 * only their diagnostics are published anew.
 */
export async function auditFolder(workspace: Workspace, diagnostics: Diagnostics, rootKey: string, changed?: string[]): Promise<AuditFolderSummary> {
  const { documents } = workspace;
  const started = Date.now();
  const project = await workspace.projectForRoot(URI.parse(rootKey));
  const runner = workspace.auditRunner(URI.parse(rootKey));
  const result = changed ? await project.auditChanged(changed, runner) : await project.audit(runner);
  const byUri = new Map<string, Finding[]>();
  for (const finding of result.findings) {
    const uri = workspace.uriOf(project, finding.file);
    byUri.set(uri, [...(byUri.get(uri) ?? []), finding]);
  }
  const contractUri = workspace.uriOf(project, project.contract.path);
  const republished = result.changed ? new Set(result.changed.map((path) => workspace.uriOf(project, path))) : null;
  // Whatever a closed file shows that the audit did not find goes, whoever published it: a file
  // analysed from disk while an earlier audit ran is in no audit's list.
  for (const uri of diagnostics.shownClosed(project)) if (!byUri.has(uri) && uri !== contractUri) diagnostics.publish(uri, []);
  if (republished) {
    // Only these files' findings can differ (the contract's cannot: see Project.auditChanged).
    for (const uri of republished) if (!documents.get(uri) && byUri.has(uri)) diagnostics.publish(uri, byUri.get(uri)!);
  } else {
    diagnostics.auditOnly.set(
      contractUri,
      result.findings.filter((finding) => finding.rule === contractNoJobs.meta.id),
    );
    for (const [uri, findings] of byUri) if (!documents.get(uri) && uri !== contractUri) diagnostics.publish(uri, findings);
  }
  diagnostics.audited.set(project.rootUri, new Set(byUri.keys()));
  if (!republished) await diagnostics.publishContract(project);
  const facts = {
    folder: project.rootUri,
    version: VERSION,
    contractPath: project.contract.path,
    contractExists: project.contract.exists,
    durationMs: Date.now() - started,
    redone: result.changed?.length,
    whole: result.whole,
  };
  workspace.log(auditLogLine(result.summary, facts));
  return {
    folder: project.rootUri,
    summaryLine: summaryLine(result.summary),
    ...result.summary,
    filesWithProblems: new Set(result.findings.filter((finding) => finding.severity !== 'info').map((finding) => finding.file)).size,
    contractPath: facts.contractPath,
    contractExists: facts.contractExists,
    durationMs: facts.durationMs,
  };
}
