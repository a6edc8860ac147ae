// One file analysed in the context of its repository: its role (resource,
// patch, chart template, generator input), the Flux Kustomizations that build
// it, and the model's problems that live in it. The audit and the server both
// call this, so the editor and the CLI cannot disagree.
import { analyzeFile, FileAnalysis, FileInput } from './analyze';
import type { RepositoryFacts } from '../rules/rule';
import { declareFixes } from '../rules/flux-substitution-undefined';
import type { Contract } from '../contract/model';
import type { FluxFileContext } from '../flux/substitution/regions';
import { isKustomizationFile } from '../flux/facts/model';
import { isYamlPath } from '../base/paths';
import type { RepoIndex } from './repo-index';
import { ruleOfProblem } from '../rules/registry';
import { makeFinding } from '../rules/finding';
import { isAudited, kubeletRulesApply, resourceRulesApply } from './scope';
import { LineIndex } from '../yaml/line-index';
import type { Finding } from '../base/types';
import type { ParsedDocument } from '../yaml/documents';
import type { BuildEntry, Builder } from '../flux/model/world';
import type { GraphProblem } from '../flux/model/build';
import type { OutsideSource } from '../flux/model/outside-sources';

export function fluxContextOf(index: RepoIndex, contract: Contract, path: string): FluxFileContext | undefined {
  const entries = index.fluxEntriesOf(path);
  if (entries.length === 0 && contract.substitution !== 'always') return undefined;
  return { entries, strict: contract.strict, strictFrom: contract.strictFrom, mode: contract.substitution, definers: definersOfPlainWorlds(index, entries) };
}

/** The definers of the worlds where something builds the file without substituting it (only there can a sibling's postBuild be missing). */
function definersOfPlainWorlds(index: RepoIndex, entries: readonly BuildEntry[]): FluxFileContext['definers'] {
  let definers: Map<number, ReadonlyMap<string, readonly Builder[]>> | undefined;
  for (const { builder } of entries) {
    if (builder.vars?.substitutes || definers?.has(builder.world.index)) continue;
    const byName = index.fluxGraph().definersIn(builder.world);
    if (byName.size > 0) (definers ??= new Map()).set(builder.world.index, byName);
  }
  return definers;
}

/** Reads a file's text at git HEAD: undefined when git cannot tell, null when the file is not in HEAD. */
export type HeadReader = (path: string) => Promise<string | null | undefined>;

/** Files whose HEAD version the lifecycle rule needs: those that may hold a Job. */
export function mayHoldJob(text: string): boolean {
  return /kind:\s*["']?Job\b/.test(text);
}

/** What a file's findings read of the model besides its analysis (file-findings.ts): the live index, or a kept model (file-model.ts). */
export interface FindingsModel {
  outsideSources(): readonly OutsideSource[];
  graphProblemsIn(path: string): readonly GraphProblem[];
}

/** What the model says of a file: everything analyzeFile takes but its text, the contract and the repository's accounts. */
export type FileContext = Omit<FileInput, 'text' | 'contract' | 'repository'>;

export function fileContext(index: RepoIndex, contract: Contract, path: string): FileContext {
  return {
    file: path,
    role: index.roleOf(path),
    resourceRules: resourceRulesApply(contract, index, path),
    kubeletRules: kubeletRulesApply(contract, index, path),
    // A file only a generator reads is data (any text); an audited YAML file is also parsed.
    yaml: (isYamlPath(path) || isKustomizationFile(path)) && isAudited(contract, path),
    flux: fluxContextOf(index, contract, path),
    accountCreators: index.accountCreatorsFor(path),
  };
}

/** A file's analysis input from its context (made here, or sent to an audit worker). */
export function inputFrom(context: FileContext, text: string, contract: Contract, declaresServiceAccount: RepositoryFacts['declaresServiceAccount'], headText?: string | null): FileInput {
  return { ...context, text, contract, repository: { declaresServiceAccount, headText } };
}

/** Everything analyzeFile needs about one file, from the repository index. */
export function analysisInput(index: RepoIndex, contract: Contract, path: string, text: string, headText?: string | null): FileInput {
  return inputFrom(fileContext(index, contract, path), text, contract, (name, namespace) => index.declaresServiceAccount(name, namespace), headText);
}

export function analyzeInRepo(index: RepoIndex, contract: Contract, path: string, text: string, documents?: ParsedDocument[], headText?: string | null): FileAnalysis {
  return withGraphProblems(index, contract, path, text, withDeclareFixes(index, contract, analyzeFile(analysisInput(index, contract, path, text, headText), documents)));
}

/**
 * To an undefined name that may come from an outside source, the fixes that declare it there
 * (flux-substitution-undefined's declareFixes): they need every name the repository uses from the
 * source, which only the index knows, so they are added here, after the file's own analysis.
 */
export function withDeclareFixes(index: FindingsModel, contract: Contract, analysis: FileAnalysis): FileAnalysis {
  if (!analysis.findings.some((finding) => finding.declarable)) return analysis;
  const sources = index.outsideSources();
  return { ...analysis, findings: analysis.findings.map((finding) => declareFixes(finding, sources, contract)) };
}

/** Adds the model's problems (references, invalid names, roots, outside sources) that live in this file, as their rules report them. */
export function withGraphProblems(index: FindingsModel, contract: Contract, path: string, text: string, analysis: FileAnalysis): FileAnalysis {
  const problems = index.graphProblemsIn(path);
  if (problems.length === 0) return analysis;
  const lines = new LineIndex(text);
  const graphFindings = problems.map((problem): Finding => {
    const rule = ruleOfProblem(problem.kind);
    const made = makeFinding(rule.meta, path, lines, problem.span, problem.message, null);
    const finding: Finding = problem.severity ? { ...made, severity: problem.severity } : made;
    if (problem.related && problem.related.length > 0) finding.related = problem.related;
    const fixes = rule.model?.fixes?.(problem, contract, lines) ?? [];
    return fixes.length > 0 ? { ...finding, fixes } : finding;
  });
  return { ...analysis, findings: [...analysis.findings, ...graphFindings] };
}
