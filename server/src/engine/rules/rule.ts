// What a rule module is: its metadata (id, default severity, one-line summary)
// and a check over the facts of one Job. Rules are pure: they get everything
// through the context and return findings with their fixes.
import type { Contract, TtlListName } from '../contract/model';
import type { JobCoverage } from '../contract/coverage';
import type { JobFacts } from '../k8s/jobs';
import type { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, RuleMeta } from '../base/types';
import type { OffsetEdit } from '../yaml/edit';

export interface JobRuleContext {
  file: string;
  text: string;
  lines: LineIndex;
  contract: Contract;
  coverage: JobCoverage;
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[]): Finding;
  /** A fix that edits this file. */
  fix(title: string, edits: OffsetEdit[], preferred?: boolean): Fix;
  /** A fix that adds (or updates) this Job's entry in a contract list; null when it cannot be written safely. */
  contractFix(title: string, list: TtlListName, value?: number): Fix | null;
}

export interface JobRule {
  meta: RuleMeta;
  check(job: JobFacts, context: JobRuleContext): Finding[];
}

/** `the Job "name"` for messages. */
export function jobLabel(job: JobFacts): string {
  return job.name === null ? 'this Job' : `Job "${job.name}"`;
}
