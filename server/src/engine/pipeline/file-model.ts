// What the audit of one file (audit-one.ts) reads of the repository's model, as data: the file's
// role, which rules apply to it, its analysis context, where its YAML errors matter, the model's
// problems that live in it; and, for every file alike, the declared ServiceAccounts and the
// outside variable sources. Asked of the live index (liveAuditModel), or of a model an earlier run
// kept (kept-model.ts), so the audit of a file is one function of the same data either way.
import type { Contract } from '../contract/model';
import type { GraphProblem } from '../flux/model/build';
import type { OutsideSource } from '../flux/model/outside-sources';
import type { SyntaxScope } from '../rules/yaml-syntax';
import { fileContext, type FileContext, type FindingsModel } from './repo-analysis';
import type { AccountList, FileRole, RepoIndex } from './repo-index';
import { isAnalyzed, resourceRulesApply, syntaxScope } from './scope';

/** What the model says of one file, as the audit of that file reads it. */
export interface FileModel {
  generatorInput: boolean;
  /** Whether the rules look at the file (scope.ts isAnalyzed). */
  analyzed: boolean;
  /** Whether the Job and pod rules apply (its Jobs are counted only then). */
  resourceRules: boolean;
  role: FileRole;
  /** Where the file's YAML errors matter (scope.ts syntaxScope). */
  syntax: SyntaxScope;
  /** Its analysis context, where the rules look at it. */
  context: FileContext | undefined;
  /** The model's problems that live in the file. */
  problems: readonly GraphProblem[];
}

/** The model as the audit of one file reads it. */
export interface AuditModel {
  file(path: string): FileModel;
  declaredAccounts(): AccountList;
  /** Only where a finding may be declared in an outside source (flux-substitution-undefined's fixes). */
  outsideSources(): readonly OutsideSource[];
}

export function fileModelOf(index: RepoIndex, contract: Contract, path: string): FileModel {
  const analyzed = isAnalyzed(contract, index, path);
  return {
    generatorInput: index.isGeneratorInput(path),
    analyzed,
    resourceRules: resourceRulesApply(contract, index, path),
    role: index.roleOf(path),
    syntax: syntaxScope(contract, index, path),
    context: analyzed ? fileContext(index, contract, path) : undefined,
    problems: index.graphProblemsIn(path),
  };
}

/** The live index as the audit of one file reads it (each file's answers made once: the index must not change meanwhile). */
export function liveAuditModel(index: RepoIndex, contract: Contract): AuditModel {
  const files = new Map<string, FileModel>();
  return {
    file: (path) => {
      let file = files.get(path);
      if (!file) files.set(path, (file = fileModelOf(index, contract, path)));
      return file;
    },
    declaredAccounts: () => index.declaredAccounts(),
    outsideSources: () => index.outsideSources(),
  };
}

/** An audit model's answers as the findings of a file read them. */
export function findingsModelOf(model: AuditModel): FindingsModel {
  return { outsideSources: () => model.outsideSources(), graphProblemsIn: (path) => model.file(path).problems };
}
