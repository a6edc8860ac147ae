/**
 * flux-depends-on-cycle (error): Flux Kustomizations (or HelmReleases) whose `spec.dependsOn`
 * entries wait for each other in a cycle.
 *
 * Why it matters: none of them ever becomes Ready, so Flux builds none of them, and nothing only
 * they apply reaches the cluster; a cycle also silences event-driven reconciliation for the
 * Kustomizations of that source (fluxcd/kustomize-controller#1712).
 *
 * Example (wrong):
 *   # infra.yaml                       # apps.yaml
 *   name: infra                        name: apps
 *   dependsOn: [{name: apps}]          dependsOn: [{name: infra}]
 * Right: only `apps` depends on `infra`.
 *
 * Fix: remove one dependsOn entry of the cycle. Reported once per cycle, at the first member in file order (its entry on the cycle), with the
 * cycle's path in the related information; from the dependsOn gate (flux/model/gate.ts).
 */
import type { Rule } from './rule';

export const fluxDependsOnCycle: Rule = {
  meta: { id: 'flux-depends-on-cycle', defaultSeverity: 'error', summary: 'Kustomizations (or HelmReleases) whose dependsOn entries wait for each other in a cycle: none of them ever builds.' },
  model: { problems: ['depends-on-cycle'] },
};
