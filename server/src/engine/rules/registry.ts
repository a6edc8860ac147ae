// The registry: every rule of Flux Job Guard, one module per id (rules/<id>.ts).
// The pipeline runs the checks in this order (per Job, per resource document,
// per occurrence of `$` in text Flux builds), and makes the Flux model's
// problems findings of the rule that names their kind. The contract's `rules:`
// map, the JSON Schema, the `fluxJobGuard.rules` setting, the SARIF rule
// descriptors and docs/rules.md are checked against this list
// (test/rule-registry.test.ts).
import type { GraphProblemKind } from '../flux/model/build';
import type { RuleMeta } from '../base/types';
import type { Rule } from './rule';
import { contractDuplicate } from './contract-duplicate';
import { contractFileMissing } from './contract-file-missing';
import { contractInvalid } from './contract-invalid';
import { contractNoJob } from './contract-no-job';
import { contractNoJobs } from './contract-no-jobs';
import { contractReasonMissing } from './contract-reason-missing';
import { contractStale } from './contract-stale';
import { directiveReasonMissing } from './directive-reason-missing';
import { directiveUnused } from './directive-unused';
import { fileSkipped } from './file-skipped';
import { fluxDependsOnCycle } from './flux-depends-on-cycle';
import { fluxDependsOnKind } from './flux-depends-on-kind';
import { fluxDependsOnMissing } from './flux-depends-on-missing';
import { fluxNoRoot } from './flux-no-root';
import { fluxSubstitutionBareDollar } from './flux-substitution-bare-dollar';
import { fluxSubstitutionDefault } from './flux-substitution-default';
import { fluxSubstitutionNeedlessEscape } from './flux-substitution-needless-escape';
import { fluxSubstitutionPid } from './flux-substitution-pid';
import { fluxSubstitutionSyntax } from './flux-substitution-syntax';
import { fluxSubstitutionUndefined } from './flux-substitution-undefined';
import { fluxSubstitutionType } from './flux-substitution-type';
import { fluxSubstitutionNoPostbuild } from './flux-substitution-no-postbuild';
import { fluxVariablesUnknown } from './flux-variables-unknown';
import { helmValuesFromMissing } from './helm-values-from-missing';
import { jobArgoTemplate } from './job-argo-template';
import { jobImmutableTemplate } from './job-immutable-template';
import { kustomizeReference } from './kustomize-reference';
import { podKubeletDollar } from './pod-kubelet-dollar';
import { podServiceAccountUndeclared } from './pod-service-account-undeclared';
import { podTmpHandoff } from './pod-tmp-handoff';
import { ttlConvergenceNote } from './ttl-convergence-note';
import { ttlForbidden } from './ttl-forbidden';
import { ttlInvalid } from './ttl-invalid';
import { ttlMisplaced } from './ttl-misplaced';
import { ttlMissing } from './ttl-missing';
import { ttlShorterThanInterval } from './ttl-shorter-than-interval';
import { ttlUnexpectedValue } from './ttl-unexpected-value';
import { yamlSyntax } from './yaml-syntax';

/** Every rule, in the order the pipeline runs their checks. */
export const RULES: readonly Rule[] = [
  // Each Job.
  ttlMissing,
  ttlUnexpectedValue,
  ttlForbidden,
  ttlMisplaced,
  ttlInvalid,
  ttlConvergenceNote,
  // Each resource document.
  podTmpHandoff,
  podServiceAccountUndeclared,
  jobArgoTemplate,
  ttlShorterThanInterval,
  jobImmutableTemplate,
  // Each occurrence of `$` in text Flux builds (and the model's invalid variable names), or a container's text the kubelet alone expands.
  fluxSubstitutionSyntax,
  fluxSubstitutionUndefined,
  fluxSubstitutionDefault,
  fluxSubstitutionPid,
  fluxSubstitutionBareDollar,
  fluxSubstitutionNeedlessEscape,
  fluxSubstitutionType,
  fluxSubstitutionNoPostbuild,
  podKubeletDollar,
  // The Flux model's problems.
  kustomizeReference,
  fluxVariablesUnknown,
  fluxNoRoot,
  fluxDependsOnMissing,
  fluxDependsOnKind,
  fluxDependsOnCycle,
  helmValuesFromMissing,
  // The contract file, checked by the contract loader and the entry checks.
  contractFileMissing,
  contractNoJob,
  contractStale,
  contractDuplicate,
  contractReasonMissing,
  contractInvalid,
  contractNoJobs,
  // Files, and the directives that silence findings.
  yamlSyntax,
  fileSkipped,
  directiveUnused,
  directiveReasonMissing,
];

type Checks = NonNullable<Rule['check']>;

/** The checks of one kind, in registry order. */
function checksOf<K extends keyof Checks>(kind: K): Array<NonNullable<Checks[K]>> {
  return RULES.flatMap((rule) => (rule.check?.[kind] ? [rule.check[kind]] : []));
}

export const JOB_CHECKS = checksOf('job');
export const DOCUMENT_CHECKS = checksOf('document');
export const SUBSTITUTED_CHECKS = checksOf('substituted');
export const NOT_SUBSTITUTED_CHECKS = checksOf('notSubstituted');

/** The metadata of every rule, sorted by id. */
export const ALL_RULES: readonly RuleMeta[] = RULES.map((rule) => rule.meta).sort((a, b) => a.id.localeCompare(b.id));

export const RULE_IDS: ReadonlySet<string> = new Set(ALL_RULES.map((rule) => rule.id));

export function ruleMeta(id: string): RuleMeta | undefined {
  return ALL_RULES.find((rule) => rule.id === id);
}

/** The rule that reports the model's problems of `kind`. */
export function ruleOfProblem(kind: GraphProblemKind): Rule {
  return RULES.find((rule) => rule.model?.problems.includes(kind))!;
}
