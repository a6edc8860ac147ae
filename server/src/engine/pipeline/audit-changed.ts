// The audit of what a change can affect (`audit --changed-since REV`, `audit --staged`): the
// engine models the repository now and at REV (every file is read and summarised once, and the
// files that did not change give both indexes their summaries; where no changed file tells the
// index anything new, the model now is the model at REV, unchangedModel in affected.ts), works out
// which files the change can reach (affected.ts), and audits only those, each as the whole audit
// would (audit-one.ts). So its findings are the whole audit's on those files, at the cost of the
// index and the affected files rather than of every file's parse and rules.
//
// The summary stays the whole repository's, as the whole audit counts it: the Jobs of every file
// that may hold one (its text says `Job`) are counted, and contract-no-jobs follows that count. A
// file the change cannot affect is counted without its audit, from its documents' Job records
// (countedJobs), which --cache keeps with its summary.
//
// With --cache a run also keeps the model it built (kept-model.ts) for the states it models; a
// later run whose revision is one of them, and whose change tells the model nothing new, takes it
// and builds no model (auditWithKeptModel): the same affected files, the same audit of each.
import type { ReadResult, RepoFs } from '../base/repo-fs';
import type { Finding } from '../base/types';
import {
  countFindings,
  FILES_PER_THREAD,
  mentionsJob,
  readContract,
  sortFindings,
  summarize,
  summarizeFiles,
  summarizeKeyed,
  type AuditOptions,
  type AuditResult,
  type KeyedSummary,
  type Summarized,
  type SummaryStore,
} from './audit';
import type { FileSummary } from './file-summary';
import { mayBeIndexed } from './scope';
import { jobRecordsIn, type JobRecord } from './analyze';
import { parseYamlFile } from '../yaml/documents';
import { affectedFiles, byKey, changesTellNothing, revisionModel, unchangedModel, type RevisionModel } from './affected';
import { auditContractFile, auditOneFile, countedJobs, type FileAudit } from './audit-one';
import { fileResult, IndexMemo } from './index-memo';
import { liveAuditModel, type AuditModel } from './file-model';
import { keptAuditModel, keptModelOf, keptView, NotKept, settingOf, stateDigest, type KeptCounts, type KeptModelSource, type ModelStore } from './kept-model';
import type { Contract } from '../contract/model';

/** One revision's files: how to read them, and their list. */
export interface RevisionFiles {
  fs: RepoFs;
  files: string[];
}

/** The audit of what a change can affect, and which files those are. */
export type ChangedAudit = AuditResult & { affected: ReadonlySet<string> };

/**
 * Each file's summary (summarizeFiles), made in the executor's workers where there is one, and
 * taken from the summary store where it holds the text's: without reading the file where the
 * store knows its text (unread), else after reading it to key it.
 */
async function summarizedNow(fs: RepoFs, paths: string[], options: AuditOptions): Promise<Summarized[]> {
  const store = options.summaryStore;
  const unread: Summarized[] = [];
  const toRead = paths.filter((path) => {
    const kept = store?.unread(path);
    if (kept) unread.push({ path, ...kept });
    return !kept;
  });
  // The workers were counted for every file: where the kept summaries leave too few to pay for their start, none start.
  const workers = toRead.length === paths.length || toRead.length >= FILES_PER_THREAD;
  return [...unread, ...(await summarizedRead(fs, toRead, workers ? options : { ...options, executor: undefined }))];
}

/** summarizedNow for the files that are read. */
async function summarizedRead(fs: RepoFs, paths: string[], options: AuditOptions): Promise<Summarized[]> {
  const store = options.summaryStore;
  if (!options.executor) return store ? fromStore(fs, store, await summarizeKeyed(fs, paths, store.keyOf, knownKeys(store, paths))) : summarizeFiles(fs, paths);
  const executor = options.executor((await readContract(fs, options)).contract);
  try {
    if (!store) return await executor.summarize(paths);
    const known = knownKeys(store, paths);
    return await fromStore(fs, store, executor.summarizeKeyed ? await executor.summarizeKeyed(paths, known) : await summarizeKeyed(fs, paths, store.keyOf, known));
  } finally {
    executor.close();
  }
}

/** The key of the text whose summary the store holds, for each path it holds one for. */
function knownKeys(store: SummaryStore, paths: readonly string[]): Map<string, string> {
  const known = new Map<string, string>();
  for (const path of paths) {
    const key = store.keyFor(path);
    if (key !== undefined) known.set(path, key);
  }
  return known;
}

/**
 * Each file's summary: the store's where the text is the one it holds, else the new one, which the
 * store keeps. A kept summary that cannot be read back (a damaged cache) is made again here.
 */
async function fromStore(fs: RepoFs, store: SummaryStore, keyed: readonly KeyedSummary[]): Promise<Summarized[]> {
  const out: Summarized[] = [];
  for (const file of keyed) {
    const kept = file.summary === null ? store.summaryOf(file.path) : undefined;
    if (kept) {
      out.push({ path: file.path, summary: kept, mentionsJob: file.mentionsJob });
      continue;
    }
    const made = file.summary === null ? (await summarizeKeyed(fs, [file.path], store.keyOf, new Map()))[0] : file;
    if (!made?.summary) continue; // no longer a text: left out, as summarizeFiles leaves it
    store.set(made.path, made.key, made.summary, made.mentionsJob);
    out.push({ path: made.path, summary: made.summary, mentionsJob: made.mentionsJob });
  }
  return out;
}

/** The summaries of the files that did not change, copied: the index of the revision keeps its own. */
function unchangedCopies(made: ReadonlyMap<string, FileSummary>, changed: ReadonlySet<string>): Map<string, FileSummary> {
  return new Map([...made].filter(([path]) => !changed.has(path)).map(([path, summary]) => [path, structuredClone(summary)]));
}

/**
 * The audit of the files the change to `now` can affect (`changed`: the paths that differ from the
 * revision `before` gives, over the files as they are now); null where a setting every file
 * depends on changed (then every file is affected: the caller runs the whole audit).
 */
export async function auditChanged(now: RevisionFiles, changed: ReadonlySet<string>, before: (current: RepoFs) => Promise<RevisionFiles>, options: ChangedOptions = {}): Promise<ChangedAudit | null> {
  // Each file is read once: the revision reads the files that did not change from here.
  const reads = new Map<string, Promise<ReadResult>>();
  const current: RepoFs = {
    listFiles: () => now.fs.listFiles(),
    read: (path) => {
      let read = reads.get(path);
      if (!read) reads.set(path, (read = now.fs.read(path)));
      return read;
    },
  };
  let then: RevisionFiles | undefined;
  const revision = async () => (then ??= await before(current));
  const kept = options.modelStore?.keptModel(settingOf(options));
  if (kept) {
    const audited = await auditWithKeptModel(kept, current, changed, revision, options);
    if (audited !== undefined) return audited;
  }
  const result = await auditWithModels(now, current, changed, revision, { ...options, keepsModel: options.modelStore !== undefined });
  if (result && options.modelStore) await keepModel(options.modelStore, result, now.files, current, changed, options);
  return result && { contract: result.contract, findings: result.findings, summary: result.summary, jobs: result.jobs, affected: result.affected };
}

/** The options of a changed-only audit: the audit's, and where the model is kept between runs. */
export type ChangedOptions = AuditOptions & { modelStore?: ModelStore };

/** auditChanged with the model of the files now built, and the revision's where the change may alter it. */
async function auditWithModels(
  now: RevisionFiles,
  current: RepoFs,
  changed: ReadonlySet<string>,
  revision: () => Promise<RevisionFiles>,
  options: AuditOptions & { keepsModel: boolean },
): Promise<(ChangedAudit & KeptByRun) | null> {
  const memo = new IndexMemo();
  // Every file read and summarised once, in the audit workers where an executor spreads the work
  // (the texts stay there): each index takes the summaries (the revision's, of the files that did not change).
  const summarized = await summarizedNow(current, now.files.filter(mayBeIndexed), options);
  const made = new Map(summarized.map(({ path, summary }): [string, FileSummary] => [path, summary]));
  const jobFiles = new Set(summarized.filter((file) => file.mentionsJob).map((file) => file.path));
  // What earlier runs kept of the files' texts (--cache) is for the files as they are now: for this model only.
  const after = await revisionModel(current, now.files, options, { memo, kept: options.summaryStore }, made);
  const then = await revision();
  // Most changes tell the model nothing new (a Job's TTL, a command): the revision's model is then this one.
  const prior = (await unchangedModel(after, current, then.fs, changed)) ?? (await revisionModel(then.fs, then.files, options, { memo }, unchangedCopies(made, changed)));
  const affected = affectedFiles({ files: changed, before: prior.view, after: after.view, contract: { before: prior.contract, after: after.contract } });
  if (affected === null) return null;

  const { contract, index } = after;
  const model = liveAuditModel(index, contract);
  const audited = await auditedFiles(current, contract, model, affected, options);
  // The Jobs of the files the change cannot affect, counted as their audit counts them, without it
  // (countedJobs), from their Job records: kept with the summary (--cache), else from a parse.
  const recordsOf = (path: string) => async () => (await fileResult(current, path, 'jobs', { kept: options.summaryStore }, jobRecordsOfText)) ?? [];
  const counted: Array<[string, JobRecord[]]> = [];
  for (const path of [...jobFiles].sort()) if (!audited.has(path)) counted.push([path, await countedJobs(model.file(path), recordsOf(path))]);
  let contractFindings: Promise<Finding[]> | undefined;
  const contractFile = (jobs: number) => (contractFindings ??= auditContractFile({ fs: current, contract, loaded: after.loaded, index, jobs, head: options.head }));
  const report = await reported(contract, affected, audited, counted, contractFile);
  // A model kept for later runs keeps the contract file's findings too (a later change may reach the file).
  const kept = options.keepsModel ? { findings: await contractFile(report.summary.jobs), noJobs: report.summary.jobs === 0 } : undefined;
  return { ...report, model: after, contractFile: kept, revision: prior === after ? then : undefined };
}

/** What the audit reports of each affected file but the contract (its findings check the whole model). */
async function auditedFiles(fs: RepoFs, contract: Contract, model: AuditModel, affected: ReadonlySet<string>, options: AuditOptions): Promise<Map<string, FileAudit>> {
  const audited = new Map<string, FileAudit>();
  for (const path of [...affected].sort()) if (path !== contract.path) audited.set(path, await auditOneFile(fs, contract, model, path, options.head));
  return audited;
}

/**
 * The report: the affected files' findings, the contract file's where it is affected, and the
 * summary of every Job counted (the audited files' and `counted`, the others' without their audit).
 */
async function reported(
  contract: Contract,
  affected: ReadonlySet<string>,
  audited: ReadonlyMap<string, FileAudit>,
  counted: ReadonlyArray<[string, JobRecord[]]>,
  contractFile: (jobs: number) => Promise<Finding[]>,
): Promise<ChangedAudit> {
  const byPath = new Map(counted.filter(([path]) => !audited.has(path)));
  for (const [path, file] of audited) byPath.set(path, file.jobs);
  const jobs = [...byPath].filter(([, records]) => records.length > 0).sort(byKey);
  const summary = summarize(
    contract,
    jobs.map(([path, records]) => ({ path, jobs: records })),
  );
  const findings: Finding[] = [...affected].flatMap((path) => audited.get(path)?.findings ?? []);
  if (affected.has(contract.path)) findings.push(...(await contractFile(summary.jobs)));
  const sorted = sortFindings(findings);
  return { contract, findings: sorted, summary: countFindings(summary, sorted), jobs, affected };
}

/**
 * auditChanged with the model an earlier run kept (kept-model.ts), where it is the model of the
 * revision (its state is the revision's: the files git says did not change, and the revision's
 * text of those that did) and of the files now (no changed file tells the model anything new).
 * Undefined where it is not, or lacks what the audit asks (the caller builds the models).
 */
async function auditWithKeptModel(
  kept: KeptModelSource,
  current: RepoFs,
  changed: ReadonlySet<string>,
  revision: () => Promise<RevisionFiles>,
  options: ChangedOptions,
): Promise<ChangedAudit | null | undefined> {
  const store = options.modelStore!;
  const then = await revision();
  const known = (path: string) => (changed.has(path) ? undefined : store.presumedKey(path));
  const state = await stateDigest(then.fs, then.files, known, store.keyOf);
  if (!kept.states.includes(state)) return undefined;
  const core = kept.core();
  const counts = core?.states.get(state);
  if (!core || !counts) return undefined;
  const { contract } = await readContract(current, options);
  const wholeReads = new Set([...core.wholeReads, ...core.generatorInputs]);
  if (!(await changesTellNothing({ contractPath: contract.path, readsWhole: (path) => wholeReads.has(path) }, current, then.fs, changed))) return undefined;
  const view = keptView(core);
  const affected = affectedFiles({ files: changed, before: view, after: view, contract: { before: contract, after: contract } });
  if (affected === null) return undefined;
  try {
    const audited = await auditedFiles(current, contract, keptAuditModel(kept, core), affected, options);
    return await reported(contract, affected, audited, counts.jobs, (jobs) => keptContractFindings(counts, contract, changed, jobs));
  } catch (error) {
    if (error instanceof NotKept) return undefined;
    throw error;
  }
}

/** What a run that built the models gives the model it keeps: the model now, the contract file's findings in it, and the revision where its model is this one. */
interface KeptByRun {
  model: RevisionModel;
  contractFile: KeptCounts['contractFile'];
  revision: RevisionFiles | undefined;
}

/**
 * The contract file's findings, where the kept model's are this run's: they follow from the
 * contract's text, the model (both as kept), the Jobs of the files its entries name, and whether
 * the repository has any Job. NotKept where an entry's file changed or the count of Jobs went to or
 * from none.
 */
function keptContractFindings(counts: KeptCounts, contract: Contract, changed: ReadonlySet<string>, jobs: number): Promise<Finding[]> {
  if (!counts.contractFile || entryFiles(contract).some((file) => changed.has(file)) || counts.contractFile.noJobs !== (jobs === 0)) throw new NotKept('the contract file');
  return Promise.resolve(counts.contractFile.findings);
}

function entryFiles(contract: Contract): string[] {
  return [...contract.noFinishTimeout, ...contract.otherFinishTimeout].map((entry) => entry.file);
}

/**
 * Keeps the model of the files now, keyed by their state, with the Jobs counted and the contract
 * file's findings. Where it is the revision's model too, the revision's state is kept with it: a
 * pull request's next run against the same base finds it, as the next commit's hook finds the one
 * of the files now.
 */
async function keepModel(store: ModelStore, result: ChangedAudit & KeptByRun, files: readonly string[], current: RepoFs, changed: ReadonlySet<string>, options: AuditOptions): Promise<void> {
  const digest = (fs: RepoFs, paths: readonly string[]) => stateDigest(fs, paths, (path) => (changed.has(path) ? undefined : store.presumedKey(path)), store.keyOf);
  const states = new Map<string, KeptCounts>([[await digest(current, files), { jobs: result.jobs, contractFile: result.contractFile }]]);
  if (result.revision) states.set(await digest(result.revision.fs, result.revision.files), await revisionCounts(result, result.revision, changed));
  store.keepModel(keptModelOf(result.model, files, states, settingOf(options)));
}

/**
 * The Jobs the revision counts and its contract file's findings, where its model is the model now
 * (every changed file is a text on both sides and tells the model the same): the changed files'
 * Jobs are counted from their texts at the revision; the contract file's findings are the ones now
 * where no file its entries name changed and both or neither count no Job (else not kept).
 */
async function revisionCounts(result: ChangedAudit & KeptByRun, then: RevisionFiles, changed: ReadonlySet<string>): Promise<KeptCounts> {
  const { contract, index } = result.model;
  const model = liveAuditModel(index, contract);
  const jobs = new Map(result.jobs);
  for (const path of changed) {
    const read = await then.fs.read(path);
    const records = read.kind === 'text' && mayBeIndexed(path) && mentionsJob(read.text) ? await countedJobs(model.file(path), () => Promise.resolve(jobRecordsOfText(read.text))) : [];
    if (records.length > 0) jobs.set(path, records);
    else jobs.delete(path);
  }
  const counted = [...jobs].sort(byKey);
  const none = counted.length === 0;
  const same = result.contractFile && !entryFiles(contract).some((file) => changed.has(file)) && result.contractFile.noJobs === none;
  return { jobs: counted, contractFile: same ? result.contractFile : undefined };
}

/** The Job records of a text's documents. */
function jobRecordsOfText(text: string): JobRecord[] {
  return jobRecordsIn(parseYamlFile(text));
}
