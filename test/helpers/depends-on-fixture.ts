// A small Flux repository for the dependsOn editor tests (completion, definition,
// references, rename), engine-level and over the real server. One cluster
// (gotk-sync root) applies clusters/home, where:
//   flux-system: infra-controllers; apps (waits for infra-controllers); monitoring
//                (waits for apps, and for team-a's apps by namespace)
//   team-a:      another Kustomization named apps; web (waits for apps: team-a's)
//   team-b:      cache, written without a namespace (its folder's kustomization gives team-b)
// and ./infra holds two HelmReleases (ingress-nginx waits for cert-manager).
// The same-named apps of team-a and the HelmReleases are the negative controls.
import { gotkSync } from './flux-fixtures';

/** A Flux Kustomization; `extra` is appended under spec (indented by 2); `namespace` null: none written. */
export function ks(name: string, path: string, extra = '', namespace: string | null = 'flux-system'): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
${namespace === null ? '' : `  namespace: ${namespace}\n`}spec:
  interval: 1h
  path: ${path}
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
${extra}`;
}

function release(name: string, namespace: string, extra = ''): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  interval: 1h
  chart:
    spec: {chart: ${name}, sourceRef: {kind: HelmRepository, name: charts}}
${extra}`;
}

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: b\n`;

export const APPS = ks('apps', './apps', '  dependsOn:\n    - name: infra-controllers # the controllers first\n');
export const MONITORING = ks('monitoring', './monitoring', '  dependsOn:\n    - name: "apps"\n    - name: apps\n      namespace: team-a\n');
export const TEAM_A_APPS = ks('apps', './team-a/apps', '', 'team-a');
export const WEB = ks('web', './team-a/web', "  dependsOn:\n    - name: 'apps'\n", 'team-a');
export const INGRESS = release('ingress-nginx', 'ingress', '  dependsOn:\n    - name: cert-manager\n      namespace: cert-manager\n');

export const DEPENDS_ON_FILES: Record<string, string> = {
  'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
  'clusters/home/infra.yaml': ks('infra-controllers', './infra'),
  'clusters/home/apps.yaml': APPS,
  'clusters/home/monitoring.yaml': MONITORING,
  'clusters/home/team-a/apps.yaml': TEAM_A_APPS,
  'clusters/home/team-a/web.yaml': WEB,
  'clusters/home/team-b/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: team-b\nresources:\n  - cache.yaml\n',
  'clusters/home/team-b/cache.yaml': ks('cache', './team-b/cache', '', null),
  'infra/cert-manager.yaml': release('cert-manager', 'cert-manager'),
  'infra/ingress-nginx.yaml': INGRESS,
  'apps/config.yaml': configMap('apps'),
  'monitoring/config.yaml': configMap('monitoring'),
  'team-a/apps/config.yaml': configMap('team-a-apps'),
  'team-a/web/config.yaml': configMap('web'),
  'team-b/cache/config.yaml': configMap('cache'),
};
