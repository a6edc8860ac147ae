// Pod templates inside workload documents: a Job's or a Deployment's
// `spec.template.spec`, a CronJob's `spec.jobTemplate.spec.template.spec`,
// a Pod's own `spec`. The pod rules look at their containers.
import { asMap, asSeq, Document, getNode, getString, ParsedDocument, YAMLMap } from '../yaml/documents';

const TEMPLATE_KINDS = new Set(['Job', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ReplicationController']);

/** Cheap test: can this text hold a pod that podSpecOf reads (it names the kind)? Loose: the name may stand anywhere. */
export const MAY_HOLD_POD = new RegExp(`\\b(?:${[...TEMPLATE_KINDS, 'CronJob', 'Pod'].join('|')})\\b`);

export interface Container {
  map: YAMLMap;
  name: string;
  init: boolean;
}

export interface PodTemplate {
  kind: string;
  /** The workload's name and namespace (metadata of the document). */
  name: string | null;
  namespace: string | null;
  spec: YAMLMap;
  containers: Container[];
}

export function podSpecOf(doc: Document): YAMLMap | null {
  const root = doc.contents;
  const kind = getString(doc, root, 'kind') ?? '';
  if (TEMPLATE_KINDS.has(kind)) return asMap(doc, getNode(doc, root, 'spec', 'template', 'spec'));
  if (kind === 'CronJob') return asMap(doc, getNode(doc, root, 'spec', 'jobTemplate', 'spec', 'template', 'spec'));
  if (kind === 'Pod') return asMap(doc, getNode(doc, root, 'spec'));
  return null;
}

export function podTemplate(parsed: ParsedDocument): PodTemplate | null {
  const { doc } = parsed;
  const spec = podSpecOf(doc);
  if (!spec) return null;
  const containers: Container[] = [];
  for (const [key, init] of [
    ['initContainers', true],
    ['containers', false],
  ] as const) {
    for (const item of asSeq(doc, getNode(doc, spec, key))?.items ?? []) {
      const map = asMap(doc, item);
      if (map) containers.push({ map, name: getString(doc, map, 'name') ?? '(unnamed)', init });
    }
  }
  return {
    kind: getString(doc, doc.contents, 'kind') ?? '',
    name: getString(doc, doc.contents, 'metadata', 'name'),
    namespace: getString(doc, doc.contents, 'metadata', 'namespace'),
    spec,
    containers,
  };
}
