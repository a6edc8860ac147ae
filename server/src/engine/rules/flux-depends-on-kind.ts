/**
 * flux-depends-on-kind (error): a Flux Kustomization's `spec.dependsOn` entry names an object that
 * exists in its world only as a HelmRelease.
 *
 * Why it matters: kustomize-controller resolves dependsOn entries as Kustomizations only; a
 * cross-kind dependency never resolves (fluxcd/kustomize-controller#242, won't fix), so the
 * dependent waits forever.
 *
 * Example (wrong, then right):
 *   dependsOn:
 *     - name: cert-manager            # ← a HelmRelease
 *   dependsOn:
 *     - name: infra-controllers       # the Kustomization that applies the HelmRelease (wait: true)
 *
 * Fix: depend on the Kustomization that applies the HelmRelease (the fix writes its name). From the
 * dependsOn gate (flux/model/gate.ts); this rule makes the finding.
 */
import type { Rule } from './rule';
import { replaceFixes } from './support/replace-fix';

export const fluxDependsOnKind: Rule = {
  meta: { id: 'flux-depends-on-kind', defaultSeverity: 'error', summary: "A Kustomization's dependsOn names a HelmRelease: kustomize-controller resolves Kustomizations only, so it waits forever." },
  model: { problems: ['depends-on-kind'], fixes: (problem, _contract, lines) => replaceFixes(problem, lines) },
};
