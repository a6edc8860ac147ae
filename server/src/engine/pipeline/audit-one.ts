// One file's part of the audit, the model given: what `audit()` reports of that file and the
// Jobs it counts in the summary. Two callers: the language server after a save that changes
// nothing other files' analyses read (the model's version, the names files use, the positions
// the model keeps, the contract: see Project.auditChanged), so only the saved file is audited
// again; and `audit --changed-since`, which audits only the files a change can affect
// (audit-changed.ts). It takes the same steps, in the same order, as audit() for that file;
// test/audit-one.test.ts compares the two on every file of several repositories.
import type { Contract } from '../contract/model';
import type { Finding } from '../base/types';
import type { ReadResult, RepoFs } from '../base/repo-fs';
import { analyzeInContext, bareDollarOn, contractChecks, countFindings, reportedFindings, skippedAnalysis, sortFindings, summarize, type AuditResult, type ContractCheckInput } from './audit';
import { syntaxOnlyAnalysis, type FileAnalysis, type JobRecord } from './analyze';
import { fileFindings, NO_ANALYSIS, type FileOfModel } from './file-findings';
import { fileMayMatter } from './incremental';
import type { HeadReader } from './repo-analysis';
import { accountLookup } from './repo-index';
import { isAudited, mayBeIndexed } from './scope';
import { findingsModelOf, liveAuditModel, type AuditModel, type FileModel } from './file-model';
import { parseYamlFile } from '../yaml/documents';
import { DIRECTIVE } from '../rules/support/directive';

export interface FileAudit {
  findings: Finding[];
  /** The Jobs the summary counts in the file (none where it counts none). */
  jobs: JobRecord[];
}

/** One file as the audit meets it: its read, and whether its text holds a directive the audit counts. */
interface Met {
  read: ReadResult;
  text: string | undefined;
  /** Pass 1 (every file that may feed the index) and pass 1b (generator inputs) note directives. */
  directives: boolean;
}

async function meet(fs: RepoFs, file: FileModel, path: string): Promise<Met> {
  const read = await fs.read(path);
  const text = read.kind === 'text' ? read.text : undefined;
  return { read, text, directives: (mayBeIndexed(path) || file.generatorInput) && text?.includes(DIRECTIVE) === true };
}

/**
 * The analysis audit() keeps for `path` (undefined where it keeps none), by its passes: pass 1 reads
 * every file that may feed the index (a file it cannot read, or that needs only its syntax checked,
 * is done there); pass 1b reads the generator inputs (one with a `$` waits for the rules); pass 2
 * runs the rules where the model says the engine analyses the file, over what pass 1 did.
 */
async function auditAnalysis(contract: Contract, model: AuditModel, path: string, met: Met, head?: HeadReader): Promise<FileAnalysis | undefined> {
  const { read, text } = met;
  const file = model.file(path);
  let analysis: FileAnalysis | undefined;
  let waiting = false;
  if (mayBeIndexed(path) && isAudited(contract, path)) {
    if (read.kind === 'skipped') analysis = skippedAnalysis(path, read);
    else if (text !== undefined && !fileMayMatter(path, text, bareDollarOn(contract))) analysis = syntaxOnlyAnalysis(path, text, parseYamlFile(text));
    else waiting = text !== undefined;
  }
  if (file.generatorInput && text?.includes('$')) waiting = true;
  if (waiting && file.analyzed) {
    analysis = (await analyzeInContext(file.context!, text!, contract, accountLookup(model.declaredAccounts()), head)).analysis;
  }
  if (analysis === undefined && text !== undefined && file.problems.length > 0) analysis = NO_ANALYSIS;
  // Helm templates are not YAML until rendered: nothing is reported in them.
  if (analysis !== undefined && file.role === 'chart-template') analysis = NO_ANALYSIS;
  return analysis;
}

/** The file's findings as audit() reports them, from its analysis; `other`: what the contract checks say of it (the contract file). */
async function reportedOf(contract: Contract, model: AuditModel, path: string, met: Met, analysis: FileAnalysis | undefined, other: Finding[] = []): Promise<Finding[]> {
  const file = model.file(path);
  const of: FileOfModel = { index: findingsModelOf(model), role: file.role, syntax: () => file.syntax };
  const reads = { problems: file.problems.length > 0, directives: met.directives, readText: () => Promise.resolve(met.text) };
  if (analysis !== undefined) return sortFindings(await reportedFindings(of, contract, path, analysis, reads, other));
  if (path === contract.path) {
    const text = met.directives && file.analyzed ? met.text : undefined;
    return sortFindings(fileFindings({ model: of, contract, path, text, analysis: NO_ANALYSIS, other, modelProblems: false }));
  }
  // A directive in a file the rules do not look at is still counted (unused, say).
  if (met.directives && file.analyzed) return sortFindings(await reportedFindings(of, contract, path, NO_ANALYSIS, reads));
  return [];
}

/**
 * What the audit reports of `path` and the Jobs it counts there. Not for the contract file (see
 * auditContractFile): its findings check other files.
 */
export async function auditOneFile(fs: RepoFs, contract: Contract, model: AuditModel, path: string, head?: HeadReader): Promise<FileAudit> {
  const met = await meet(fs, model.file(path), path);
  const analysis = await auditAnalysis(contract, model, path, met, head);
  const jobs = analysis !== undefined && model.file(path).resourceRules ? analysis.jobs : [];
  return { findings: await reportedOf(contract, model, path, met, analysis), jobs };
}

/**
 * The Jobs auditOneFile counts in a file whose text says `Job` (see mentionsJob), without its
 * audit: the Job records of its documents (jobRecordsIn, asked for only where they count) where
 * the resource rules apply, else none. Where they apply the file is audited, so it is analysed as
 * a resource, and analyzeDocuments records exactly those Jobs (test/audit-one.test.ts compares the
 * two on every such file of several repositories).
 */
export async function countedJobs(file: FileModel, records: () => Promise<JobRecord[]>): Promise<JobRecord[]> {
  return file.resourceRules ? records() : [];
}

/** What the audit reports of the contract file: its own findings and the contract checks (contractChecks). */
export async function auditContractFile(input: ContractCheckInput): Promise<Finding[]> {
  const { fs, contract, index, head } = input;
  const model = liveAuditModel(index, contract);
  const other = await contractChecks(input, async (file) => auditAnalysis(contract, model, file, await meet(fs, model.file(file), file), head));
  const met = await meet(fs, model.file(contract.path), contract.path);
  return reportedOf(contract, model, contract.path, met, await auditAnalysis(contract, model, contract.path, met, head), other);
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
