// What a document rule module is: metadata and a check over one parsed
// resource with its repository context (the Flux Kustomizations that build
// it, the ServiceAccounts the repository declares, the file at git HEAD).
import type { Contract } from '../contract/model';
import type { Builder } from '../flux/model/world';
import type { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, RuleMeta } from '../base/types';
import type { ParsedDocument } from '../yaml/documents';
import type { OffsetEdit } from '../yaml/edit';
import type { ServiceAccountCreator } from '../pipeline/repo-index';

export interface RepositoryFacts {
  /** Whether a ServiceAccount document in the repository declares `name` in `namespace` (null: unknown namespace). */
  declaresServiceAccount(name: string, namespace: string | null): boolean;
  /** The file's text at git HEAD: undefined when git is not available, null when the file is new. */
  headText?: string | null;
}

export interface DocumentRuleContext {
  file: string;
  text: string;
  lines: LineIndex;
  contract: Contract;
  builders: Builder[];
  repository: RepositoryFacts;
  /** What probably creates the ServiceAccounts the file's pods run as (a chart, an operator). */
  accountCreators: readonly ServiceAccountCreator[];
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], job?: string | null): Finding;
  fix(title: string, edits: OffsetEdit[], preferred?: boolean): Fix;
  /** A fix that adds an entry to a contract list (e.g. ['serviceAccounts', 'external']); null when it cannot be written. */
  contractListFix(title: string, path: string[], itemLines: string[]): Fix | null;
}

export interface DocumentRule {
  meta: RuleMeta;
  check(parsed: ParsedDocument, context: DocumentRuleContext): Finding[];
}
