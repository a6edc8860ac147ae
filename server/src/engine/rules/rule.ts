// What a rule module is: one shape for every rule id. A rule has its metadata
// (id, default severity, one-line summary) and, like an ESLint rule's visitors,
// a check for each kind of thing it looks at: each Job, each resource document,
// each occurrence of `$` in text Flux substitutes (or builds without
// substituting). A rule whose findings come from what the Flux model, the
// contract loader or the directives found has no check: it names the model's
// problems it reports, and its module builds those findings. Rules are pure:
// they get everything through the context and return findings with their fixes.
import type { StrictSetting } from '../flux/model/flux-version';
import type { Contract, TtlListName } from '../contract/model';
import type { JobCoverage } from '../contract/coverage';
import type { Builder } from '../flux/model/world';
import type { GraphProblem, GraphProblemKind } from '../flux/model/build';
import type { SourceOccurrence } from '../flux/substitution/scalars';
import type { Layers, TracedText } from '../flux/substitution/layers';
import type { DashboardText } from '../flux/substitution/dashboards';
import type { JobFacts } from '../k8s/jobs';
import type { ParsedDocument } from '../yaml/documents';
import type { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, RuleMeta } from '../base/types';
import type { OffsetEdit } from '../yaml/edit';
import type { ServiceAccountCreator } from '../pipeline/repo-index';

export interface Rule {
  meta: RuleMeta;
  /** The checks the pipeline runs, by what they look at (the registry runs them in its order). */
  check?: {
    /** Each Job resource. */
    job?(job: JobFacts, context: JobRuleContext): Finding[];
    /** Each resource document (pods, lifecycle). */
    document?(parsed: ParsedDocument, context: DocumentRuleContext): Finding[];
    /** Each occurrence (`${...}`, `$$`, a lone `$`) in text a Flux Kustomization substitutes. */
    substituted?(occurrence: SourceOccurrence, context: SubstitutionContext): Finding[];
    /** Each occurrence in text Flux Kustomizations build without substituting it. */
    notSubstituted?(occurrence: SourceOccurrence, context: SubstitutionContext): Finding[];
  };
  /** The problems of the Flux model this rule reports (their messages are the model's), and the fixes it offers for them. */
  model?: {
    problems: readonly GraphProblemKind[];
    /** `lines`: the problem's file (a fix that edits it needs its ranges). */
    fixes?(problem: GraphProblem, contract: Contract, lines: LineIndex): Fix[];
  };
}

/** What every check's context shares: the file, its text and lines, the contract, one-file fixes. */
interface FileContext {
  file: string;
  text: string;
  lines: LineIndex;
  contract: Contract;
  /** A fix that edits this file. */
  fix(title: string, edits: OffsetEdit[], preferred?: boolean): Fix;
}

export interface JobRuleContext extends FileContext {
  coverage: JobCoverage;
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[]): Finding;
  /** A fix that adds (or updates) this Job's entry in a contract list; null when it cannot be written safely. */
  contractFix(title: string, list: TtlListName, value?: number): Fix | null;
}

export interface RepositoryFacts {
  /** Whether a ServiceAccount document in the repository declares `name` in `namespace` (null: unknown namespace). */
  declaresServiceAccount(name: string, namespace: string | null): boolean;
  /** The file's text at git HEAD: undefined when git is not available, null when the file is new. */
  headText?: string | null;
}

/** A resource document with its repository context: the Kustomizations that build it, the ServiceAccounts declared, the file at git HEAD. */
export interface DocumentRuleContext extends FileContext {
  builders: Builder[];
  repository: RepositoryFacts;
  /** What probably creates the ServiceAccounts the file's pods run as (a chart, an operator). */
  accountCreators: readonly ServiceAccountCreator[];
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], job?: string | null): Finding;
  /** A fix that adds an entry to a contract list (e.g. ['serviceAccounts', 'external']); null when it cannot be written. */
  contractListFix(title: string, path: string[], itemLines: string[]): Fix | null;
}

/** One occurrence in the context of the Kustomizations that build its text. */
export interface SubstitutionContext {
  /** Builders whose postBuild substitutes this text (empty: no substitution happens). */
  substituting: Builder[];
  /** Builders that build the text without substituting it. */
  plain: Builder[];
  /** Of `plain`, those whose build opts the text out of substitution (kustomize.toolkit.fluxcd.io/substitute: disabled). */
  optedOut?: Builder[];
  /** The text is a Grafana dashboard: its `${…}` are Grafana's, and how to turn Flux's substitution off for it. */
  dashboard?: DashboardText;
  /** The contract's word on strict substitution (flux-version.ts: strictIn decides it per world). */
  strictness: StrictSetting;
  /** All occurrences of the region, for rules that look at neighbours (runs of `$$`). */
  occurrences: SourceOccurrence[];
  index: number;
  /** The whole file's text (occurrence spans are offsets into it). */
  text: string;
  /** The layers the occurrence's text passes (Flux's `$$` arithmetic when the region is substituted, the kubelet in a container). */
  layersOf(occurrence: SourceOccurrence): Layers;
  /** What the consumer receives of the occurrence's scalar through those layers, traced to the written text. */
  delivered(occurrence: SourceOccurrence): TracedText;
  /** Where Flux builds the text without substituting it: the Kustomizations of the same worlds whose postBuild defines `name`. */
  definedElsewhere(name: string): Builder[];
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], severity?: Finding['severity']): Finding;
  fix(title: string, edits: OffsetEdit[], preferred?: boolean): Fix;
}
