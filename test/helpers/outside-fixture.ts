// A repository where several Kustomizations, in two clusters, take one
// outside Secret (made by an ExternalSecret with dataFrom) and use four names
// from it: the engine test and the LSP test of the declare fix share it.
import { gotkSync, job, kustomization } from './flux-fixtures';

export const FROM_SECRETS = '  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n';

/** An ExternalSecret that fills Secret cluster-secrets with the keys of a 1Password item (dataFrom). */
export const EXTERNAL_SECRET = `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: cluster-secrets
  namespace: flux-system
spec:
  secretStoreRef: {kind: ClusterSecretStore, name: onepassword}
  target:
    name: cluster-secrets
  dataFrom:
    - extract:
        key: homelab
`;

/** A Job whose container reads `names` from env values (text no shell runs). */
export function envJob(name: string, names: string[]): string {
  return job(name, 'it only reads', `          env:\n${names.map((n, i) => `            - {name: V${i}, value: "\${${n}}"}\n`).join('')}`);
}

/** Two clusters; each has its own ExternalSecret; four Kustomizations take the Secret and use four names from it. */
export const TWO_CLUSTERS: Record<string, string> = {
  'clusters/a/flux-system/gotk-sync.yaml': gotkSync('./clusters/a'),
  'clusters/a/secrets.yaml': EXTERNAL_SECRET,
  'clusters/a/apps.yaml': kustomization('apps', './apps', FROM_SECRETS),
  'clusters/a/infra.yaml': kustomization('infra', './infra', FROM_SECRETS),
  'clusters/b/flux-system/gotk-sync.yaml': gotkSync('./clusters/b'),
  'clusters/b/secrets.yaml': EXTERNAL_SECRET,
  'clusters/b/apps.yaml': kustomization('apps', './apps', FROM_SECRETS),
  'clusters/b/media.yaml': kustomization('media', './media', FROM_SECRETS),
  'apps/job.yaml': envJob('app', ['SECRET_DOMAIN', 'EMAIL']),
  'infra/job.yaml': envJob('infra', ['NFS_HOST_0', 'SECRET_DOMAIN']),
  'media/job.yaml': envJob('media', ['NFS_HOST_2']),
};
