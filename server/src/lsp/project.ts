// One workspace folder as the server sees it: its contract, its repository
// index and the analysis of its files. No LSP types here: the connection
// layer (the feature modules of features/) turns what this returns into LSP messages.
import { analyzeFile, type FileAnalysis } from '../engine/pipeline/analyze';
import { analysisInput, analyzeInRepo, HeadReader, mayHoldJob } from '../engine/pipeline/repo-analysis';
import { inputFacts } from '../engine/flux/facts/generator-inputs';
import { isAnalyzed, mayBeIndexed } from '../engine/pipeline/scope';
import { isYamlPath } from '../engine/base/paths';
import { isKustomizationFile } from '../engine/flux/facts/model';
import { DocumentSession } from '../engine/pipeline/incremental';
import { chunkKey } from '../engine/yaml/line-index';
import { isGoYamlOnly, type ParsedDocument } from '../engine/yaml/documents';
import { audit, AuditResult, bareDollarOn, buildRepoIndex, readContract, readInputs, readKustomizeTexts, readWantedNames, type Summarized } from '../engine/pipeline/audit';
import { skippedFinding } from '../engine/rules/file-skipped';
import { FileJobs } from '../engine/contract/checks';
import type { Contract, Settings } from '../engine/contract/model';
import { OverlayFs, ReadResult, RepoFs } from '../engine/base/repo-fs';
import { RepoIndex } from '../engine/pipeline/repo-index';
import type { Finding } from '../engine/base/types';
import type { FluxJobGuardSettings } from '../shared/settings';
import { yamlSyntax } from '../engine/rules/yaml-syntax';
import { dependsOnDefinitions } from '../engine/editor/depends-on-sites';
import { hoverAt, HoverResult } from '../engine/editor/hover';
import { Link, plainLink } from '../engine/editor/link';
import { renderAsFlux, variableAt } from '../engine/editor/substitution-info';
import { NO_ANALYSIS, fileFindings, fileJobs, contractEntryFindings, liveFileOf } from '../engine/pipeline/file-findings';
import { auditOneFile, patchedAudit, type FileAudit } from '../engine/pipeline/audit-one';
import { liveAuditModel } from '../engine/pipeline/file-model';

/** What a platform needs to audit a folder elsewhere (in a worker thread, say): the project's settings and unsaved texts. */
export interface AuditRequest {
  contractPath: string;
  settings: Settings;
  maxFileSize: number;
  /** Whether git HEAD may be read (a trusted workspace with git). */
  git: boolean;
  /** The open documents' texts, which shadow the disk. */
  open: Array<[string, string]>;
}

/** What the server shows of an audit, and the Jobs it counted by file (what a later save takes out of the summary). */
export type AuditOutcome = Pick<AuditResult, 'findings' | 'summary' | 'jobs'>;

/**
 * An audit as the server shows it; `changed`: only these files' findings may differ from the audit
 * before (else any file's may); `whole`: why an audit asked for some files audited all of them.
 */
export type AuditShown = AuditOutcome & { changed?: string[]; whole?: string };

/** The last whole audit and what it stands on: the index it was checked against, the model's stamp and the open texts when it started. */
interface AuditBasis {
  index: RepoIndex;
  stamp: string;
  open: ReadonlyMap<string, string>;
  found: AuditOutcome;
}

/**
 * Reads and summarises a folder's files elsewhere (worker threads) for its index, as summarizeFiles
 * does; undefined where that would not pay (a small folder) or cannot be done (the project then
 * indexes in this thread).
 */
export type Summarizer = (request: { contract: Contract; maxFileSize: number; open: Array<[string, string]>; files: string[] }) => Promise<Summarized[] | undefined>;

/** Runs the audit elsewhere; undefined when it cannot (the project then audits in this thread). */
export type AuditRunner = (request: AuditRequest) => Promise<AuditOutcome> | undefined;

export class Project {
  readonly fs: OverlayFs;
  contract!: Contract;
  private contractLoadFindings: Finding[] = [];
  index = new RepoIndex();
  private ready: Promise<void> | null = null;

  constructor(
    readonly rootUri: string,
    disk: RepoFs,
    public settings: FluxJobGuardSettings,
    private readonly head?: HeadReader,
    private readonly summarizer?: Summarizer,
  ) {
    this.fs = new OverlayFs(disk);
  }

  /** How the last index was built: the files read, and whether worker threads read and summarised them (for the log). */
  indexed: { files: number; elsewhere: boolean } = { files: 0, elsewhere: false };

  /** The file at git HEAD when the lifecycle rule needs it (and git may be used here). */
  async headText(path: string, text: string): Promise<string | null | undefined> {
    if (!this.head || !mayHoldJob(text)) return undefined;
    // HEAD moves rarely: one `git show` per file while it is open.
    let cached = this.heads.get(path);
    if (!cached) this.heads.set(path, (cached = this.head(path)));
    return cached;
  }

  private readonly heads = new Map<string, Promise<string | null | undefined>>();

  /** Loads the contract and the repository index; call again after a settings change. */
  initialize(): Promise<void> {
    this.ready = (async () => {
      await this.reloadContract();
      this.index = await this.indexOf(await this.fs.listFiles());
    })();
    return this.ready;
  }

  /**
   * The index of `files`. Where the platform can, worker threads read and summarise them: the texts,
   * the parses and their garbage stay there, and the server's heap holds only what the index keeps.
   */
  private async indexOf(files: string[]): Promise<RepoIndex> {
    const indexed = files.filter(mayBeIndexed);
    const request = { contract: this.contract, maxFileSize: this.settings.maxFileSize, open: [...this.fs.open], files: indexed };
    const elsewhere = await this.summarizer?.(request).catch(() => undefined);
    this.indexed = { files: indexed.length, elsewhere: elsewhere !== undefined };
    return buildRepoIndex(this.fs, files, this.contract, undefined, elsewhere && new Map(elsewhere.map(({ path, summary }) => [path, summary])));
  }

  whenReady(): Promise<void> {
    return this.ready ?? this.initialize();
  }

  get contractPath(): string {
    return this.settings.contractPath.replace(/^\.\//, '');
  }

  async reloadContract(): Promise<void> {
    const loaded = await readContract(this.fs, {
      contractPath: this.contractPath,
      settings: { requiredTtl: this.settings.ttl.required, rules: this.settings.rules },
    });
    this.contract = loaded.contract;
    this.contractVersion++;
    this.contractLoadFindings = loaded.findings;
    this.index.setFluxConfig(this.contract.flux);
  }

  /** Whether the server looks at an open document: a YAML file, or a file some kustomization's generator reads. */
  wants(path: string): boolean {
    return /\.ya?ml$/i.test(path) || this.index.isGeneratorInput(path);
  }

  /** Findings of one file as the editor shows them (severities applied, syntax errors only when asked). */
  analyze(path: string, text: string, headText?: string | null): Finding[] {
    if (path === this.contract.path) return [];
    // Like a file on disk, an open document over the size limit is skipped, not parsed again at
    // every keystroke (a 40 MB mapping would hold the server for many seconds each time).
    const size = text.length > this.settings.maxFileSize / 3 ? utf8Length(text) : 0;
    if (size > this.settings.maxFileSize) {
      return this.skipped(path, { kind: 'skipped', reason: `the file is ${size} bytes, more than the size limit of ${this.settings.maxFileSize} bytes`, notYaml: false });
    }
    // Exactly what the audit reports for the file: nothing where the audit does not look, but the model's problems.
    if (!isAnalyzed(this.contract, this.index, path)) {
      return this.index.graphProblemsIn(path).length > 0 ? this.fileFindings(path, text, NO_ANALYSIS) : [];
    }
    const analysis = this.openFiles.has(path) ? this.incrementalAnalysis(path, text, headText) : analyzeFile(analysisInput(this.index, this.contract, path, text, headText));
    return this.fileFindings(path, text, analysis);
  }

  /** The audit's steps after the rules (file-findings.ts); the fix that writes a directive is offered with the code actions (withDisableFixes). */
  private fileFindings(path: string, text: string | undefined, analysis: FileAnalysis, other?: Finding[]): Finding[] {
    return fileFindings({
      model: liveFileOf(this.index, this.contract, path),
      contract: this.contract,
      path,
      text,
      analysis,
      other,
      shows: (finding) => this.shows(finding),
    });
  }

  /** Per-document caches of the files open in the editor. */
  private readonly openFiles = new Map<string, DocumentSession>();
  /** The text of each open file the index last learnt (an edit reaches the index when it is analysed). */
  private readonly indexedOpenTexts = new Map<string, string>();
  private contractVersion = 0;

  opened(path: string): void {
    if (!this.openFiles.has(path)) this.openFiles.set(path, new DocumentSession(path));
  }

  closed(path: string): void {
    this.openFiles.delete(path);
    this.indexedOpenTexts.delete(path);
    this.heads.delete(path);
  }

  private incrementalAnalysis(path: string, text: string, headText?: string | null): FileAnalysis {
    const session = this.openFiles.get(path)!;
    session.update(text);
    const input = analysisInput(this.index, this.contract, path, text, headText);
    const context = `${this.contractVersion}|${this.index.version}|${input.role}|${headText === undefined ? 'u' : headText === null ? 'n' : chunkKey(headText, 0, headText.length)}`;
    // With syntax errors left to YAML extensions, documents no rule can fire in are not even parsed.
    const prefilter = this.settings.showYamlSyntaxErrors ? null : { bareDollar: bareDollarOn(this.contract) };
    return session.analyze(input, `${context}|${JSON.stringify(prefilter)}`, prefilter);
  }

  rawAnalysis(path: string, text: string, documents?: ParsedDocument[], headText?: string | null): FileAnalysis {
    return analyzeInRepo(this.index, this.contract, path, text, documents, headText);
  }

  /**
   * A file's new text reaches the index first (its facts can change its own
   * analysis). Returns the documents parsed on the way, and whether other
   * files' analyses may have changed.
   */
  updateIndex(path: string, text: string | undefined): boolean {
    const session = this.openFiles.get(path);
    if (session && text !== undefined) this.indexedOpenTexts.set(path, text);
    if (text === undefined || !session || !isYamlLike(path)) return this.index.update(path, text);
    // An open YAML file: its summary comes from the documents the edit touched (the rest are cached).
    session.update(text);
    let changed = this.index.record(path, session.summary());
    if (this.index.readsWhole(path)) changed = this.index.recordText(path, text) || changed;
    return this.index.isGeneratorInput(path) ? this.index.recordInput(path, inputFacts(path, text)) || changed : changed;
  }

  /** Reads the generator inputs a kustomization file has just started to name, and the names the model now wants. */
  async readNewInputs(): Promise<boolean> {
    const read = (await readInputs(this.fs, this.index)).length > 0;
    const texts = (await readKustomizeTexts(this.fs, this.index)).length > 0;
    const names = (await readWantedNames(this.fs, this.index)) > 0;
    return read || texts || names;
  }

  /** Findings that live in the contract file: its own problems and every entry check. */
  async contractFindings(): Promise<Finding[]> {
    const jobsIn = new Map<string, FileJobs>();
    for (const entry of [...this.contract.noFinishTimeout, ...this.contract.otherFinishTimeout]) {
      if (jobsIn.has(entry.file)) continue;
      jobsIn.set(entry.file, await fileJobs(await this.fs.read(entry.file), (text) => this.rawAnalysis(entry.file, text)));
    }
    // Without the contract file's text: a directive written in it is applied by the audit only (as before the per-file pipeline).
    return this.fileFindings(this.contract.path, undefined, NO_ANALYSIS, [...this.contractLoadFindings, ...contractEntryFindings(this.contract, this.index, (file) => jobsIn.get(file)!)]);
  }

  /** Whether a change to `path` can change what the contract file's diagnostics say. */
  affectsContract(path: string): boolean {
    return path === this.contract.path || [...this.contract.noFinishTimeout, ...this.contract.otherFinishTimeout].some((entry) => entry.file === path);
  }

  /**
   * Hover Markdown for a `${NAME}` or a TTL at `offset`; `uriOf` turns the files it mentions into links;
   * `shown`: the rules of the diagnostics there (the hover does not repeat them).
   */
  async hover(path: string, text: string, offset: number, uriOf: (file: string) => string, shown: ReadonlySet<string> = new Set()): Promise<HoverResult | null> {
    const variable = variableAt(this.index, this.contract, path, text, offset);
    const texts = new Map<string, string>();
    for (const { definition } of variable?.byKustomization ?? []) {
      if (definition && !texts.has(definition.file)) {
        const read = await this.fs.read(definition.file);
        if (read.kind === 'text') texts.set(definition.file, read.text);
      }
    }
    const plain = plainLink((file) => texts.get(file));
    // `[file:line](uri#Lline)`: VS Code opens the file at that line.
    const link: Link = (file, at) => {
      const label = plain(file, at);
      const line = /:(\d+)$/.exec(label)?.[1];
      return `[${label}](${uriOf(file)}${line ? `#L${line}` : ''})`;
    };
    return hoverAt(this.index, this.contract, path, text, offset, link, variable, shown);
  }

  /** Where the `${NAME}` at `offset` is defined, else what the dependsOn entry there names: files and spans. */
  definitions(path: string, text: string, offset: number): Array<{ file: string; span: [number, number] }> {
    const variable = variableAt(this.index, this.contract, path, text, offset);
    if (!variable) return dependsOnDefinitions(this.index, path, text, offset);
    return variable.byKustomization.flatMap(({ definition }) => (definition ? [{ file: definition.file, span: definition.span }] : []));
  }

  preview(path: string, text: string): string {
    return renderAsFlux(this.index, this.contract, path, text);
  }

  isAnalyzed(path: string): boolean {
    return isAnalyzed(this.contract, this.index, path);
  }

  /**
   * Where the platform can, the audit runs in a worker thread of its own: the model it builds and
   * everything it reads go with that thread, not into the server's memory for good.
   */
  async audit(runner?: AuditRunner): Promise<AuditShown> {
    await this.whenReady();
    const basis = { index: this.index, stamp: this.modelStamp(), open: new Map(this.fs.open) };
    const settings: Settings = { requiredTtl: this.settings.ttl.required, rules: this.settings.rules };
    const elsewhere = runner?.({ contractPath: this.contractPath, settings, maxFileSize: this.settings.maxFileSize, git: this.head !== undefined, open: [...basis.open] });
    // The audit shows everything it counts (yaml-syntax included), so the Problems panel matches the summary line.
    const found = (await elsewhere?.catch(() => undefined)) ?? (await audit(this.fs, { contractPath: this.contractPath, head: this.head, settings }));
    this.lastAudit = { ...basis, found };
    return found;
  }

  private lastAudit: AuditBasis | null = null;

  /**
   * The audit again after `paths` changed (a save, a file changed on disk). Where nothing other
   * files' analyses read has changed since the last audit began (the index's version, the
   * positions it keeps, the model's problems, the contract) and no path is the contract, a generator input or a file a
   * contract entry names, only those files (and open documents edited since) are audited again
   * and the rest of the last audit stands; otherwise the whole folder is audited.
   */
  async auditChanged(paths: readonly string[], runner?: AuditRunner): Promise<AuditShown> {
    await this.whenReady();
    const basis = this.lastAudit;
    const files = basis ? this.changedSince(basis, paths) : 'no audit before';
    if (basis && typeof files !== 'string') {
      const audited = new Map<string, FileAudit>();
      const model = liveAuditModel(this.index, this.contract);
      for (const path of files) audited.set(path, await auditOneFile(this.fs, this.contract, model, path, this.head));
      const found = patchedAudit(this.contract, basis.found, audited);
      if (found) {
        this.lastAudit = { ...basis, found };
        return { ...found, changed: [...files] };
      }
    }
    return { ...(await this.audit(runner)), whole: typeof files === 'string' ? files : 'contract-no-jobs may come or go (no Job before, or none now)' };
  }

  /** The files to audit again after `paths` changed; else why only a whole audit is exact. */
  private changedSince(basis: AuditBasis, paths: readonly string[]): Set<string> | string {
    if (basis.index !== this.index) return 'the settings changed';
    if (basis.stamp !== this.modelStamp()) return 'the model changed';
    const files = new Set(paths);
    for (const [path, text] of this.fs.open) if (basis.open.get(path) !== text) files.add(path);
    for (const path of basis.open.keys()) if (!this.fs.open.has(path)) files.add(path);
    for (const path of files) {
      if (this.affectsContract(path)) return `the contract names ${path}`;
      if (this.index.isGeneratorInput(path)) return `a generator reads ${path}`;
      // an edit the index has not learnt yet (its analysis is on its way) may change the model
      const open = this.fs.open.get(path);
      if (open !== undefined && this.openFiles.has(path) && this.indexedOpenTexts.get(path) !== open) return `the model has not learnt the last edit of ${path} yet`;
    }
    return files;
  }

  /**
   * What other files' analyses read of the model: it moves with every change they could see. The
   * names files use reach other files only through the model's problems (names no source defines,
   * say), so those are compared, not the names: opening a file teaches the index names it had not read.
   */
  private modelStamp(): string {
    return `${this.contractVersion}|${this.index.version}|${this.index.positionsVersion}|${this.index.problemsStamp()}`;
  }

  skipped(path: string, read: Extract<ReadResult, { kind: 'skipped' }>): Finding[] {
    return this.fileFindings(path, undefined, { findings: [skippedFinding(path, read)], jobs: [] });
  }

  /** YAML extensions show syntax errors, but not what only go-yaml (so Flux) refuses (excessive aliasing, `\/`, an unknown anchor): that is always shown. */
  private shows(finding: Finding): boolean {
    return this.settings.showYamlSyntaxErrors || finding.rule !== yamlSyntax.meta.id || isGoYamlOnly(finding.message);
  }
}

function isYamlLike(path: string): boolean {
  return isYamlPath(path) || isKustomizationFile(path);
}

/** UTF-8 length of a text without encoding it (a lone surrogate counts as the 3 bytes of U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
