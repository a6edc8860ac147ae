/**
 * flux-depends-on-missing (error): a Flux Kustomization's `spec.dependsOn` entry names no
 * Kustomization of its world (namespace defaulting to the dependent's), or one that only the
 * dependent's own build (or something downstream of it) creates; likewise a HelmRelease's entry
 * that names no HelmRelease of its world.
 *
 * Why it matters: Flux builds a Kustomization only once every dependency is Ready. One that does
 * not exist, or that can only appear after the dependent built, never is: the dependent waits
 * forever ("dependency not found"), and nothing that only it applies reaches the cluster. A
 * running cluster may hide the deadlock (the object exists from an earlier layout); a fresh one
 * does not.
 *
 * Example (wrong, then right):
 *   dependsOn:
 *     - name: infra-controlers        # ← the Kustomization is "infra-controllers"
 *   dependsOn:
 *     - name: infra-controllers
 *
 * Fix: name the Kustomization meant (the fix replaces the name by the nearest existing one where
 * one is close); for the self-created case, depend on something outside the dependent's own build
 * or drop the entry. The model reports it at the entry, from the dependsOn gate
 * (flux/model/gate.ts), naming what is missing and the nearest existing name; this rule makes the
 * finding.
 */
import type { Rule } from './rule';
import { replaceFixes } from './support/replace-fix';

export const fluxDependsOnMissing: Rule = {
  meta: {
    id: 'flux-depends-on-missing',
    defaultSeverity: 'error',
    summary: 'A dependsOn entry names no Kustomization (or HelmRelease) of its world, or one only its own build creates: Flux never builds it.',
  },
  model: { problems: ['depends-on-missing'], fixes: (problem, _contract, lines) => replaceFixes(problem, lines) },
};
