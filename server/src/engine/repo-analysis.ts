// One file analysed in the context of its repository: its role (resource,
// patch, chart template), the Flux Kustomizations that build it, and the
// graph problems that live in it. The audit and the server both call this,
// so the editor and the CLI cannot disagree.
import { analyzeFile, FileAnalysis, FileInput, makeFinding } from './analyze';
import type { Contract } from './contract/model';
import type { FluxFileContext } from './flux/check';
import type { RepoIndex } from './repo-index';
import { ruleMeta } from './rules';
import { LineIndex } from './text';
import type { ParsedDocument } from './yaml-docs';

export function fluxContextOf(index: RepoIndex, contract: Contract, path: string): FluxFileContext | undefined {
  const builders = index.fluxGraph().buildersOf(path);
  if (builders.length === 0 && contract.substitution !== 'always') return undefined;
  return { builders, strict: contract.strict, mode: contract.substitution };
}

/** Reads a file's text at git HEAD: undefined when git cannot tell, null when the file is not in HEAD. */
export type HeadReader = (path: string) => Promise<string | null | undefined>;

/** Files whose HEAD version the lifecycle rule needs: those that may hold a Job. */
export function mayHoldJob(text: string): boolean {
  return /kind:\s*["']?Job\b/.test(text);
}

/** Everything analyzeFile needs about one file, from the repository index. */
export function analysisInput(index: RepoIndex, contract: Contract, path: string, text: string, headText?: string | null): FileInput {
  const repository = { declaresServiceAccount: (name: string, namespace: string | null) => index.declaresServiceAccount(name, namespace), headText };
  return { file: path, text, role: index.roleOf(path), contract, flux: fluxContextOf(index, contract, path), repository };
}

export function analyzeInRepo(index: RepoIndex, contract: Contract, path: string, text: string, documents?: ParsedDocument[], headText?: string | null): FileAnalysis {
  return withGraphProblems(index, path, text, analyzeFile(analysisInput(index, contract, path, text, headText), documents));
}

/** Adds the graph problems (kustomize references, invalid variable names) that live in this file. */
export function withGraphProblems(index: RepoIndex, path: string, text: string, analysis: FileAnalysis): FileAnalysis {
  const problems = index.fluxGraph().problems.filter((problem) => problem.file === path);
  if (problems.length === 0) return analysis;
  const lines = new LineIndex(text);
  const graphFindings = problems.map((problem) => makeFinding(ruleMeta(problem.rule)!, path, lines, problem.span, problem.message, null));
  return { ...analysis, findings: [...analysis.findings, ...graphFindings] };
}
