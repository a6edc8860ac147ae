/**
 * flux-depends-on-kind (error): a Flux Kustomization's `spec.dependsOn` entry names an object that
 * exists in its world only as a HelmRelease.
 *
 * Why it matters: kustomize-controller resolves dependsOn entries as Kustomizations only; a
 * cross-kind dependency never resolves (fluxcd/kustomize-controller#242, won't fix), so the
 * dependent waits forever.
 *
 * Wrong:
 *   dependsOn:
 *     - name: cert-manager            # ← a HelmRelease
 * Right:
 *   dependsOn:
 *     - name: infra-controllers       # the Kustomization that applies the HelmRelease (wait: true)
 *
 * From the dependsOn gate (flux/model/gate.ts); its fix names the Kustomization that applies the
 * HelmRelease.
 */
import type { RuleMeta } from '../base/types';

export const FLUX_DEPENDS_ON_KIND: RuleMeta = {
  id: 'flux-depends-on-kind',
  defaultSeverity: 'error',
  summary: "A Kustomization's dependsOn names a HelmRelease: kustomize-controller resolves Kustomizations only, so it waits forever.",
};
