/**
 * flux-depends-on-cycle (error): Flux Kustomizations (or HelmReleases) whose `spec.dependsOn`
 * entries wait for each other in a cycle.
 *
 * Why it matters: none of them ever becomes Ready, so Flux builds none of them, and nothing only
 * they apply reaches the cluster; a cycle also silences event-driven reconciliation for the
 * Kustomizations of that source (fluxcd/kustomize-controller#1712).
 *
 * Wrong:
 *   # infra.yaml                       # apps.yaml
 *   name: infra                        name: apps
 *   dependsOn: [{name: apps}]          dependsOn: [{name: infra}]
 * Right: only `apps` depends on `infra`.
 *
 * Reported once per cycle, at the first member in file order (its entry on the cycle), with the
 * cycle's path in the related information; from the dependsOn gate (flux/model/gate.ts).
 */
import type { RuleMeta } from '../base/types';

export const FLUX_DEPENDS_ON_CYCLE: RuleMeta = {
  id: 'flux-depends-on-cycle',
  defaultSeverity: 'error',
  summary: 'Kustomizations (or HelmReleases) whose dependsOn entries wait for each other in a cycle: none of them ever builds.',
};
