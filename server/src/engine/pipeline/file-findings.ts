// One file's findings as every face reports them, in one order of steps:
//
//   the rules' analysis (analyze.ts) → the fixes that need the whole
//   repository's names (declaring an undefined name for its outside source) →
//   the Flux model's problems that live in the file → its YAML errors where
//   they matter (scope.ts syntaxScope: what Flux reads) → other checks' findings
//   about it (the contract entries, for the contract file) → the severities
//   of the contract's `rules:` map → what the face shows (the editor leaves
//   plain YAML syntax errors to YAML extensions) → the file's own directives,
//   which see only what is shown.
//
// The audit runs it over every file it looks at, the editor over the document
// being edited and the contract file, so the editor shows what the audit
// reports by construction. The contract entries are checked the same way for
// both (contractEntryFindings).
import { checkContractEntries, checkExternalAccounts, type FileJobs } from '../contract/checks';
import type { Contract } from '../contract/model';
import type { ReadResult } from '../base/repo-fs';
import type { Finding } from '../base/types';
import { DIRECTIVE } from '../rules/support/directive';
import type { FileAnalysis } from './analyze';
import { withDirectives } from './directives';
import { withDeclareFixes, withGraphProblems, type FindingsModel } from './repo-analysis';
import type { FileRole, RepoIndex } from './repo-index';
import { syntaxScope } from './scope';
import { applySeverities } from './severity';
import { scopedSyntaxFindings, yamlSyntax, type SyntaxScope } from '../rules/yaml-syntax';

export const NO_ANALYSIS: FileAnalysis = { findings: [], jobs: [] };

/** What a file's findings read of the model besides its analysis: the live index's answers (liveFileOf), or a kept model's (audit-one.ts). */
export interface FileOfModel {
  index: FindingsModel;
  role: FileRole;
  /** Where the file's YAML errors matter (scope.ts syntaxScope), asked only where it has one. */
  syntax: () => SyntaxScope;
}

/** The live index's answers for one file. */
export function liveFileOf(index: RepoIndex, contract: Contract, path: string): FileOfModel {
  return { index, role: index.roleOf(path), syntax: () => syntaxScope(contract, index, path) };
}

export interface FileFindingsInput {
  model: FileOfModel;
  contract: Contract;
  path: string;
  /** The file's text: its directives and the model's problems need it (undefined: neither applies). */
  text: string | undefined;
  analysis: FileAnalysis;
  /** Findings other checks made about this file (the contract entries, in the contract file). */
  other?: readonly Finding[];
  /** What the face shows of the findings with their severities (default: everything). */
  shows?: (finding: Finding) => boolean;
  /** Whether the model's problems in the file are reported (not in a Helm template, which is not YAML until rendered). Default true. */
  modelProblems?: boolean;
}

export function fileFindings({ model, contract, path, text, analysis, other = [], shows, modelProblems = true }: FileFindingsInput): Finding[] {
  const { index } = model;
  const withFixes = withDeclareFixes(index, contract, analysis);
  const withProblems = text === undefined || !modelProblems ? withFixes : withGraphProblems(index, contract, path, text, withFixes);
  const own = withProblems.findings.some((finding) => finding.rule === yamlSyntax.meta.id) ? scopedSyntaxFindings(withProblems.findings, model.syntax()) : withProblems.findings;
  const severities = applySeverities(other.length > 0 ? [...own, ...other] : own, contract.rules);
  const shown = shows ? severities.filter(shows) : severities;
  // A directive counts what the face shows: over a rule that is off (or hidden) it is unused.
  if (text === undefined || !text.includes(DIRECTIVE)) return shown;
  return withDirectives(shown, new Map([[path, text]]), contract.rules);
}

/** What the repository holds at the path a contract entry names, from a read of it and the analysis of its text. */
export async function fileJobs(read: ReadResult, analyze: (text: string) => FileAnalysis | Promise<FileAnalysis>): Promise<FileJobs> {
  if (read.kind === 'text') return { exists: true, jobs: (await analyze(read.text)).jobs };
  return read.kind === 'missing' ? { exists: false } : { exists: true, jobs: [] };
}

/** The contract's entries checked against the manifests: the Job lists, and the external ServiceAccounts. */
export function contractEntryFindings(contract: Contract, index: RepoIndex, jobsIn: (file: string) => FileJobs): Finding[] {
  return [...checkContractEntries(contract, jobsIn), ...checkExternalAccounts(contract, index)];
}
