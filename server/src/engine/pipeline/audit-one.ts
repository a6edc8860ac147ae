// One file's part of the audit, the model given: what `audit()` reports of that file and the
// Jobs it counts in the summary. The language server uses it after a save that changes nothing
// other files' analyses read (the model's version, the names files use, the positions the model
// keeps, the contract: see Project.auditChanged), so only the saved file is audited again. It
// takes the same steps, in the same order, as audit() for that file; test/audit-one.test.ts
// compares the two on every file of several repositories.
import type { Contract } from '../contract/model';
import type { Finding } from '../base/types';
import type { RepoFs } from '../base/repo-fs';
import { analyzeInContext, bareDollarOn, countFindings, reportedFindings, skippedAnalysis, sortFindings, summarize, type AuditResult } from './audit';
import { syntaxOnlyAnalysis, type FileAnalysis, type JobRecord } from './analyze';
import { NO_ANALYSIS } from './file-findings';
import { documentMayMatter } from './incremental';
import { fileContext, type HeadReader } from './repo-analysis';
import { accountLookup, type RepoIndex } from './repo-index';
import { isAnalyzed, isAudited, mayBeIndexed, resourceRulesApply } from './scope';
import { parseYamlFile } from '../yaml/documents';
import { DIRECTIVE } from '../rules/support/directive';

export interface FileAudit {
  findings: Finding[];
  /** The Jobs the summary counts in the file (none where it counts none). */
  jobs: JobRecord[];
}

/**
 * What the audit reports of `path`. Not for the contract file, a generator input or a file a
 * contract entry names: their findings live in other files too, and only a whole audit says them.
 */
export async function auditOneFile(fs: RepoFs, contract: Contract, index: RepoIndex, path: string, head?: HeadReader): Promise<FileAudit> {
  const read = await fs.read(path);
  const text = read.kind === 'text' ? read.text : undefined;
  const readText = () => Promise.resolve(text);
  let analysis: FileAnalysis | undefined;
  // Pass 1: a file that cannot be read, or needs only its syntax checked.
  if (mayBeIndexed(path) && isAudited(contract, path)) {
    if (read.kind === 'skipped') analysis = skippedAnalysis(path, read);
    else if (text !== undefined && !documentMayMatter(text, bareDollarOn(contract))) analysis = syntaxOnlyAnalysis(path, text, parseYamlFile(text));
    // Pass 2: the rules, where the model says the engine analyses the file.
    else if (text !== undefined && isAnalyzed(contract, index, path)) {
      analysis = (await analyzeInContext(fileContext(index, contract, path), text, contract, accountLookup(index.declaredAccounts()), head)).analysis;
    }
  }
  const problems = index.graphProblems().some((problem) => problem.file === path);
  const directives = mayBeIndexed(path) && text?.includes(DIRECTIVE) === true;
  if (analysis === undefined && problems && text !== undefined) analysis = NO_ANALYSIS;
  // Helm templates are not YAML until rendered: nothing is reported in them.
  if (analysis !== undefined && index.roleOf(path) === 'chart-template') analysis = NO_ANALYSIS;
  const reads = { problems, directives, readText };
  if (analysis !== undefined) {
    const jobs = resourceRulesApply(contract, index, path) ? analysis.jobs : [];
    return { findings: sortFindings(await reportedFindings(index, contract, path, analysis, reads)), jobs };
  }
  // A directive in a file the rules do not look at is still counted (unused, say).
  if (directives && isAnalyzed(contract, index, path)) return { findings: sortFindings(await reportedFindings(index, contract, path, NO_ANALYSIS, reads)), jobs: [] };
  return { findings: [], jobs: [] };
}

/** What an earlier audit found, as the server keeps it. */
export type AuditFound = Pick<AuditResult, 'findings' | 'summary' | 'jobs'>;

/**
 * `previous` with the results of `files` in place of theirs, the summary counted again (as
 * audit() counts it). Undefined where the count of Jobs is or becomes 0: contract-no-jobs then
 * comes or goes, which only a whole audit says.
 */
export function patchedAudit(contract: Contract, previous: AuditFound, files: ReadonlyMap<string, FileAudit>): AuditFound | undefined {
  const jobs = new Map(previous.jobs);
  for (const [path, audited] of files) {
    if (audited.jobs.length > 0) jobs.set(path, audited.jobs);
    else jobs.delete(path);
  }
  const summary = summarize(
    contract,
    [...jobs].map(([path, records]) => ({ path, jobs: records })),
  );
  if (previous.summary.jobs === 0 || summary.jobs === 0) return undefined;
  const findings = sortFindings([...previous.findings.filter((finding) => !files.has(finding.file)), ...[...files.values()].flatMap((audited) => audited.findings)]);
  return { findings, summary: countFindings(summary, findings), jobs: [...jobs] };
}
