// A resource on its way through a kustomize build: its id (kyaml's ResId),
// the ids it had before (kustomize keeps them in internal annotations, and
// patch targets and generator merges match any of them), its labels and
// annotations, and where it comes from.
import type { ResourceDoc } from './resource-docs';
import type { Span } from './types';

export type Origin =
  /** A document of a resource file (or an item of a List in it). */
  | { kind: 'file'; file: string; span: Span }
  /** What a configMapGenerator or secretGenerator makes: its kustomization file, the item, the files it reads. */
  | { kind: 'generator'; file: string; span: Span; inputs: string[] };

export interface ResId {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

/** What a generator's object carries until the end of the build (the hash is taken last, over its final data). */
export interface Generated {
  behavior: string;
  needsHash: boolean;
  data: Map<string, string>;
  binaryData: Map<string, string>;
  /** A Secret's type. */
  type: string;
  /** False when an input could not be read as text (its bytes decide the hash). */
  hashKnown: boolean;
}

export interface Res extends ResId {
  /** null while the resource has no labels map (a JSON patch cannot add a key to it then). */
  labels: Map<string, string> | null;
  /** Never null in a build: kustomize's internal annotations keep the map. */
  annotations: Map<string, string>;
  /** The ids the resource had, oldest first: the first is its original id. */
  previous: ResId[];
  origin: Origin;
  generated: Generated | null;
  /** What the patches and replacements that changed it may write (their texts), oldest first; absent when none did. */
  writtenBy?: string[];
}

export function resourceFromDoc(doc: ResourceDoc, file: string): Res {
  return {
    apiVersion: doc.apiVersion,
    kind: doc.kind,
    name: doc.name,
    namespace: doc.namespace,
    labels: doc.labels ? new Map(doc.labels) : null,
    annotations: new Map(doc.annotations ?? []),
    previous: [],
    origin: { kind: 'file', file, span: doc.span },
    generated: null,
  };
}

export function cloneRes(res: Res): Res {
  return {
    ...res,
    labels: res.labels ? new Map(res.labels) : null,
    annotations: new Map(res.annotations),
    previous: [...res.previous],
    generated: res.generated ? { ...res.generated, data: new Map(res.generated.data), binaryData: new Map(res.generated.binaryData) } : null,
  };
}

export function currentId(res: Res): ResId {
  return { apiVersion: res.apiVersion, kind: res.kind, name: res.name, namespace: res.namespace };
}

export function originalId(res: Res): ResId {
  return res.previous[0] ?? currentId(res);
}

/** Every id the resource answers to (GetMatchingResourcesByAnyId). */
export function anyIds(res: Res): ResId[] {
  return [...res.previous, currentId(res)];
}

/** StorePreviousId: the resource remembers the id it has now. */
export function storePreviousId(res: Res): void {
  res.previous.push(currentId(res));
}

/**
 * The kinds kyaml knows to be cluster-scoped (openapi precomputedIsNamespaceScoped,
 * by exact apiVersion and kind). Any other kind, a custom resource included, is
 * taken as namespaced: `namespace:` is set on it.
 */
const CLUSTER_SCOPED = new Set([
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1 CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1 CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService',
  'apiregistration.k8s.io/v1beta1 APIService',
  'certificates.k8s.io/v1 CertificateSigningRequest',
  'certificates.k8s.io/v1beta1 CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration',
  'networking.k8s.io/v1 IngressClass',
  'networking.k8s.io/v1beta1 IngressClass',
  'node.k8s.io/v1 RuntimeClass',
  'node.k8s.io/v1beta1 RuntimeClass',
  'policy/v1beta1 PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1 ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1beta1 ClusterRole',
  'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding',
  'scheduling.k8s.io/v1 PriorityClass',
  'scheduling.k8s.io/v1beta1 PriorityClass',
  'storage.k8s.io/v1 CSIDriver',
  'storage.k8s.io/v1 CSINode',
  'storage.k8s.io/v1 StorageClass',
  'storage.k8s.io/v1 VolumeAttachment',
  'storage.k8s.io/v1beta1 CSIDriver',
  'storage.k8s.io/v1beta1 CSINode',
  'storage.k8s.io/v1beta1 StorageClass',
  'storage.k8s.io/v1beta1 VolumeAttachment',
  'v1 ComponentStatus',
  'v1 Namespace',
  'v1 Node',
  'v1 NodeProxyOptions',
  'v1 PersistentVolume',
]);

export function isClusterScoped(id: { apiVersion: string; kind: string }): boolean {
  return CLUSTER_SCOPED.has(`${id.apiVersion} ${id.kind}`);
}

/** ResId.EffectiveNamespace: cluster-scoped kinds have none, no namespace is `default`. */
export function effectiveNamespace(id: ResId): string {
  if (isClusterScoped(id)) return '_non_namespaceable_';
  return id.namespace === '' || id.namespace === 'default' ? 'default' : id.namespace;
}

export function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** ResId.IsNsEquals of an id and a selector's namespace (the selector's kind decides whether it has one). */
export function sameNamespace(id: ResId, namespace: string, selector: { apiVersion: string; kind: string } = id): boolean {
  return effectiveNamespace(id) === effectiveNamespace({ ...selector, name: '', namespace });
}

/** ResId.Equals: same group, version, kind and name, same effective namespace. */
export function sameId(a: ResId, b: ResId): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && effectiveNamespace(a) === effectiveNamespace(b);
}

/** A string for an id: two ids are the same (sameId) exactly where their keys are equal. */
export function idKey(id: ResId): string {
  return JSON.stringify([id.apiVersion, id.kind, id.name, effectiveNamespace(id)]);
}

/** ResId.String, as kustomize's messages print ids: `Kind.version.group/name.namespace`. */
export function idText(id: ResId): string {
  const { group, version } = groupVersion(id.apiVersion);
  return `${id.kind || '[noKind]'}.${version || '[noVer]'}.${group || '[noGrp]'}/${id.name || '[noName]'}.${id.namespace || '[noNs]'}`;
}
