// The whole-repository audit: the same per-file analysis the editor runs,
// over every file under `jobs.include`, then the contract checks and the
// summary. Used by the CLI, the server's "Audit Workspace" and the tests.
import { FileAnalysis, JobRecord, pushAll } from './analyze';
import { coverageOf } from '../contract/coverage';
import { analyzeInRepo, fileContext, FileContext, HeadReader, inputFrom, mayHoldJob } from './repo-analysis';
import { analyzeFile, syntaxOnlyAnalysis } from './analyze';
import { ParsedDocument, parseYamlFile } from '../yaml/documents';
import { fileMayMatter } from './incremental';
import { surelyClean } from '../yaml/surely-clean';
import { checkFluxEntries, FileJobs } from '../contract/checks';
import { loadContract } from '../contract/load';
import type { Contract, Settings } from '../contract/model';
import { CONTRACT_FILE_NAME } from '../contract/model';
import { RULE_VALUE_MAX, type InputFacts } from '../flux/facts/model';
import { inputFacts } from '../flux/facts/generator-inputs';
import { RepoFs, ReadResult } from '../base/repo-fs';
import { fileResult, type EarlierResults, type KeptResults } from './index-memo';
import { accountLookup, AccountList, RepoIndex } from './repo-index';
import { detached, FileSummary, isTrivial, namesUsedIn, summarizeFile } from './file-summary';
import { unreadableContractFinding } from '../rules/contract-invalid';
import { noJobsFinding } from '../rules/contract-no-jobs';
import { skippedFinding } from '../rules/file-skipped';
import { fluxSubstitutionBareDollar } from '../rules/flux-substitution-bare-dollar';
import { RULE_IDS } from '../rules/registry';
import { isAnalyzed, isAudited, mayBeIndexed, resourceRulesApply } from './scope';
import { DIRECTIVE } from '../rules/support/directive';
import type { Finding } from '../base/types';
import { NO_ANALYSIS, fileJobs, contractEntryFindings, fileFindings, liveFileOf, type FileOfModel } from './file-findings';

export interface Summary {
  files: number;
  jobs: number;
  withTtl: number;
  keepNone: number;
  errors: number;
  warnings: number;
}

export interface AuditResult {
  contract: Contract;
  findings: Finding[];
  summary: Summary;
  /** The Jobs the summary counts, by file (files with none left out): what a later change to one file takes out of it. */
  jobs: Array<[string, JobRecord[]]>;
}

export interface AuditOptions {
  /** Repository-relative path of the contract file. */
  contractPath?: string;
  settings?: Settings;
  /** The file at git HEAD, for job-immutable-template; absent: that rule stays silent. */
  head?: HeadReader;
  /** Runs the passes elsewhere (worker threads); default: in this thread. */
  executor?: (contract: Contract) => AuditExecutor;
  /** Summaries kept between runs (the CLI's --cache), for the changed-only audit (audit-changed.ts). */
  summaryStore?: SummaryStore;
}

/** A worker thread pays for its start (a second or so of loading and warming up) from about this many files. */
export const FILES_PER_THREAD = 2000;

/**
 * Where summaries outlive a run (the CLI's --cache: node/summary-cache.ts). A summary is a pure
 * function of the path and the text, so one kept under the text's key is that text's summary.
 */
export interface SummaryStore extends KeptResults {
  keyOf: TextKey;
  /** The key of the text whose summary is kept for the path. */
  keyFor(path: string): string | undefined;
  /** The kept summary (a copy of its own: the index may keep and change it); undefined where it cannot be read back (a damaged cache). */
  summaryOf(path: string): FileSummary | undefined;
  /**
   * The kept summary of a file whose text the store knows without it being read (the CLI: git says
   * the file is the blob the summary was made of); undefined: the file must be read.
   */
  unread(path: string): KeptSummary | undefined;
  /** Keeps a new summary (as it is now: a later change to the object is not kept), and whether its text says Job. */
  set(path: string, key: string, summary: FileSummary, mentionsJob: boolean): void;
}

/** A summary kept from an earlier run, and whether its text says Job (see Summarized). */
export type KeptSummary = Omit<Summarized, 'path'>;

export async function readContract(fs: RepoFs, options: AuditOptions) {
  const path = options.contractPath ?? CONTRACT_FILE_NAME;
  const read = await fs.read(path);
  const text = read.kind === 'text' ? read.text : undefined;
  const loaded = loadContract(path, text, options.settings ?? {}, RULE_IDS);
  if (read.kind === 'skipped') {
    // It exists: a fix that "creates" it would write into bytes nobody read.
    loaded.contract.exists = true;
    loaded.contract.unreadable = true;
    loaded.findings.push(unreadableContractFinding(path, read.reason));
  }
  return loaded;
}

/**
 * Reads every file that may feed the index once, then the generator inputs its kustomization
 * files name, the files kustomize reads whole and the names the model wants; `earlier` holds what
 * files gave before (in this run for another revision, or in earlier runs for their texts now);
 * `made`: summaries made elsewhere (audit workers), which the index takes as its own.
 */
export async function buildRepoIndex(fs: RepoFs, files: string[], contract: Contract, earlier: EarlierResults = {}, made?: ReadonlyMap<string, FileSummary>): Promise<RepoIndex> {
  const index = new RepoIndex();
  index.setFiles(files);
  index.setFluxConfig(contract.flux);
  for (const path of files.filter(mayBeIndexed)) {
    // Summarised elsewhere (summarizeFiles): recorded without reading the file here.
    const summary = made?.get(path);
    if (summary) {
      index.record(path, summary);
      continue;
    }
    const read = await fs.read(path);
    if (read.kind === 'text') index.record(path, indexSummary(path, read.text));
  }
  await readInputs(fs, index, earlier);
  await readKustomizeTexts(fs, index);
  await readWantedNames(fs, index, earlier);
  return index;
}

/** Reads the files the kustomize model reads whole (patches, replacements, env files) that the index does not hold yet. */
export async function readKustomizeTexts(fs: RepoFs, index: RepoIndex): Promise<string[]> {
  const paths = index.unreadKustomizeTexts();
  for (const path of paths) {
    const read = await fs.read(path);
    if (read.kind === 'text') index.recordText(path, read.text);
  }
  return paths;
}

/** The names a text's documents use, as the index keeps them (no slice of the text). */
export function namesOfText(text: string): string[] {
  return detached(namesUsedIn(parseYamlFile(text)));
}

/** Reads the names the files the index wants them of use (see RepoIndex.namesWanted). */
export async function readWantedNames(fs: RepoFs, index: RepoIndex, earlier: EarlierResults = {}): Promise<number> {
  const wanted = [...index.namesWanted()];
  for (const path of wanted) index.setUses(path, (await fileResult(fs, path, 'names', earlier, namesOfText)) ?? []);
  return wanted.length;
}

/** Reads the generator inputs the index names and has not read yet (a kustomization file changed, say). */
export async function readInputs(fs: RepoFs, index: RepoIndex, earlier: EarlierResults = {}): Promise<string[]> {
  const paths = index.unreadInputs();
  for (const path of paths) {
    const facts = await fileResult(fs, path, 'input', earlier, (text) => detached(inputFacts(path, text)));
    if (facts) index.recordInput(path, facts);
  }
  return paths;
}

/** What pass 1 learns of some files: their summaries, the analysis of those that need only a syntax check, the rest. */
export interface ScanResult {
  summaries: Array<[string, FileSummary]>;
  analyses: Array<[string, FileAnalysis]>;
  /** Files that need the rules, hence the complete model. */
  waiting: string[];
  /** Generator inputs read in pass 1b: what they hold. */
  inputs: Array<[string, InputFacts]>;
  /** Files with a `flux-job-guard-disable-next-line` comment. */
  directives: string[];
}

/** Everything pass 2 needs to rebuild the index anywhere (a worker thread included): only summaries that say something travel. */
export interface IndexData {
  files: string[];
  summaries: Array<[string, FileSummary]>;
  inputs: Array<[string, InputFacts]>;
}

/** What pass 2 learns of a file: its analysis, and the names it uses (read from the same parse). */
export interface Analyzed {
  path: string;
  analysis: FileAnalysis;
  uses: string[];
}

/**
 * Runs the passes of the audit over parts of the file list: in this thread
 * by default, or spread over worker threads (server/src/node). Every pass is
 * a pure function of the files, so the split cannot change results.
 */
export interface AuditExecutor {
  /** Pass 1 (files that may feed the index) or, with `inputs`, pass 1b (generator inputs). */
  scan(paths: string[], inputs?: boolean): Promise<ScanResult>;
  /** Pass 2: files with what the model says of each (no graph travels), and the ServiceAccounts the repository declares. Ends the executor. */
  analyze(contexts: FileContext[], accounts: AccountList): Promise<Analyzed[]>;
  /** Without the passes (audit --changed-since): each file's read and its summary as the language server's index takes it (summarizeFiles). */
  summarize(paths: string[]): Promise<Summarized[]>;
  /** The same with the keys of the texts (summarizeKeyed): no summary where `known` holds the text's key. Absent: the executor has no keys. */
  summarizeKeyed?(paths: string[], known: ReadonlyMap<string, string>): Promise<KeyedSummary[]>;
  /** Ends the executor where pass 2 did not run. */
  close(): void;
}

/**
 * A file as buildRepoIndex reads and summarises it (without the names it uses), and whether its
 * text says `Job` (the files an audit's Job counts come from). A text read is not part of it: it
 * stays in the thread that read it, and the few files read again are read again.
 */
export type Summarized = { path: string; summary: FileSummary; mentionsJob: boolean };

/** Whether a text says `Job`: every Job is in such a file (`kind: Job`, quoted, in flow style). */
export function mentionsJob(text: string): boolean {
  return /\bJob\b/.test(text);
}

/**
 * What buildRepoIndex reads of each text file, done ahead (in audit workers, say); files that are
 * not text are left out (the index reads them itself). `posted`: the results go to another thread,
 * whose copy of them holds no slice of the texts, so they are not detached here.
 */
export async function summarizeFiles(fs: RepoFs, paths: string[], posted = false): Promise<Summarized[]> {
  const out: Summarized[] = [];
  for (const path of paths) {
    const read = await fs.read(path);
    if (read.kind === 'text') out.push({ path, summary: indexSummary(path, read.text, !posted), mentionsJob: mentionsJob(read.text) });
  }
  return out;
}

/** A digest of a text: two texts with one key are taken to be the same text (summaries kept between runs, the CLI's --cache). */
export type TextKey = (text: string) => string;

/** A file summarised with the key of its text; `summary` null: the caller holds the summary of a text with that key (it was not made again). */
export type KeyedSummary = Omit<Summarized, 'summary'> & { key: string; summary: FileSummary | null };

/**
 * summarizeFiles where the caller keeps summaries from earlier runs: each text's key, and a summary
 * only where `known` (the key the caller holds for the path) is not the text's. Reading each file
 * to key it costs a fraction of its parse.
 */
export async function summarizeKeyed(fs: RepoFs, paths: string[], keyOf: TextKey, known: ReadonlyMap<string, string>, posted = false): Promise<KeyedSummary[]> {
  const out: KeyedSummary[] = [];
  for (const path of paths) {
    const read = await fs.read(path);
    if (read.kind !== 'text') continue;
    const key = keyOf(read.text);
    const summary = known.get(path) === key ? null : indexSummary(path, read.text, !posted);
    out.push({ path, key, summary, mentionsJob: mentionsJob(read.text) });
  }
  return out;
}

/** A file's summary as the index records it: names used are read afterwards, only where they matter (most files never need the parse). */
function indexSummary(path: string, text: string, detach = true): FileSummary {
  // Detached: the index outlives the texts (a server keeps it for the session).
  const summary = summarizeFile(path, text, undefined, false);
  return detach ? detached(summary) : summary;
}

/**
 * The texts pass 1 read for pass 2, and the parse where pass 1 made one (to
 * read a file's facts), while those fit a budget: a file is parsed once, and
 * the trees kept stay small (a tree is many times its text).
 */
export class KeptFiles {
  private readonly files = new Map<string, { text: string; documents?: ParsedDocument[] }>();
  private parsedChars = 0;

  constructor(private readonly parseBudgetChars: number) {}

  keep(path: string, text: string, documents?: ParsedDocument[]): void {
    const fits = documents !== undefined && this.parsedChars + text.length <= this.parseBudgetChars;
    if (fits) this.parsedChars += text.length;
    this.files.set(path, fits ? { text, documents } : { text });
  }

  /** The file's text (and parse), forgotten here: pass 2 reads each file once. */
  take(path: string): { text: string; documents?: ParsedDocument[] } | undefined {
    const kept = this.files.get(path);
    this.files.delete(path);
    if (kept?.documents) this.parsedChars -= kept.text.length;
    return kept;
  }
}

/** Characters of text whose parse pass 1 keeps for pass 2, in one thread and per worker. */
export const PARSE_BUDGET_CHARS = { local: 4 << 20, worker: 1 << 20 };

/** A file the audit would look at that it cannot read (too large, binary): its one finding. */
export function skippedAnalysis(path: string, read: Extract<ReadResult, { kind: 'skipped' }>): FileAnalysis {
  return { findings: [skippedFinding(path, read)], jobs: [] };
}

/** Whether the contract turns on flux-substitution-bare-dollar (the prefilter then looks at bare `$NAME`s too). */
export function bareDollarOn(contract: Contract): boolean {
  return (contract.rules[fluxSubstitutionBareDollar.meta.id] ?? 'off') !== 'off';
}

/** Pass 1 over `paths`: read and parse each file once, for its summary and (when that is all it needs) its syntax. */
export async function scanFiles(fs: RepoFs, contract: Contract, paths: string[], keep?: KeptFiles, inputs = false): Promise<ScanResult> {
  const result: ScanResult = { summaries: [], analyses: [], waiting: [], inputs: [], directives: [] };
  const bareDollar = bareDollarOn(contract);
  for (const path of paths) {
    const read = await fs.read(path);
    if (read.kind === 'text' && read.text.includes(DIRECTIVE)) result.directives.push(path);
    if (inputs) {
      if (read.kind !== 'text') continue;
      result.inputs.push([path, inputFacts(path, read.text)]);
      if (read.text.includes('$')) {
        result.waiting.push(path);
        keep?.keep(path, read.text);
      }
      continue;
    }
    const audited = isAudited(contract, path);
    if (read.kind !== 'text') {
      if (audited && read.kind === 'skipped') result.analyses.push([path, skippedAnalysis(path, read)]);
      continue;
    }
    // A file no rule past the syntax check can fire in (fileMayMatter) needs only its syntax checked,
    // once, and not even that where the fast reader shows there is no problem to find (surelyClean).
    const needsRules = audited && fileMayMatter(path, read.text, bareDollar);
    const syntaxOnly = audited && !needsRules;
    const clean = syntaxOnly && surelyClean(read.text);
    let documents = syntaxOnly && !clean ? parseYamlFile(read.text) : undefined;
    // The names a file that waits for pass 2 uses come from pass 2's parse (they shape no graph).
    const summary = summarizeFile(path, read.text, documents ?? (() => (documents ??= parseYamlFile(read.text))), !needsRules);
    if (!isTrivial(summary)) result.summaries.push([path, withoutValues(summary)]);
    if (needsRules) {
      result.waiting.push(path);
      keep?.keep(path, read.text, documents);
    } else if (audited) result.analyses.push([path, clean ? NO_ANALYSIS : syntaxOnlyAnalysis(path, read.text, documents!)]);
  }
  return result;
}

/**
 * The audit's summary with the variables' values cut to what a rule reads (RULE_VALUE_MAX, and one
 * character more to show that a value is longer). The editor's hover, inlay hints and preview read
 * whole values from the server's own index, which keeps them; on a repository with thousands of
 * ConfigMaps the values were a third of the audit's memory.
 */
function withoutValues(summary: FileSummary): FileSummary {
  for (const source of summary.facts?.variableSources ?? []) for (const entry of source.entries.values()) entry.value = entry.value.slice(0, RULE_VALUE_MAX + 1);
  return summary;
}

/** The repository index from what the passes found. */
export function indexFrom(data: IndexData, contract: Contract): RepoIndex {
  const index = new RepoIndex();
  index.setFiles(data.files);
  index.setFluxConfig(contract.flux);
  for (const [path, summary] of data.summaries) index.record(path, summary);
  for (const [path, facts] of data.inputs) index.recordInput(path, facts);
  return index;
}

/**
 * Pass 2 over files the model has placed: every rule. The model's problems are added by the
 * audit once, where the names every file uses are known.
 */
export async function analyzeWaiting(fs: RepoFs, contract: Contract, contexts: FileContext[], accounts: AccountList, head?: HeadReader, kept?: KeptFiles): Promise<Analyzed[]> {
  const out: Analyzed[] = [];
  const declares = accountLookup(accounts);
  for (const context of contexts) {
    const path = context.file;
    let file = kept?.take(path);
    if (file === undefined) {
      const read = await fs.read(path);
      if (read.kind !== 'text') continue;
      file = { text: read.text };
    }
    out.push({ path, ...(await analyzeInContext(context, file.text, contract, declares, head, file.documents)) });
  }
  return out;
}

/** Pass 2 on one file: every rule, in the context the model gives it, and the names it uses (from the same parse). */
export async function analyzeInContext(
  context: FileContext,
  text: string,
  contract: Contract,
  declares: ReturnType<typeof accountLookup>,
  head?: HeadReader,
  parsed?: ParsedDocument[],
): Promise<Omit<Analyzed, 'path'>> {
  const headText = head && mayHoldJob(text) ? await head(context.file) : undefined;
  const input = inputFrom(context, text, contract, declares, headText);
  const documents = input.yaml === false ? [] : (parsed ?? parseYamlFile(text));
  return { analysis: analyzeFile(input, documents), uses: input.yaml === false ? [] : namesUsedIn(documents, input.flux) };
}

/** The executor that runs both passes here, keeping the waiting texts between them. */
function localExecutor(fs: RepoFs, contract: Contract, head?: HeadReader): AuditExecutor {
  const kept = new KeptFiles(PARSE_BUDGET_CHARS.local);
  return {
    scan: (paths, inputs) => scanFiles(fs, contract, paths, kept, inputs),
    analyze: (contexts, accounts) => analyzeWaiting(fs, contract, contexts, accounts, head, kept),
    summarize: (paths) => summarizeFiles(fs, paths),
    close: () => undefined,
  };
}

export async function audit(fs: RepoFs, options: AuditOptions = {}): Promise<AuditResult> {
  const { contract, findings: contractFindings } = await readContract(fs, options);
  // Workers start (load their code) while this thread lists the files.
  const executor = options.executor?.(contract) ?? localExecutor(fs, contract, options.head);
  const files = (await fs.listFiles()).sort();

  // Pass 1: every file is read and parsed once, for the index and its syntax. Files that can
  // need more than a syntax check wait for the model the others complete.
  const scanned = await executor.scan(files.filter(mayBeIndexed));
  const data: IndexData = { files, summaries: scanned.summaries, inputs: [] };
  const index = indexFrom(data, contract);
  // Pass 1b: the files the kustomizations' generators read (scripts, env and config files).
  const inputs = await executor.scan(index.unreadInputs(), true);
  data.inputs = inputs.inputs;
  for (const [path, facts] of inputs.inputs) index.recordInput(path, facts);
  await readKustomizeTexts(fs, index);
  const analyses = new Map<string, FileAnalysis>(scanned.analyses);

  // Pass 2: with the model complete, the files that need rules.
  const waiting = [...new Set([...scanned.waiting, ...inputs.waiting])].filter((path) => isAnalyzed(contract, index, path));
  const contexts = waiting.map((path) => fileContext(index, contract, path));
  for (const { path, analysis, uses } of await executor.analyze(contexts, index.declaredAccounts())) {
    analyses.set(path, analysis);
    index.setUses(path, uses);
  }
  const readText = async (path: string) => {
    const read = await fs.read(path);
    return read.kind === 'text' ? read.text : undefined;
  };
  // The model's problems are reported where they live, now that every file's names are known: a
  // file the audit does not otherwise look at (a Kustomization outside jobs.include) too.
  const problemFiles = new Set(index.graphProblems().map((problem) => problem.file));
  for (const path of problemFiles) if (!analyses.has(path) && (await readText(path)) !== undefined) analyses.set(path, NO_ANALYSIS);
  // Helm templates are not YAML until rendered: nothing is reported in them.
  for (const path of analyses.keys()) if (index.roleOf(path) === 'chart-template') analyses.set(path, NO_ANALYSIS);

  const counted = [...analyses.entries()].filter(([path]) => resourceRulesApply(contract, index, path));
  const summary = summarize(
    contract,
    counted.map(([path, analysis]) => ({ path, jobs: analysis.jobs })),
  );
  const contractFile = await contractChecks({ fs, contract, loaded: contractFindings, index, jobs: summary.jobs, head: options.head }, (file) => analyses.get(file));

  // Each file's findings, as the editor shows them (file-findings.ts). Directives count where the
  // engine looks (the editor asks the same), so an unused one is reported in both.
  const directiveFiles = new Set([...scanned.directives, ...inputs.directives]);
  const findings: Finding[] = [];
  const report = async (path: string, analysis: FileAnalysis) => {
    const other = path === contract.path ? contractFile : [];
    pushAll(findings, await reportedFindings(liveFileOf(index, contract, path), contract, path, analysis, { problems: problemFiles.has(path), directives: directiveFiles.has(path), readText }, other));
  };
  for (const [path, analysis] of analyses) await report(path, analysis);
  for (const path of directiveFiles) if (!analyses.has(path) && path !== contract.path && isAnalyzed(contract, index, path)) await report(path, NO_ANALYSIS);
  if (!analyses.has(contract.path)) {
    const text = directiveFiles.has(contract.path) && isAnalyzed(contract, index, contract.path) ? await readText(contract.path) : undefined;
    pushAll(findings, fileFindings({ model: liveFileOf(index, contract, contract.path), contract, path: contract.path, text, analysis: NO_ANALYSIS, other: contractFile, modelProblems: false }));
  }
  const final = sortFindings(findings);
  countFindings(summary, final);
  return { contract, findings: final, summary, jobs: counted.filter(([, analysis]) => analysis.jobs.length > 0).map(([path, analysis]) => [path, analysis.jobs]) };
}

/** What the contract checks read: the contract and the findings of reading it, the model, the summary's count of Jobs. */
export interface ContractCheckInput {
  fs: RepoFs;
  contract: Contract;
  loaded: Finding[];
  index: RepoIndex;
  jobs: number;
  head?: HeadReader;
}

/**
 * The findings that live in the contract file besides its own: its entries checked against the Jobs
 * of the files they name (`analysisOf`: the audit's analysis of a file, if it made one), its Flux
 * lists against the model, and contract-no-jobs.
 */
export async function contractChecks(
  { fs, contract, loaded, index, jobs, head }: ContractCheckInput,
  analysisOf: (file: string) => FileAnalysis | undefined | Promise<FileAnalysis | undefined>,
): Promise<Finding[]> {
  // Contract entries may name files outside `include`: read those for the check, without reporting their findings.
  const jobsIn = new Map<string, FileJobs>();
  for (const entry of [...contract.noFinishTimeout, ...contract.otherFinishTimeout]) {
    if (jobsIn.has(entry.file)) continue;
    const analysis = await analysisOf(entry.file);
    const analyzeText = async (text: string) => analyzeInRepo(index, contract, entry.file, text, undefined, head && mayHoldJob(text) ? await head(entry.file) : undefined);
    jobsIn.set(entry.file, analysis ? { exists: true, jobs: analysis.jobs } : await fileJobs(await fs.read(entry.file), analyzeText));
  }
  const found = [...loaded, ...contractEntryFindings(contract, index, (file) => jobsIn.get(file)!), ...checkFluxEntries(contract, index)];
  // Without a contract file, a repository with no Job is simply "ok: 0 Job(s)": many Flux repositories have none.
  if (jobs === 0 && contract.exists) found.push(noJobsFinding(contract));
  return found;
}

/** What the audit reports of one analysed file; its text is read where the model's problems or a directive need it. */
export async function reportedFindings(
  model: FileOfModel,
  contract: Contract,
  path: string,
  analysis: FileAnalysis,
  reads: { problems: boolean; directives: boolean; readText: (path: string) => Promise<string | undefined> },
  other: Finding[] = [],
): Promise<Finding[]> {
  const chart = model.role === 'chart-template';
  const text = (reads.problems && !chart) || reads.directives ? await reads.readText(path) : undefined;
  return fileFindings({ model, contract, path, text, analysis, other, modelProblems: !chart });
}

/** The summary's error and warning counts, from every finding the audit reports. */
export function countFindings(summary: Summary, findings: readonly Finding[]): Summary {
  summary.errors = findings.filter((finding) => finding.severity === 'error').length;
  summary.warnings = findings.filter((finding) => finding.severity === 'warning').length;
  return summary;
}

export function summarize(contract: Contract, files: Array<{ path: string; jobs: JobRecord[] }>): Summary {
  const summary: Summary = { files: 0, jobs: 0, withTtl: 0, keepNone: 0, errors: 0, warnings: 0 };
  for (const { path, jobs } of files) {
    if (jobs.length > 0) summary.files++;
    for (const job of jobs) {
      summary.jobs++;
      if (job.ttl !== null) summary.withTtl++;
      else if (coverageOf(contract, path, job.name).noFinishTimeout.length > 0) summary.keepNone++;
    }
  }
  return summary;
}

export function sortFindings(findings: Finding[]): Finding[] {
  const key = (f: Finding) => [f.file, f.range.start.line, f.range.start.character, f.rule] as const;
  return [...findings].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] < kb[i]) return -1;
      if (ka[i] > kb[i]) return 1;
    }
    return 0;
  });
}
