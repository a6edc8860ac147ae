// Analysis of one file: parse it, find its Job resources, run the Job rules,
// and return findings plus the facts the contract checks and the summary
// need. Pure: the caller supplies the text, the file's role and the contract.
import type { Contract, TtlListName } from '../contract/model';
import { coverageOf } from '../contract/coverage';
import type { FileRole } from './repo-index';
import { contractEntryEdit, contractListEdit } from '../contract/edit';
import { isJobDocument, jobFacts, type JobFacts } from '../k8s/jobs';
import { DOCUMENT_CHECKS, JOB_CHECKS } from '../rules/registry';
import type { DocumentRuleContext, JobRuleContext, RepositoryFacts } from '../rules/rule';
import { makeFinding } from '../rules/finding';
import { syntaxFinding } from '../rules/yaml-syntax';
import { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, RuleMeta } from '../base/types';
import { parseYamlFile, ParsedDocument } from '../yaml/documents';
import { buildersIn, FluxFileContext } from '../flux/substitution/regions';
import { documentSubstitutionFindings, generatorSubstitutionFindings } from './substitution-findings';
import type { OffsetEdit } from '../yaml/edit';
import type { ServiceAccountCreator } from './repo-index';

export interface JobRecord {
  name: string | null;
  /** null: no TTL under spec; else its value (null when invalid). */
  ttl: { value: number | null } | null;
}

export interface FileAnalysis {
  findings: Finding[];
  jobs: JobRecord[];
}

export interface FileInput {
  file: string;
  text: string;
  role: FileRole;
  /**
   * Whether the Job and pod rules apply to its documents: resources Flux applies (or, where the
   * model finds no root or the contract writes jobs.include, any resource under jobs.include).
   * Default: the role is 'resource'.
   */
  resourceRules?: boolean;
  /** Whether the kubelet's rule (pod-kubelet-dollar) sees text Flux does not substitute: see kubeletRulesApply. Default: resourceRules. */
  kubeletRules?: boolean;
  /** Whether the file is YAML (parsed into documents); a generator input may be any text. Default true. */
  yaml?: boolean;
  contract: Contract;
  /** The Flux Kustomizations that build the file; absent: none does. */
  flux?: FluxFileContext;
  /** Repository-wide facts for the pod and lifecycle rules; absent: those rules that need them stay silent. */
  repository?: RepositoryFacts;
  /** What probably creates the ServiceAccounts its pods run as (repo-index.ts), as data. */
  accountCreators?: ServiceAccountCreator[];
}

const NO_REPOSITORY: RepositoryFacts = { declaresServiceAccount: () => true };

/** The analysis of a whole file: its YAML documents, and its bytes where a generator reads them. */
export function analyzeFile(input: FileInput, documents?: ParsedDocument[]): FileAnalysis {
  const generated = analyzeGeneratorInput(input);
  if (input.yaml === false) return generated;
  const analysis = analyzeDocuments(input, documents ?? parseYamlFile(input.text));
  return generated.findings.length === 0 ? analysis : { findings: [...generated.findings, ...analysis.findings], jobs: analysis.jobs };
}

/** Substitution findings in the bytes of a file that a configMapGenerator reads (whole-text: never per document). */
export function analyzeGeneratorInput(input: FileInput): FileAnalysis {
  if (!input.flux || input.role === 'chart-template' || !input.flux.entries.some((entry) => entry.role === 'generator')) return { findings: [], jobs: [] };
  const lines = new LineIndex(input.text);
  return {
    findings: generatorSubstitutionFindings(input.text, input.flux, substitutionFinding(input.file, lines), (title, edits, preferred) => fileFix(input.file, lines, title, edits, preferred)),
    jobs: [],
  };
}

function substitutionFinding(file: string, lines: LineIndex) {
  return (meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], severity?: Finding['severity']): Finding => {
    const made = makeFinding(meta, file, lines, span, message, null, fixes);
    return severity ? { ...made, severity } : made;
  };
}

/** The analysis of YAML documents (the whole file's, or one document's in the editor's cache). */
export function analyzeDocuments(input: FileInput, documents: ParsedDocument[]): FileAnalysis {
  if (input.role === 'chart-template') return { findings: [], jobs: [] }; // Helm templates are not YAML until rendered
  const lines = new LineIndex(input.text);
  const findings: Finding[] = [];
  const jobs: JobRecord[] = [];
  const resourceRules = input.resourceRules ?? input.role === 'resource';
  const kubeletRules = input.kubeletRules ?? resourceRules;
  for (const parsed of documents) {
    if (parsed.errors.length > 0) {
      findings.push(syntaxFinding(input.file, lines, parsed));
      continue;
    }
    if (input.flux || kubeletRules)
      pushAll(
        findings,
        documentSubstitutionFindings(parsed, input.flux, kubeletRules, substitutionFinding(input.file, lines), (title, edits, preferred) => fileFix(input.file, lines, title, edits, preferred)),
      );
    if (!resourceRules) continue;
    const documentContext = documentRuleContext(input, lines);
    for (const check of DOCUMENT_CHECKS) pushAll(findings, check(parsed, documentContext));
    if (!isJobDocument(parsed)) continue;
    const job = jobFacts(parsed);
    jobs.push(jobRecord(job));
    const context = jobRuleContext(input, lines, job.name);
    for (const check of JOB_CHECKS) findings.push(...check(job, context));
  }
  return { findings, jobs };
}

/** What the audit's summary counts of a Job. */
function jobRecord(job: JobFacts): JobRecord {
  return { name: job.name, ttl: job.ttl ? { value: job.ttl.value } : null };
}

/**
 * The Jobs of a file's documents as analyzeDocuments records them where the resource rules apply
 * (the audit's count): a pure function of the text, so it can be kept with the file's summary.
 */
export function jobRecordsIn(documents: readonly ParsedDocument[]): JobRecord[] {
  return documents.filter((parsed) => parsed.errors.length === 0 && isJobDocument(parsed)).map((parsed) => jobRecord(jobFacts(parsed)));
}

/** `target.push(...items)` for any length: spreading 120,000 findings into push() overflows the stack. */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/**
 * The analysis of a file no rule can fire in (see documentMayMatter, fileMayMatter): only its
 * YAML syntax. Equal to analyzeFile's result for such a file, without walking it.
 */
export function syntaxOnlyAnalysis(file: string, text: string, documents: ParsedDocument[]): FileAnalysis {
  const broken = documents.filter((parsed) => parsed.errors.length > 0);
  if (broken.length === 0) return { findings: [], jobs: [] };
  const lines = new LineIndex(text);
  return { findings: broken.map((parsed) => syntaxFinding(file, lines, parsed)), jobs: [] };
}

function fileFix(file: string, lines: LineIndex, title: string, edits: OffsetEdit[], preferred?: boolean): Fix {
  return {
    title,
    edits: edits.map((edit) => ({ file, range: lines.range(edit.start, edit.end), newText: edit.newText })),
    ...(preferred ? { preferred } : {}),
  };
}

/** What every rule context shares: the file, its text and lines, the contract, one-file fixes. */
function baseContext(input: FileInput, lines: LineIndex) {
  const { file, text, contract } = input;
  return { file, text, lines, contract, fix: (title: string, edits: OffsetEdit[], preferred?: boolean) => fileFix(file, lines, title, edits, preferred) };
}

function documentRuleContext(input: FileInput, lines: LineIndex): DocumentRuleContext {
  const { file, contract } = input;
  return {
    ...baseContext(input, lines),
    builders: input.flux ? buildersIn(input.flux, ['resource']) : [],
    repository: input.repository ?? NO_REPOSITORY,
    accountCreators: input.accountCreators ?? [],
    finding: (meta, span, message, fixes, job) => makeFinding(meta, file, lines, span, message, job ?? null, fixes),
    contractListFix: (title, path, itemLines) => {
      const edit = contractListEdit(contract, path, [itemLines]);
      return edit ? { title, edits: [edit] } : null;
    },
  };
}

function jobRuleContext(input: FileInput, lines: LineIndex, name: string | null): JobRuleContext {
  const { file, contract } = input;
  return {
    ...baseContext(input, lines),
    coverage: coverageOf(contract, file, name),
    finding: (meta, span, message, fixes) => makeFinding(meta, file, lines, span, message, name, fixes),
    contractFix: (title: string, list: TtlListName, value?: number) => {
      const edit = contractEntryEdit(contract, list, file, name, value);
      return edit ? { title, edits: [edit] } : null;
    },
  };
}
