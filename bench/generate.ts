// Generates the benchmark inputs into bench/.generated/ (gitignored), from a
// fixed seed with a small PRNG, so every machine measures the same bytes:
//   jobs-2000.yaml  one 1.1 MB file of 2000 Job documents (the edit/open file)
//   repo/           a 20,000-file Flux repository shaped like the real ones
//                   in shared/corpus (for the audit and the memory figures)
// Run directly (`node out/bench/generate.js [--force]`) or through run.ts,
// which calls ensureGenerated() and regenerates when the inputs are missing
// or were made by another GENERATOR_VERSION.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Bump when the output changes, so stale inputs are regenerated. */
export const GENERATOR_VERSION = 7;
export const SEED = 0x5eed_f1c5;
export const REPO_FILES = 20_000;
export const EDIT_FILE_JOBS = 2000;
export const EDIT_FILE_BYTES = 1_100_000;

export interface Generated {
  dir: string;
  jobsFile: string;
  repoDir: string;
  manifest: Manifest;
}

export interface Manifest {
  generatorVersion: number;
  seed: number;
  jobsFile: { path: string; bytes: number; jobs: number };
  repo: { files: number; bytes: number; jobFiles: number; jobs: number; fluxKustomizations: number; multiMbFiles: string[]; git: boolean };
}

// ---- PRNG -------------------------------------------------------------------

/** mulberry32: tiny, fast, good enough to shape test data. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** A skewed count: most small, a long tail (roughly log-normal like real file sizes). */
  skewed(lo: number, hi: number): number {
    const u = this.next();
    return lo + Math.floor((hi - lo) * u * u * u);
  }
  words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.pick(WORDS));
    return out.join(' ');
  }
  sentence(lo: number, hi: number): string {
    const text = this.words(this.int(lo, hi));
    return text.charAt(0).toUpperCase() + text.slice(1) + '.';
  }
}

const WORDS = (
  'the a of to and in is for that on with as by this are be it from or at an which not when must can will if ' +
  'resource field value object spec status controller namespace label selector pod container volume mount secret ' +
  'config map service port name version kind list item default optional required reference type string integer ' +
  'boolean array duration condition reason message observed generation phase ready replicas template metadata ' +
  'annotation policy rule route gateway listener backend weight timeout interval retry limit request cpu memory'
).split(' ');
const APP_NAMES = (
  'radarr sonarr lidarr prowlarr bazarr jellyfin plex immich paperless nextcloud gitea forgejo vaultwarden authentik ' +
  'grafana prometheus loki tempo alertmanager thanos minio postgres redis dragonfly mosquitto zigbee2mqtt home-assistant ' +
  'esphome node-red frigate unifi adguard blocky cloudflared external-dns cert-manager traefik ingress-nginx cilium ' +
  'longhorn rook-ceph volsync snapshot-controller kyverno reloader descheduler spegel echo-server homepage atuin ' +
  'miniflux linkding mealie tandoor actual firefly outline wikijs bookstack calibre kavita komga navidrome qbittorrent ' +
  'sabnzbd recyclarr overseerr tautulli maintainerr kopia restic smtp-relay opentelemetry vector fluent-bit'
).split(' ');
const NAMESPACES = ['default', 'media', 'home', 'database', 'monitoring', 'network', 'security', 'storage', 'kube-system', 'flux-system', 'observability', 'tools', 'games', 'downloads', 'ai'];
const IMAGES = [
  'ghcr.io/home-operations/postgres-init:17',
  'docker.io/library/alpine:3.20',
  'ghcr.io/onedr0p/kubectl:1.31',
  'docker.io/bitnami/kubectl:1.30',
  'ghcr.io/example/tools:2.4.1',
  'docker.io/library/busybox:1.37',
  'quay.io/minio/mc:RELEASE.2024-10-02',
];

// ---- the 2000-Job file ------------------------------------------------------

const OTHER_TTL = 3600;

function jobName(i: number, app: string): string {
  return `${app}-${['migrate', 'seed', 'backup', 'init-db', 'sync', 'reindex'][i % 6]}-${String(i).padStart(4, '0')}`;
}

function jobDocument(rng: Rng, i: number, ns: string, app: string, opts: { ttl: 'required' | 'missing' | 'other' | 'no-note'; script: string[]; labels: boolean }): string {
  const name = jobName(i, app);
  const lines = [
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${ns}`,
    ...(opts.labels ? ['  labels:', `    app.kubernetes.io/name: ${app}`, '    app.kubernetes.io/component: job'] : []),
    'spec:',
  ];
  if (opts.ttl === 'required') lines.push(`  # converges: ${rng.words(rng.int(3, 6))}`, '  ttlSecondsAfterFinished: 86400');
  else if (opts.ttl === 'no-note') lines.push('  ttlSecondsAfterFinished: 86400');
  else if (opts.ttl === 'other') lines.push(`  ttlSecondsAfterFinished: ${OTHER_TTL}`);
  lines.push(
    `  backoffLimit: ${rng.int(0, 6)}`,
    '  template:',
    '    spec:',
    '      restartPolicy: OnFailure',
    '      containers:',
    '        - name: main',
    `          image: ${rng.pick(IMAGES)}`,
    '          command: ["/bin/sh", "-c"]',
    '          args:',
    '            - |',
    ...opts.script.map((line) => (line ? `              ${line}` : '')),
  );
  return lines.join('\n') + '\n';
}

function shellScript(rng: Rng, app: string, substituted: boolean, lines: [number, number]): string[] {
  // Under Flux substitution a shell `${X}` must be written `$${X}`; `${APP}` is a defined variable.
  const v = (name: string) => (substituted ? `$\${${name}}` : `\${${name}}`);
  const pool = [
    'set -euo pipefail',
    `echo "starting ${app} at $(date -u +%FT%TZ)"`,
    `until pg_isready -h "$PGHOST" -p 5432; do sleep 2; done`,
    `for db in ${v('DATABASES')}; do psql -c "CREATE DATABASE $db" || true; done`,
    `mc alias set s3 "$S3_ENDPOINT" "$ACCESS_KEY" "$SECRET_KEY"`,
    `mc mb --ignore-existing "s3/${substituted ? '${APP}' : app}-backups"`,
    `curl -fsS -X POST "http://${app}.svc:8080/api/v1/reindex" -H "Authorization: Bearer $TOKEN"`,
    `kubectl -n "${v('NAMESPACE')}" rollout status deploy/${app} --timeout=300s`,
    `if [ -f /data/.initialized ]; then echo "already done"; exit 0; fi`,
    `touch /data/.initialized`,
    `count=$(ls /data | wc -l); echo "found $count files"`,
    `test "${v('RETRIES')}" -gt 0 && echo retrying`,
  ];
  const out = ['set -eu'];
  const n = rng.int(lines[0], lines[1]);
  for (let k = 0; k < n; k++) out.push(rng.pick(pool));
  return out;
}

export function jobsFileText(): { text: string; jobs: number } {
  const rng = new Rng(SEED ^ 0x1000);
  const docs: string[] = [];
  for (let i = 0; i < EDIT_FILE_JOBS; i++) {
    const ttl = i % 20 === 7 ? 'missing' : i % 50 === 13 ? 'other' : i % 40 === 21 ? 'no-note' : 'required';
    const app = rng.pick(APP_NAMES);
    docs.push(jobDocument(rng, i, rng.pick(NAMESPACES), app, { ttl, script: shellScript(rng, app, false, [1, 3]), labels: false }));
  }
  let text = '# 2000 Jobs in one file: the flux-job-guard edit/open benchmark input.\n---\n' + docs.join('---\n');
  // Pad with comment lines inside the last Job's script so the file is the advertised size.
  const missing = EDIT_FILE_BYTES - Buffer.byteLength(text);
  if (missing > 0) {
    const padLine = '              # ' + 'padding '.repeat(8).trim() + '\n';
    text += padLine.repeat(Math.ceil(missing / padLine.length));
  }
  return { text, jobs: EDIT_FILE_JOBS };
}

// ---- the repository ---------------------------------------------------------

type Files = Map<string, string>;

/** A Flux Kustomization; `declared`: the names of those written before it, which its dependsOn (if any) names one of, as a real repository's apps wait for its infrastructure. */
function fluxKustomization(rng: Rng, name: string, ns: string, path: string, substitute: Record<string, string> | null, withFrom: boolean, declared: readonly string[] = []): string {
  const lines = [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    `  name: &app ${name}`,
    '  namespace: flux-system',
    'spec:',
    '  targetNamespace: ' + ns,
    '  commonMetadata:',
    '    labels:',
    '      app.kubernetes.io/name: *app',
  ];
  // (a name nothing declares would keep the Kustomization from ever building: version 6 did that to 1,874 of them)
  if (rng.chance(0.4) && declared.length > 0) lines.push('  dependsOn:', `    - name: ${rng.pick(declared)}`, '      namespace: flux-system');
  lines.push(`  path: ${path}`, '  prune: true', '  sourceRef:', '    kind: GitRepository', '    name: flux-system', '    namespace: flux-system');
  lines.push(`  interval: ${rng.pick(['30m', '1h', '12h'])}`, `  retryInterval: 1m`, `  timeout: ${rng.pick(['3m', '5m', '10m'])}`, `  wait: ${rng.chance(0.3)}`);
  if (substitute) {
    lines.push('  postBuild:', '    substitute:');
    for (const [key, value] of Object.entries(substitute)) lines.push(`      ${key}: ${value}`);
    if (withFrom) lines.push('    substituteFrom:', '      - kind: ConfigMap', '        name: cluster-settings', '      - kind: Secret', '        name: cluster-secrets', '        optional: true');
  }
  return lines.join('\n') + '\n';
}

function helmRelease(rng: Rng, app: string, withDollar: boolean): string {
  const lines = [
    '---',
    '# yaml-language-server: $schema=https://raw.githubusercontent.com/bjw-s/helm-charts/main/charts/other/app-template/schemas/helmrelease-helm-v2.schema.json',
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    `  name: ${app}`,
    'spec:',
    '  interval: 1h',
    '  chartRef:',
    '    kind: OCIRepository',
    '    name: app-template',
    '  install:',
    '    remediation:',
    '      retries: -1',
    '  upgrade:',
    '    cleanupOnFail: true',
    '    remediation:',
    '      retries: 3',
    '  values:',
    '    controllers:',
    `      ${app}:`,
    '        annotations:',
    '          reloader.stakater.com/auto: "true"',
    '        containers:',
    '          app:',
    '            image:',
    `              repository: ghcr.io/home-operations/${app}`,
    `              tag: ${rng.int(1, 9)}.${rng.int(0, 40)}.${rng.int(0, 20)}@sha256:${hex(rng, 64)}`,
    '            env:',
    '              TZ: Europe/Paris',
  ];
  const envCount = rng.skewed(1, 30);
  for (let k = 0; k < envCount; k++) lines.push(`              ${app.toUpperCase().replace(/-/g, '_')}__${rng.pick(WORDS).toUpperCase()}_${k}: "${rng.pick(WORDS)}-${rng.int(0, 999)}"`);
  lines.push(
    '            probes:',
    '              liveness: &probes',
    '                enabled: true',
    '                custom: true',
    '                spec:',
    '                  httpGet:',
    '                    path: /ping',
    '                    port: &port 8080',
    '              readiness: *probes',
    '            securityContext:',
    '              allowPrivilegeEscalation: false',
    '              readOnlyRootFilesystem: true',
    '              capabilities: { drop: ["ALL"] }',
    '            resources:',
    '              requests:',
    `                cpu: ${rng.int(5, 500)}m`,
    '              limits:',
    `                memory: ${rng.int(64, 4096)}Mi`,
    '    service:',
    '      app:',
    '        ports:',
    '          http:',
    '            port: *port',
    '    route:',
    '      app:',
    withDollar ? '        hostnames: ["{{ .Release.Name }}.${SECRET_DOMAIN}"]' : `        hostnames: ["${app}.example.com"]`,
    '        parentRefs:',
    '          - name: internal',
    '            namespace: kube-system',
    '            sectionName: https',
    '    persistence:',
    '      config:',
    `        existingClaim: ${app}`,
    '      tmp:',
    '        type: emptyDir',
  );
  const extra = rng.skewed(0, 40);
  if (extra > 0) {
    lines.push('      config-file:', '        type: configMap', `        name: ${app}-config`, '        globalMounts:');
    for (let k = 0; k < extra; k++) lines.push(`          - path: /config/${rng.pick(WORDS)}-${k}.conf`, `            subPath: ${rng.pick(WORDS)}-${k}.conf`, '            readOnly: true');
  }
  return lines.join('\n') + '\n';
}

function configMap(rng: Rng, name: string, ns: string): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, `  namespace: ${ns}`, 'data:'];
  const keys = rng.skewed(1, 25);
  for (let k = 0; k < keys; k++) {
    if (rng.chance(0.3)) {
      lines.push(`  ${rng.pick(WORDS)}-${k}.conf: |`);
      const body = rng.skewed(2, 200);
      for (let l = 0; l < body; l++) lines.push(`    ${rng.pick(WORDS)}_${l} = ${rng.words(rng.int(1, 6))}`);
    } else lines.push(`  ${rng.pick(WORDS).toUpperCase()}_${k}: "${rng.words(rng.int(1, 4))}"`);
  }
  return lines.join('\n') + '\n';
}

function externalSecret(rng: Rng, app: string): string {
  return (
    [
      'apiVersion: external-secrets.io/v1',
      'kind: ExternalSecret',
      'metadata:',
      `  name: ${app}`,
      'spec:',
      '  secretStoreRef:',
      '    kind: ClusterSecretStore',
      '    name: onepassword',
      '  target:',
      `    name: ${app}-secret`,
      '    template:',
      '      data:',
      `        ${app.toUpperCase().replace(/-/g, '_')}_API_KEY: "{{ .API_KEY }}"`,
      '        DATABASE_URL: "postgres://{{ .POSTGRES_USER }}:{{ .POSTGRES_PASS }}@postgres-rw.database.svc/' + app + '"',
      '  dataFrom:',
      '    - extract:',
      `        key: ${app}`,
      ...(rng.chance(0.5) ? ['    - extract:', '        key: cloudnative-pg'] : []),
    ].join('\n') + '\n'
  );
}

function ociRepository(rng: Rng): string {
  return (
    [
      'apiVersion: source.toolkit.fluxcd.io/v1',
      'kind: OCIRepository',
      'metadata:',
      '  name: app-template',
      'spec:',
      '  interval: 15m',
      '  layerSelector:',
      '    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip',
      '    operation: copy',
      '  ref:',
      `    tag: 4.${rng.int(0, 5)}.${rng.int(0, 3)}`,
      '  url: oci://ghcr.io/bjw-s-labs/helm/app-template',
    ].join('\n') + '\n'
  );
}

function pvc(rng: Rng, app: string): string {
  return (
    [
      'apiVersion: v1',
      'kind: PersistentVolumeClaim',
      'metadata:',
      `  name: ${app}`,
      'spec:',
      '  accessModes: ["ReadWriteOnce"]',
      '  resources:',
      '    requests:',
      `      storage: ${rng.int(1, 100)}Gi`,
      `  storageClassName: ${rng.pick(['ceph-block', 'openebs-hostpath', 'longhorn'])}`,
    ].join('\n') + '\n'
  );
}

function patchFile(rng: Rng, app: string): string {
  return (
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      `  name: ${app}`,
      'spec:',
      `  replicas: ${rng.int(1, 3)}`,
      '  template:',
      '    spec:',
      '      nodeSelector:',
      `        kubernetes.io/arch: ${rng.pick(['amd64', 'arm64'])}`,
    ].join('\n') + '\n'
  );
}

function serviceMonitor(rng: Rng, app: string): string {
  return (
    [
      'apiVersion: monitoring.coreos.com/v1',
      'kind: ServiceMonitor',
      'metadata:',
      `  name: ${app}`,
      'spec:',
      '  selector:',
      '    matchLabels:',
      `      app.kubernetes.io/name: ${app}`,
      '  endpoints:',
      '    - port: http',
      `      interval: ${rng.pick(['30s', '1m'])}`,
      '      path: /metrics',
    ].join('\n') + '\n'
  );
}

function appConfig(rng: Rng): string {
  const lines = ['# application settings, turned into a ConfigMap by configMapGenerator'];
  for (let k = 0, n = rng.skewed(3, 60); k < n; k++) lines.push(`${rng.pick(WORDS)}_${k}: ${rng.pick(['true', 'false', String(rng.int(0, 9999)), JSON.stringify(rng.words(3))])}`);
  return lines.join('\n') + '\n';
}

function hex(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[rng.int(0, 15)];
  return s;
}

/** A CRD with a nested openAPIV3Schema; `props` sets its size (~170 bytes per property). */
function crd(rng: Rng, group: string, kind: string, props: number): string {
  const plural = kind.toLowerCase() + 's';
  const lines = [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  annotations:',
    '    controller-gen.kubebuilder.io/version: v0.16.5',
    `  name: ${plural}.${group}`,
    'spec:',
    `  group: ${group}`,
    '  names:',
    `    kind: ${kind}`,
    `    listKind: ${kind}List`,
    `    plural: ${plural}`,
    `    singular: ${kind.toLowerCase()}`,
    '  scope: Namespaced',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      subresources:',
    '        status: {}',
    '      schema:',
    '        openAPIV3Schema:',
    `          description: ${rng.sentence(8, 20)}`,
    '          type: object',
    '          properties:',
  ];
  // A tree of properties: objects hold a few children, leaves are typed scalars.
  let emitted = 0;
  const emit = (indent: string, depth: number) => {
    const children = depth === 0 ? Math.max(1, Math.ceil(props / 40)) : rng.int(2, 7);
    const used = new Set<string>();
    for (let c = 0; c < children && emitted < props; c++) {
      emitted++;
      let name = rng.pick(WORDS) + rng.pick(['', 'Ref', 'Spec', 'Name', 'Policy', 'Seconds', 'Count']);
      while (used.has(name)) name += String(c);
      used.add(name);
      lines.push(`${indent}${name}:`, `${indent}  description: |-`, `${indent}    ${rng.sentence(6, 24)}`);
      if (rng.chance(0.3)) lines.push(`${indent}    ${rng.sentence(6, 24)}`);
      if (depth < 6 && rng.chance(0.35)) {
        lines.push(`${indent}  type: object`, `${indent}  properties:`);
        emit(indent + '    ', depth + 1);
      } else {
        const type = rng.pick(['string', 'integer', 'boolean', 'string', 'array']);
        if (type === 'array') lines.push(`${indent}  type: array`, `${indent}  items:`, `${indent}    type: string`);
        else lines.push(`${indent}  type: ${type}`);
        if (type === 'integer') lines.push(`${indent}  format: int32`, `${indent}  minimum: 0`);
        if (type === 'string' && rng.chance(0.2)) lines.push(`${indent}  enum:`, `${indent}    - ${rng.pick(WORDS)}`, `${indent}    - ${rng.pick(WORDS)}`);
      }
    }
  };
  // Top-level properties come in rounds; number each round so keys stay unique.
  for (let round = 0; emitted < props; round++) {
    const before = lines.length;
    emit('            ', 0);
    if (round > 0) for (let l = before; l < lines.length; l++) if (/^ {12}[a-zA-Z]+:$/.test(lines[l])) lines[l] = lines[l].replace(/:$/, `R${round}:`);
  }
  return lines.join('\n') + '\n';
}

function crdBundle(rng: Rng, bytes: number, group: string): string {
  const docs: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const doc = crd(rng, group, `${capitalize(rng.pick(WORDS))}${capitalize(rng.pick(WORDS))}${i}`, rng.int(300, 1500));
    docs.push(doc);
    size += doc.length + 4;
  }
  return '---\n' + docs.join('---\n');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function chartFiles(rng: Rng, files: Files, chart: string): void {
  const dir = `charts/${chart}`;
  files.set(`${dir}/Chart.yaml`, `apiVersion: v2\nname: ${chart}\nversion: 0.${rng.int(1, 9)}.0\ntype: application\n`);
  files.set(`${dir}/values.yaml`, `replicaCount: 1\nimage:\n  repository: ghcr.io/example/${chart}\n  tag: ""\nmigration:\n  enabled: true\n  ttl: 86400\n`);
  files.set(
    `${dir}/templates/job-migrate.yaml`,
    [
      '{{- if .Values.migration.enabled }}',
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: {{ include "chart.fullname" . }}-migrate',
      '  annotations:',
      '    "helm.sh/hook": pre-upgrade',
      'spec:',
      '  ttlSecondsAfterFinished: {{ .Values.migration.ttl }}',
      '  template:',
      '    spec:',
      '      restartPolicy: Never',
      '      containers:',
      '        - name: migrate',
      '          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"',
      '{{- end }}',
    ].join('\n') + '\n',
  );
  for (const name of ['deployment', 'service', 'configmap', 'serviceaccount', 'ingress']) {
    files.set(
      `${dir}/templates/${name}.yaml`,
      `apiVersion: v1\nkind: ${capitalize(name)}\nmetadata:\n  name: {{ include "chart.fullname" . }}\n  labels:\n    {{- include "chart.labels" . | nindent 4 }}\nspec:\n  {{- toYaml .Values.${name} | nindent 2 }}\n`,
    );
  }
}

interface RepoStats {
  jobFiles: number;
  jobs: number;
  fluxKustomizations: number;
  multiMbFiles: string[];
}

/** How big a repository to make: a file count (the audit input), or a number of Flux Kustomizations (the scaling inputs). */
export interface RepoSize {
  files?: number;
  kustomizations?: number;
}

export function repoFiles(size: RepoSize = { files: REPO_FILES }): { files: Files; stats: RepoStats } {
  const rng = new Rng(SEED);
  const files: Files = new Map();
  const stats: RepoStats = { jobFiles: 0, jobs: 0, fluxKustomizations: 0, multiMbFiles: [] };
  const jobFiles: Array<{ path: string; jobs: Array<{ name: string; ttl: string }> }> = [];
  // A scaling repository holds about six files per Kustomization (96,000 for 16,000), as the real ones do.
  const targetFiles = size.files ?? (size.kustomizations ?? 0) * 6;
  const enough = () => (size.kustomizations !== undefined ? stats.fluxKustomizations >= size.kustomizations : files.size >= targetFiles - 1 - NAMESPACES.length - 9);

  // What `flux bootstrap --path=kubernetes/flux/cluster` writes: Flux starts there.
  files.set(
    'kubernetes/flux/cluster/flux-system/gotk-sync.yaml',
    [
      'apiVersion: source.toolkit.fluxcd.io/v1',
      'kind: GitRepository',
      'metadata:',
      '  name: flux-system',
      '  namespace: flux-system',
      'spec:',
      '  interval: 1m0s',
      '  ref:',
      '    branch: main',
      '  url: ssh://git@github.com/example/home-ops',
      '---',
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: flux-system',
      '  namespace: flux-system',
      'spec:',
      '  interval: 10m0s',
      '  path: ./kubernetes/flux/cluster',
      '  prune: true',
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
    ].join('\n') + '\n',
  );
  stats.fluxKustomizations++;

  files.set('kubernetes/flux/cluster/ks.yaml', fluxKustomization(rng, 'cluster-apps', 'flux-system', './kubernetes/apps', { CLUSTER: 'main' }, true));
  files.set(
    'kubernetes/flux/vars/cluster-settings.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  SECRET_DOMAIN: example.com\n  TIMEZONE: Europe/Paris\n  CLUSTER_NAME: main\n  NAMESPACE: default\n  DATABASES: "app1 app2"\n  RETRIES: "3"\n',
  );
  stats.fluxKustomizations++;

  // A few multi-MB CRD bundles (under the 5 MiB size limit, so they are analysed).
  for (const [path, bytes] of [
    ['kubernetes/crds/bundles/gateway-and-mesh-crds.yaml', 2_200_000],
    ['kubernetes/crds/bundles/observability-crds.yaml', 3_300_000],
    ['kubernetes/crds/bundles/cloud-provider-crds.yaml', 4_600_000],
  ] as const) {
    files.set(path, crdBundle(rng, bytes, path.split('/').pop()!.replace('-crds.yaml', '') + '.example.io'));
    stats.multiMbFiles.push(path);
  }
  // Standalone CRDs (~3% of files).
  for (let i = 0; i < 400; i++) {
    const group = `${rng.pick(APP_NAMES)}.example.io`;
    const kind = `${capitalize(rng.pick(WORDS))}${capitalize(rng.pick(WORDS))}`;
    files.set(`kubernetes/crds/${group}/${kind.toLowerCase()}-${i}.yaml`, crd(rng, group, kind, rng.skewed(10, 250)));
  }
  for (let c = 0; c < 12; c++) chartFiles(rng, files, `${rng.pick(APP_NAMES)}-chart-${c}`);

  // Apps until the repository holds REPO_FILES files.
  const contractLines: string[] = [];
  const reserve = 1; // the contract file
  let appIndex = 0;
  const namespaceApps = new Map<string, string[]>();
  const declared: string[] = [];
  while (!enough()) {
    const ns = NAMESPACES[appIndex % NAMESPACES.length];
    const app = `${rng.pick(APP_NAMES)}-${appIndex}`;
    appIndex++;
    const dir = `kubernetes/apps/${ns}/${app}`;
    namespaceApps.set(ns, [...(namespaceApps.get(ns) ?? []), app]);
    const substituted = rng.chance(0.8);
    const ksDocs = [fluxKustomization(rng, app, ns, `./${dir}/app`, substituted ? { APP: app, VOLSYNC_CAPACITY: `${rng.int(1, 20)}Gi` } : null, rng.chance(0.5), declared)];
    declared.push(app);
    stats.fluxKustomizations++;
    if (rng.chance(0.15)) {
      ksDocs.push(fluxKustomization(rng, `${app}-extras`, ns, `./${dir}/extras`, null, false));
      stats.fluxKustomizations++;
      files.set(`${dir}/extras/kustomization.yaml`, ['---', 'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'resources:', '  - ./servicemonitor.yaml'].join('\n') + '\n');
      files.set(`${dir}/extras/servicemonitor.yaml`, serviceMonitor(rng, app));
    }
    files.set(`${dir}/ks.yaml`, '---\n' + ksDocs.join('---\n'));
    const resources: string[] = [];
    const put = (name: string, text: string) => {
      files.set(`${dir}/app/${name}`, text);
      resources.push(`./${name}`);
    };
    if (rng.chance(0.92)) put('helmrelease.yaml', helmRelease(rng, app, rng.chance(0.05)));
    if (rng.chance(0.5)) put('ocirepository.yaml', ociRepository(rng));
    if (rng.chance(0.4)) put('externalsecret.yaml', externalSecret(rng, app));
    if (rng.chance(0.3)) put('configmap.yaml', configMap(rng, `${app}-config`, ns));
    if (rng.chance(0.15)) put('pvc.yaml', pvc(rng, app));
    if (rng.chance(0.075)) {
      // A few hundred Jobs with shell scripts; a few files hold two.
      const count = rng.chance(0.1) ? 2 : 1;
      const docs: string[] = [];
      const jobs: Array<{ name: string; ttl: string }> = [];
      for (let j = 0; j < count; j++) {
        const roll = rng.next();
        const ttl = roll < 0.75 ? 'required' : roll < 0.85 ? 'missing' : roll < 0.93 ? 'other' : 'no-note';
        docs.push(jobDocument(rng, stats.jobs, ns, app, { ttl, script: shellScript(rng, app, substituted, [3, 40]), labels: true }));
        jobs.push({ name: jobName(stats.jobs, app), ttl });
        stats.jobs++;
      }
      jobFiles.push({ path: `${dir}/app/job.yaml`, jobs });
      put('job.yaml', '---\n' + docs.join('---\n'));
      stats.jobFiles++;
    }
    const kustomization = ['---', 'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'resources:', ...resources.map((r) => `  - ${r}`)];
    if (rng.chance(0.1)) {
      files.set(`${dir}/app/patch-deployment.yaml`, patchFile(rng, app));
      kustomization.push('patches:', '  - path: ./patch-deployment.yaml');
    }
    if (rng.chance(0.2)) {
      kustomization.push('configMapGenerator:', `  - name: ${app}-configmap`, '    files:', '      - ./resources/config.yaml', 'generatorOptions:', '  disableNameSuffixHash: true');
      files.set(`${dir}/app/resources/config.yaml`, appConfig(rng));
    }
    files.set(`${dir}/app/kustomization.yaml`, kustomization.join('\n') + '\n');
  }
  for (const [ns, apps] of namespaceApps) {
    files.set(
      `kubernetes/apps/${ns}/kustomization.yaml`,
      ['---', 'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${ns}`, 'resources:', ...apps.map((app) => `  - ./${app}/ks.yaml`)].join('\n') + '\n',
    );
  }
  // Fill up to the exact count with small ConfigMaps.
  for (let i = 0; files.size < targetFiles - reserve; i++) files.set(`kubernetes/apps/default/extra-config-${i}.yaml`, configMap(rng, `extra-${i}`, 'default'));

  // Contract entries that hold: Jobs without a TTL on purpose, Jobs that keep another value.
  const entries = (ttl: string, n: number) => jobFiles.flatMap((f) => f.jobs.filter((j) => j.ttl === ttl).map((j) => ({ path: f.path, name: j.name }))).slice(0, n);
  contractLines.push(
    '# The finish-timeout contract of the generated benchmark repository.',
    'ttl:',
    '  required: 86400',
    '  noFinishTimeout:',
    ...entries('missing', 6).flatMap((e) => [`    - file: ${e.path}`, `      job: ${e.name}`, '      reason: Its completion is the record of the one-off import.']),
    '  otherFinishTimeout:',
    ...entries('other', 6).flatMap((e) => [`    - file: ${e.path}`, `      job: ${e.name}`, `      value: ${OTHER_TTL}`, '      reason: An hour is enough to read its logs.']),
    'flux:',
    '  strict: true',
  );
  files.set('.flux-job-guard.yaml', contractLines.join('\n') + '\n');
  return { files, stats };
}

// ---- writing ----------------------------------------------------------------

/** Writes the files under `repoDir`; returns their total size in bytes. */
function writeFiles(repoDir: string, files: Files): number {
  let bytes = 0;
  const made = new Set<string>();
  for (const [path, text] of files) {
    const absolute = join(repoDir, path);
    const parent = dirname(absolute);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeFileSync(absolute, text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

export function generate(dir: string): Manifest {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const jobs = jobsFileText();
  const jobsPath = join(dir, 'jobs-2000.yaml');
  writeFileSync(jobsPath, jobs.text);
  const { files, stats } = repoFiles();
  const repoDir = join(dir, 'repo');
  const bytes = writeFiles(repoDir, files);
  const manifest: Manifest = {
    generatorVersion: GENERATOR_VERSION,
    seed: SEED,
    jobsFile: { path: 'jobs-2000.yaml', bytes: Buffer.byteLength(jobs.text), jobs: jobs.jobs },
    repo: { files: files.size, bytes, ...stats, git: commitAll(repoDir) },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/**
 * Makes the repository its own git checkout with one commit, as real ones are
 * (job-immutable-template reads files at HEAD), instead of letting git find the
 * checkout this folder sits in. Fixed author and dates keep it reproducible.
 */
function commitAll(repoDir: string): boolean {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
    GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  };
  const git = (...args: string[]) => spawnSync('git', ['-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false', ...args], { cwd: repoDir, env, encoding: 'utf8' });
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'generated benchmark repository'],
  ]) {
    const run = git(...args);
    if (run.status !== 0) {
      process.stderr.write(`bench: git ${args[0]} failed in ${repoDir} (${(run.stderr || String(run.error)).trim()}); the repository stays a plain folder\n`);
      rmSync(join(repoDir, '.git'), { recursive: true, force: true });
      return false;
    }
  }
  return true;
}

/** The scaling inputs: repositories of `kustomizations` Flux Kustomizations (no git: only the graph's growth is measured). */
export function ensureScalingRepo(repoRoot: string, kustomizations: number, log: (line: string) => void = () => undefined): { dir: string; files: number; bytes: number } {
  const dir = join(generatedDir(repoRoot), `scale-${kustomizations}`);
  const stamp = `${dir}.json`;
  try {
    const made = JSON.parse(readFileSync(stamp, 'utf8')) as { generatorVersion: number; files: number; bytes: number };
    if (made.generatorVersion === GENERATOR_VERSION) return { dir, files: made.files, bytes: made.bytes };
  } catch {
    // not made yet, or by another version
  }
  log(`generating a repository with ${kustomizations} Flux Kustomizations into ${dir} ...`);
  rmSync(dir, { recursive: true, force: true });
  const { files } = repoFiles({ kustomizations });
  const bytes = writeFiles(dir, files);
  writeFileSync(stamp, JSON.stringify({ generatorVersion: GENERATOR_VERSION, files: files.size, bytes }) + '\n');
  return { dir, files: files.size, bytes };
}

export function generatedDir(repoRoot: string): string {
  return join(repoRoot, 'bench', '.generated');
}

/** The inputs, generated first when missing or stale. */
export function ensureGenerated(repoRoot: string, force = false, log: (line: string) => void = () => undefined): Generated {
  const dir = generatedDir(repoRoot);
  let manifest: Manifest | null;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    manifest = null;
  }
  const stale = !manifest || manifest.generatorVersion !== GENERATOR_VERSION || manifest.seed !== SEED || !existsSync(join(dir, 'jobs-2000.yaml')) || !existsSync(join(dir, 'repo'));
  if (force || stale) {
    log(`generating benchmark inputs into ${dir} ...`);
    const started = Date.now();
    manifest = generate(dir);
    log(`generated ${manifest.repo.files} files (${(manifest.repo.bytes / 1e6).toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return { dir, jobsFile: join(dir, 'jobs-2000.yaml'), repoDir: join(dir, 'repo'), manifest: manifest! };
}

if (require.main === module) {
  const repoRoot = join(__dirname, '..', '..');
  const generated = ensureGenerated(repoRoot, process.argv.includes('--force'), (line) => console.log(line));
  console.log(JSON.stringify(generated.manifest, null, 2));
}
