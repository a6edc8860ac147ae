// The registry of rules: Job rules run per Job; the catalogue lists every id.
import type { RuleMeta } from '../base/types';
import * as catalogue from './catalogue';
import type { JobRule } from './rule';
import type { DocumentRule } from './document-rule';
import { jobArgoTemplate } from './job-argo-template';
import { jobImmutableTemplate } from './job-immutable-template';
import { podServiceAccountUndeclared } from './pod-service-account-undeclared';
import { podTmpHandoff } from './pod-tmp-handoff';
import { ttlShorterThanInterval } from './ttl-shorter-than-interval';
import { ttlConvergenceNote } from './ttl-convergence-note';
import { ttlForbidden } from './ttl-forbidden';
import { ttlInvalid } from './ttl-invalid';
import { ttlMisplaced } from './ttl-misplaced';
import { ttlMissing } from './ttl-missing';
import { ttlUnexpectedValue } from './ttl-unexpected-value';
import { fluxSubstitutionBareDollar } from './flux-substitution-bare-dollar';
import { fluxSubstitutionDefault } from './flux-substitution-default';
import { fluxSubstitutionNeedlessEscape } from './flux-substitution-needless-escape';
import { fluxSubstitutionPid } from './flux-substitution-pid';
import { podKubeletDollar } from './pod-kubelet-dollar';
import { fluxSubstitutionSyntax } from './flux-substitution-syntax';
import { fluxSubstitutionUndefined } from './flux-substitution-undefined';
import { SubstitutionRule } from './substitution-rule';

export const JOB_RULES: readonly JobRule[] = [ttlMissing, ttlUnexpectedValue, ttlForbidden, ttlMisplaced, ttlInvalid, ttlConvergenceNote];

/** Rules over any resource document (pods, lifecycle). */
export const DOCUMENT_RULES: readonly DocumentRule[] = [podTmpHandoff, podServiceAccountUndeclared, jobArgoTemplate, ttlShorterThanInterval, jobImmutableTemplate];

export const ALL_RULES: readonly RuleMeta[] = [
  ...JOB_RULES.map((rule) => rule.meta),
  ...Object.values(catalogue).filter((value): value is RuleMeta => typeof value === 'object' && value !== null && 'id' in value),
].sort((a, b) => a.id.localeCompare(b.id));

export const RULE_IDS: ReadonlySet<string> = new Set(ALL_RULES.map((rule) => rule.id));

export function ruleMeta(id: string): RuleMeta | undefined {
  return ALL_RULES.find((rule) => rule.id === id);
}

export const SUBSTITUTION_RULES: readonly SubstitutionRule[] = [fluxSubstitutionSyntax, fluxSubstitutionUndefined, fluxSubstitutionDefault, fluxSubstitutionPid, fluxSubstitutionBareDollar];

/** Rules over text no Flux Kustomization substitutes (built without postBuild, opted out, or no Flux at all). */
export const UNSUBSTITUTED_TEXT_RULES: readonly SubstitutionRule[] = [fluxSubstitutionNeedlessEscape, podKubeletDollar];
