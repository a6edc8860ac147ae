// The type Kubernetes (or a Flux CRD's schema) gives a field, for the fields
// people substitute most: what the API server's strict decoding accepts after
// Flux re-reads a substituted resource. Only fields whose type is certain are
// listed; everything else (Helm values, CRDs we do not know, IntOrString and
// Quantity fields) is `null`: any YAML type may be right there.
//
// Patterns are dot paths from the document root: `*` is any map key, `[]` any
// list item. A workload's pod template is listed once and mounted at each
// kind's template path.

export type FieldType = 'string' | 'integer' | 'boolean';

type Table = readonly (readonly [pattern: string, type: FieldType])[];

const METADATA: Table = [
  ['name', 'string'],
  ['namespace', 'string'],
  ['generateName', 'string'],
  ['labels.*', 'string'],
  ['annotations.*', 'string'],
];

const CONTAINER: Table = [
  ['name', 'string'],
  ['image', 'string'],
  ['imagePullPolicy', 'string'],
  ['workingDir', 'string'],
  ['command[]', 'string'],
  ['args[]', 'string'],
  ['env[].name', 'string'],
  ['env[].value', 'string'],
  ['ports[].name', 'string'],
  ['ports[].containerPort', 'integer'],
  ['ports[].hostPort', 'integer'],
  ['ports[].protocol', 'string'],
  ['volumeMounts[].name', 'string'],
  ['volumeMounts[].mountPath', 'string'],
  ['volumeMounts[].subPath', 'string'],
  ['volumeMounts[].readOnly', 'boolean'],
  ['stdin', 'boolean'],
  ['tty', 'boolean'],
  ...['livenessProbe', 'readinessProbe', 'startupProbe'].flatMap((probe): Table =>
    ['initialDelaySeconds', 'periodSeconds', 'timeoutSeconds', 'successThreshold', 'failureThreshold'].map((field) => [`${probe}.${field}`, 'integer'] as const),
  ),
  ...securityContext('securityContext'),
];

function securityContext(at: string): Table {
  return [
    [`${at}.runAsUser`, 'integer'],
    [`${at}.runAsGroup`, 'integer'],
    [`${at}.runAsNonRoot`, 'boolean'],
    [`${at}.privileged`, 'boolean'],
    [`${at}.readOnlyRootFilesystem`, 'boolean'],
    [`${at}.allowPrivilegeEscalation`, 'boolean'],
    [`${at}.fsGroup`, 'integer'],
  ];
}

const POD_SPEC: Table = [
  ...['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) => mount(`${list}[]`, CONTAINER)),
  ['serviceAccountName', 'string'],
  ['serviceAccount', 'string'],
  ['nodeName', 'string'],
  ['hostname', 'string'],
  ['subdomain', 'string'],
  ['priorityClassName', 'string'],
  ['schedulerName', 'string'],
  ['restartPolicy', 'string'],
  ['dnsPolicy', 'string'],
  ['runtimeClassName', 'string'],
  ['nodeSelector.*', 'string'],
  ['terminationGracePeriodSeconds', 'integer'],
  ['activeDeadlineSeconds', 'integer'],
  ['hostNetwork', 'boolean'],
  ['hostPID', 'boolean'],
  ['hostIPC', 'boolean'],
  ['automountServiceAccountToken', 'boolean'],
  ['enableServiceLinks', 'boolean'],
  ['shareProcessNamespace', 'boolean'],
  ['volumes[].name', 'string'],
  ['volumes[].persistentVolumeClaim.claimName', 'string'],
  ['volumes[].configMap.name', 'string'],
  ['volumes[].secret.secretName', 'string'],
  ['volumes[].hostPath.path', 'string'],
  ['volumes[].nfs.server', 'string'],
  ['volumes[].nfs.path', 'string'],
  ...securityContext('securityContext'),
];

const POD_TEMPLATE: Table = [...mount('metadata', METADATA), ...mount('spec', POD_SPEC)];

const JOB_SPEC: Table = [
  ['backoffLimit', 'integer'],
  ['completions', 'integer'],
  ['parallelism', 'integer'],
  ['activeDeadlineSeconds', 'integer'],
  ['ttlSecondsAfterFinished', 'integer'],
  ['suspend', 'boolean'],
  ...mount('template', POD_TEMPLATE),
];

const FLUX_INTERVALS: Table = [
  ['spec.interval', 'string'],
  ['spec.timeout', 'string'],
  ['spec.suspend', 'boolean'],
];

/** By kind; a kind of another API group with the same name is not these (see GROUPS). */
const BY_KIND: Readonly<Record<string, Table>> = {
  ConfigMap: [
    ['data.*', 'string'],
    ['binaryData.*', 'string'],
  ],
  Secret: [
    ['data.*', 'string'],
    ['stringData.*', 'string'],
    ['type', 'string'],
  ],
  Pod: mount('spec', POD_SPEC),
  Deployment: [['spec.replicas', 'integer'], ['spec.revisionHistoryLimit', 'integer'], ['spec.minReadySeconds', 'integer'], ['spec.paused', 'boolean'], ...mount('spec.template', POD_TEMPLATE)],
  StatefulSet: [
    ['spec.replicas', 'integer'],
    ['spec.serviceName', 'string'],
    ['spec.podManagementPolicy', 'string'],
    ['spec.volumeClaimTemplates[].metadata.name', 'string'],
    ['spec.volumeClaimTemplates[].spec.storageClassName', 'string'],
    ...mount('spec.template', POD_TEMPLATE),
  ],
  DaemonSet: [['spec.revisionHistoryLimit', 'integer'], ['spec.minReadySeconds', 'integer'], ...mount('spec.template', POD_TEMPLATE)],
  ReplicaSet: [['spec.replicas', 'integer'], ...mount('spec.template', POD_TEMPLATE)],
  Job: mount('spec', JOB_SPEC),
  CronJob: [
    ['spec.schedule', 'string'],
    ['spec.timeZone', 'string'],
    ['spec.concurrencyPolicy', 'string'],
    ['spec.suspend', 'boolean'],
    ['spec.successfulJobsHistoryLimit', 'integer'],
    ['spec.failedJobsHistoryLimit', 'integer'],
    ['spec.startingDeadlineSeconds', 'integer'],
    ...mount('spec.jobTemplate.spec', JOB_SPEC),
  ],
  Service: [
    ['spec.type', 'string'],
    ['spec.clusterIP', 'string'],
    ['spec.loadBalancerIP', 'string'],
    ['spec.externalName', 'string'],
    ['spec.selector.*', 'string'],
    ['spec.ports[].name', 'string'],
    ['spec.ports[].protocol', 'string'],
    ['spec.ports[].port', 'integer'],
    ['spec.ports[].nodePort', 'integer'],
  ],
  Ingress: [
    ['spec.ingressClassName', 'string'],
    ['spec.rules[].host', 'string'],
    ['spec.rules[].http.paths[].path', 'string'],
    ['spec.rules[].http.paths[].backend.service.name', 'string'],
    ['spec.rules[].http.paths[].backend.service.port.number', 'integer'],
    ['spec.tls[].hosts[]', 'string'],
    ['spec.tls[].secretName', 'string'],
  ],
  PersistentVolumeClaim: [
    ['spec.storageClassName', 'string'],
    ['spec.volumeName', 'string'],
    ['spec.accessModes[]', 'string'],
  ],
  Kustomization: [
    ...FLUX_INTERVALS,
    ['spec.path', 'string'],
    ['spec.retryInterval', 'string'],
    ['spec.targetNamespace', 'string'],
    ['spec.serviceAccountName', 'string'],
    ['spec.prune', 'boolean'],
    ['spec.wait', 'boolean'],
    ['spec.force', 'boolean'],
    ['spec.sourceRef.name', 'string'],
    ['spec.dependsOn[].name', 'string'],
    ['spec.postBuild.substitute.*', 'string'],
  ],
  HelmRelease: [
    ...FLUX_INTERVALS,
    ['spec.releaseName', 'string'],
    ['spec.targetNamespace', 'string'],
    ['spec.storageNamespace', 'string'],
    ['spec.chart.spec.chart', 'string'],
    ['spec.chart.spec.version', 'string'],
    ['spec.chartRef.name', 'string'],
    ['spec.valuesFrom[].name', 'string'],
  ],
  GitRepository: [...FLUX_INTERVALS, ['spec.url', 'string'], ['spec.ref.branch', 'string'], ['spec.ref.tag', 'string'], ['spec.ref.semver', 'string'], ['spec.ref.commit', 'string']],
  OCIRepository: [...FLUX_INTERVALS, ['spec.url', 'string'], ['spec.ref.tag', 'string'], ['spec.ref.semver', 'string'], ['spec.ref.digest', 'string']],
  HelmRepository: [...FLUX_INTERVALS, ['spec.url', 'string']],
};

/** The API groups each kind of the table belongs to (`''`: the core group). */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: [''],
  Secret: [''],
  Pod: [''],
  Service: [''],
  PersistentVolumeClaim: [''],
  Deployment: ['apps'],
  StatefulSet: ['apps'],
  DaemonSet: ['apps'],
  ReplicaSet: ['apps'],
  Job: ['batch'],
  CronJob: ['batch'],
  Ingress: ['networking.k8s.io'],
  Kustomization: ['kustomize.toolkit.fluxcd.io'],
  HelmRelease: ['helm.toolkit.fluxcd.io'],
  GitRepository: ['source.toolkit.fluxcd.io'],
  OCIRepository: ['source.toolkit.fluxcd.io'],
  HelmRepository: ['source.toolkit.fluxcd.io'],
};

function mount(prefix: string, table: Table): Table {
  return table.map(([pattern, type]) => [`${prefix}.${pattern}`, type] as const);
}

/** A path segment: `*` (any key), `[]` (any item), or a key. */
type Step = string;

function steps(pattern: string): Step[] {
  return pattern.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), '[]'] : [part]));
}

interface Trie {
  next: Map<Step, Trie>;
  type?: FieldType;
}

function trieOf(table: Table): Trie {
  const root: Trie = { next: new Map() };
  for (const [pattern, type] of [...mount('metadata', METADATA), ...table]) {
    let node = root;
    for (const step of steps(pattern)) {
      let child = node.next.get(step);
      if (!child) node.next.set(step, (child = { next: new Map() }));
      node = child;
    }
    node.type = type;
  }
  return root;
}

const TRIES = new Map(Object.entries(BY_KIND).map(([kind, table]) => [kind, trieOf(table)]));
const ANY_KIND = trieOf([]);

/**
 * The type of the field at `path` (map keys and list indices from the document root) of a
 * resource, or null where it is not one of the fields we know (any type may be right there).
 */
export function fieldType(apiVersion: string | null, kind: string | null, path: readonly (string | number)[]): FieldType | null {
  const group = apiVersion === null ? null : apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const known = kind !== null && group !== null && GROUPS[kind]?.includes(group);
  let node: Trie | undefined = known ? TRIES.get(kind) : ANY_KIND;
  for (const segment of path) {
    if (!node) return null;
    node = typeof segment === 'number' ? node.next.get('[]') : (node.next.get(segment) ?? node.next.get('*'));
  }
  return node?.type ?? null;
}
