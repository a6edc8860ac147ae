// Manifests the Flux tests write again and again, in one place: what
// `flux bootstrap` writes for a cluster, a Flux Kustomization, a one-container Job.

/** gotk-sync.yaml as `flux bootstrap --path=<path>` writes it: the GitRepository and the Kustomization that applies the cluster folder. */
export function gotkSync(path: string): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: ssh://git@github.com/example/home-ops
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ${path}
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`;
}

/** A Flux Kustomization in flux-system; `extra` is appended under spec (already indented by 2). */
export function kustomization(name: string, path: string, extra = '', interval = '1h'): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: ${interval}
  path: ${path}
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
${extra}`;
}

/**
 * A Job with the required TTL and its `# converges:` note, one container (alpine) whose other
 * lines are `container` (indented by 10, each ending with a line break).
 */
export function job(name: string, note: string, container: string): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
  # converges: ${note}
  ttlSecondsAfterFinished: 86400
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: alpine:3.20
${container}`;
}

/** A bjw-s app-template HelmRelease named `blog` (anchored `&app`), its controller keyed `key` (`*app`, valid to go-yaml, or `blog`), using `${SITE_NAME}`. */
export function appTemplateRelease(key: string): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: &app blog
spec:
  values:
    controllers:
      ${key}:
        containers:
          app:
            env:
              SITE: \${SITE_NAME}
`;
}
