// The whole-repository audit: the same per-file analysis the editor runs,
// over every file under `jobs.include`, then the contract checks and the
// summary. Used by the CLI, the server's "Audit Workspace" and the tests.
import { FileAnalysis, JobRecord, makeFinding, coverageOf, pushAll } from './analyze';
import { analyzeInRepo, HeadReader, mayHoldJob, withGraphProblems } from './repo-analysis';
import { syntaxOnlyAnalysis } from './analyze';
import { extractFacts, FileFacts, mayHoldFacts } from './flux/facts';
import { parseYamlFile } from './yaml-docs';
import { documentMayMatter } from './incremental';
import { checkContractEntries, checkExternalAccounts, FileJobs, noJobsFinding } from './contract/checks';
import { loadContract } from './contract/load';
import type { Contract, Settings } from './contract/model';
import { CONTRACT_FILE_NAME, contractDir } from './contract/model';
import { matchesAny } from './glob';
import { isYamlPath } from './paths';
import { RepoFs, ReadResult } from './repo-fs';
import { RepoIndex } from './repo-index';
import { FILE_SKIPPED, YAML_SYNTAX } from './rules/catalogue';
import { RULE_IDS } from './rules';
import { applySeverities } from './severity';
import { LineIndex } from './text';
import type { Finding } from './types';

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
}

export interface AuditOptions {
  /** Repository-relative path of the contract file. */
  contractPath?: string;
  settings?: Settings;
  /** The file at git HEAD, for job-immutable-template; absent: that rule stays silent. */
  head?: HeadReader;
  /** Runs the passes elsewhere (worker threads); default: in this thread. */
  executor?: (contract: Contract) => AuditExecutor;
}

const ALWAYS_EXCLUDED = /(^|\/)(node_modules|\.git)(\/|$)/;

/** Whether the audit looks at a file: a YAML file under `include`, not under `exclude`. */
export function isAudited(contract: Contract, path: string): boolean {
  if (!isYamlPath(path) || ALWAYS_EXCLUDED.test(path) || path === contract.path) return false;
  const relative = relativeToContract(contract, path);
  if (relative === null || (HIDDEN.test(relative) && !contract.include.some((glob) => HIDDEN.test(glob)))) return false;
  return matchesAny(relative, contract.include) && !matchesAny(relative, contract.exclude);
}

/**
 * A hidden file or folder (`.archive/`, `.github/`): as with minimatch's default, `*` and `**` do
 * not reach into them; an include glob that names one (`.archive/**`) does.
 */
const HIDDEN = /(^|\/)\.(?!\.?\/)/;

/** Globs are relative to the contract file's folder. */
function relativeToContract(contract: Contract, path: string): string | null {
  const dir = contractDir(contract.path);
  if (dir === '') return path;
  return path.startsWith(dir + '/') ? path.slice(dir.length + 1) : null;
}

export async function readContract(fs: RepoFs, options: AuditOptions) {
  const path = options.contractPath ?? CONTRACT_FILE_NAME;
  const read = await fs.read(path);
  const text = read.kind === 'text' ? read.text : undefined;
  const loaded = loadContract(path, text, options.settings ?? {}, RULE_IDS);
  if (read.kind === 'skipped') {
    // It exists: a fix that "creates" it would write into bytes nobody read.
    loaded.contract.exists = true;
    loaded.contract.unreadable = true;
    loaded.findings.push({ rule: 'contract-invalid', severity: 'error', file: path, range: new LineIndex('').range(0, 0), message: `The contract file cannot be read: ${read.reason}.`, job: null });
  }
  return loaded;
}

/** Whether a file can contribute to the repository index (YAML files and Chart.yaml). */
export function mayBeIndexed(path: string): boolean {
  return (isYamlPath(path) || path === 'Kustomization' || path.endsWith('/Kustomization')) && !ALWAYS_EXCLUDED.test(path);
}

/** Reads every file that may feed the index once; `texts` keeps them for the analysis that follows. */
export async function buildRepoIndex(fs: RepoFs, files: string[], texts?: Map<string, ReadResult>): Promise<RepoIndex> {
  const index = new RepoIndex();
  index.setFiles(files);
  for (const path of files.filter(mayBeIndexed)) {
    const read = await fs.read(path);
    texts?.set(path, read);
    if (read.kind === 'text') index.update(path, read.text);
  }
  return index;
}

/** A finding for a file that could not be analysed. */
export function skippedFinding(path: string, read: Extract<ReadResult, { kind: 'skipped' }>): Finding {
  const meta = read.notYaml ? YAML_SYNTAX : FILE_SKIPPED;
  return makeFinding(meta, path, new LineIndex(''), [0, 0], `Not analysed: ${read.reason}.`, null);
}


/** What pass 1 learns of some files: their facts, the analysis of those that need only a syntax check, the rest. */
export interface ScanResult {
  facts: Array<[string, FileFacts | null]>;
  analyses: Array<[string, FileAnalysis]>;
  /** Audited files that need the rules, hence the complete graph. */
  waiting: string[];
}

/**
 * Runs the two passes of the audit over parts of the file list: in this
 * thread by default, or spread over worker threads (server/src/node). Both
 * passes are pure functions of the files, so the split cannot change results.
 */
export interface AuditExecutor {
  scan(paths: string[]): Promise<ScanResult>;
  analyze(paths: string[], files: string[], facts: Array<[string, FileFacts | null]>): Promise<Array<[string, FileAnalysis]>>;
}

/** Pass 1 over `paths`: read and parse each file once, for its facts and (when that is all it needs) its syntax. */
export async function scanFiles(fs: RepoFs, contract: Contract, paths: string[], keep?: Map<string, string>): Promise<ScanResult> {
  const result: ScanResult = { facts: [], analyses: [], waiting: [] };
  const bareDollar = (contract.rules['flux-substitution-bare-dollar'] ?? 'off') !== 'off';
  for (const path of paths) {
    const audited = isAudited(contract, path);
    const read = await fs.read(path);
    if (read.kind !== 'text') {
      if (audited && read.kind === 'skipped') result.analyses.push([path, { findings: [skippedFinding(path, read)], jobs: [] }]);
      continue;
    }
    const holdsFacts = mayHoldFacts(path, read.text);
    // A file no rule can fire in (the editor's prefilter, over the whole file) needs only its syntax checked, once.
    const needsRules = audited && documentMayMatter(read.text, bareDollar);
    const documents = holdsFacts || (audited && !needsRules) ? parseYamlFile(read.text) : undefined;
    result.facts.push([path, holdsFacts ? extractFacts(path, read.text, documents) : null]);
    if (needsRules) {
      result.waiting.push(path);
      keep?.set(path, read.text);
    } else if (audited) result.analyses.push([path, syntaxOnlyAnalysis(path, read.text, documents!)]);
  }
  return result;
}

/** The repository index from the facts pass 1 found. */
export function indexFromFacts(files: string[], facts: Array<[string, FileFacts | null]>): RepoIndex {
  const index = new RepoIndex();
  index.setFiles(files);
  for (const [path, fileFacts] of facts) index.update(path, '', fileFacts);
  return index;
}

/** Pass 2 over `paths`: every rule, with the complete graph (graph problems included). */
export async function analyzeWaiting(fs: RepoFs, contract: Contract, index: RepoIndex, paths: string[], head?: HeadReader, kept?: Map<string, string>): Promise<Array<[string, FileAnalysis]>> {
  const out: Array<[string, FileAnalysis]> = [];
  for (const path of paths) {
    let text = kept?.get(path);
    kept?.delete(path); // let the text go
    if (text === undefined) {
      const read = await fs.read(path);
      if (read.kind !== 'text') continue;
      text = read.text;
    }
    const headText = head && mayHoldJob(text) ? await head(path) : undefined;
    out.push([path, analyzeInRepo(index, contract, path, text, undefined, headText)]);
  }
  return out;
}

/** The executor that runs both passes here, keeping the waiting texts between them. */
function localExecutor(fs: RepoFs, contract: Contract, head?: HeadReader): AuditExecutor {
  const kept = new Map<string, string>();
  return {
    scan: (paths) => scanFiles(fs, contract, paths, kept),
    analyze: (paths, files, facts) => analyzeWaiting(fs, contract, indexFromFacts(files, facts), paths, head, kept),
  };
}

export async function audit(fs: RepoFs, options: AuditOptions = {}): Promise<AuditResult> {
  const { contract, findings: contractFindings } = await readContract(fs, options);
  const files = (await fs.listFiles()).sort();
  const findings: Finding[] = [...contractFindings];
  const executor = options.executor?.(contract) ?? localExecutor(fs, contract, options.head);

  // Pass 1: every file is read and parsed once, for the index (facts) and its syntax. Files
  // that can need more than a syntax check wait for the graph the others complete.
  const scanned = await executor.scan(files.filter(mayBeIndexed));
  const index = indexFromFacts(files, scanned.facts);
  const analyses = new Map<string, FileAnalysis | null>(scanned.analyses);
  const syntaxOnly = new Set(analyses.keys());

  // Pass 2: with the graph complete, the files that need rules, and graph problems where they live.
  for (const [path, analysis] of await executor.analyze(scanned.waiting, files, scanned.facts)) analyses.set(path, analysis);
  const analyzeText = async (path: string, text: string) => {
    const headText = options.head && mayHoldJob(text) ? await options.head(path) : undefined;
    return analyzeInRepo(index, contract, path, text, undefined, headText);
  };
  for (const path of new Set(index.fluxGraph().problems.map((problem) => problem.file))) {
    const analysis = analyses.get(path);
    const read = analysis && syntaxOnly.has(path) ? await fs.read(path) : null;
    if (analysis && read?.kind === 'text') analyses.set(path, withGraphProblems(index, path, read.text, analysis));
  }
  for (const path of analyses.keys()) if (index.roleOf(path) === 'chart-template') analyses.set(path, { findings: [], jobs: [] });
  for (const analysis of analyses.values()) if (analysis) pushAll(findings, analysis.findings);

  // Contract entries may name files outside `include`: read those for the check, without reporting their findings.
  const jobsIn = new Map<string, FileJobs>();
  for (const entry of [...contract.noFinishTimeout, ...contract.otherFinishTimeout]) {
    if (jobsIn.has(entry.file)) continue;
    let analysis = analyses.get(entry.file);
    if (analysis === undefined) {
      const read = await fs.read(entry.file);
      analysis = read.kind === 'text' ? await analyzeText(entry.file, read.text) : read.kind === 'skipped' ? { findings: [], jobs: [] } : null;
    }
    jobsIn.set(entry.file, analysis ? { exists: true, jobs: analysis.jobs } : { exists: false });
  }
  pushAll(findings, checkContractEntries(contract, (file) => jobsIn.get(file)!));
  pushAll(findings, checkExternalAccounts(contract, index));

  const audited = [...analyses.entries()].filter(([path, analysis]) => analysis && isAudited(contract, path));
  const summary = summarize(contract, audited.map(([path, analysis]) => ({ path, jobs: analysis!.jobs })));
  if (summary.jobs === 0) findings.push(noJobsFinding(contract));
  const final = sortFindings(applySeverities(findings, contract.rules));
  summary.errors = final.filter((finding) => finding.severity === 'error').length;
  summary.warnings = final.filter((finding) => finding.severity === 'warning').length;
  return { contract, findings: final, summary };
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
