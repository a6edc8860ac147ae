// What tells the model where Flux starts and what reaches it from outside:
// sources (GitRepository, OCIRepository, Bucket), the sync a FluxInstance
// declares (as a resource, or as the values of the flux-instance chart), and
// a known admission webhook that adds substituteFrom to every Kustomization.
import { asMap, asSeq, findPair, getNode, getString, nodeSpan, ParsedDocument, YAMLMap } from '../../yaml/documents';
import { type WebhookDecl, SyncDecl, SourceKind, SourceDecl, SOURCE_KINDS, ArtifactDecl, SubstituteFromRef } from './model';
export function artifactDecls(file: string, parsed: ParsedDocument, root: YAMLMap): ArtifactDecl[] {
  const { doc } = parsed;
  const namespace = getString(doc, root, 'metadata', 'namespace');
  const aliases = new Map<string, { kind: string; name: string; namespace: string | null }>();
  for (const item of asSeq(doc, getNode(doc, root, 'spec', 'sources'))?.items ?? []) {
    const alias = getString(doc, item, 'alias');
    const kind = getString(doc, item, 'kind');
    const name = getString(doc, item, 'name');
    if (alias && kind && name) aliases.set(alias, { kind, name, namespace: getString(doc, item, 'namespace') ?? namespace });
  }
  const decls: ArtifactDecl[] = [];
  for (const item of asSeq(doc, getNode(doc, root, 'spec', 'artifacts'))?.items ?? []) {
    const name = getString(doc, item, 'name');
    if (!name) continue;
    const copies: ArtifactDecl['copies'] = [];
    for (const copy of asSeq(doc, getNode(doc, item, 'copy'))?.items ?? []) {
      const from = /^@([^/]+)\/(.*)$/.exec(getString(doc, copy, 'from') ?? '');
      const to = /^@artifact\/(.*)$/.exec(getString(doc, copy, 'to') ?? '');
      const source = from ? aliases.get(from[1]) : undefined;
      if (from && to && source) copies.push({ kind: source.kind, sourceName: source.name, sourceNamespace: source.namespace, from: from[2], to: to[1] });
      else copies.push({ kind: '', sourceName: '', sourceNamespace: null, from: '', to: '(unknown)' });
    }
    decls.push({ name, namespace, copies, file });
  }
  return decls;
}

export function sourceDecl(file: string, parsed: ParsedDocument, root: YAMLMap, kind: SourceKind): SourceDecl | null {
  const { doc } = parsed;
  const name = getString(doc, root, 'metadata', 'name');
  if (!name) return null;
  return {
    kind,
    name,
    namespace: getString(doc, root, 'metadata', 'namespace'),
    url: getString(doc, root, 'spec', 'url'),
    ignore: getString(doc, root, 'spec', 'ignore'),
    file,
    span: nodeSpan(parsed, findPair(root, 'kind')?.key) ?? [0, 0],
  };
}

/**
 * The sync of a FluxInstance, wherever its spec is written: the resource
 * itself, a HelmRelease of the flux-instance chart (`values.instance.sync`),
 * or a values file of that chart (a document with `instance.sync` and no kind).
 */
export function syncDecl(file: string, parsed: ParsedDocument, root: YAMLMap, kind: string | null, apiVersion: string): SyncDecl | null {
  const { doc } = parsed;
  let sync: unknown = null;
  let namespace: string | null = null;
  let via = '';
  let spec: unknown = null;
  if (kind === 'FluxInstance' && apiVersion.startsWith('fluxcd.controlplane.io/')) {
    spec = getNode(doc, root, 'spec');
    sync = getNode(doc, spec, 'sync');
    namespace = getString(doc, root, 'metadata', 'namespace');
    via = 'FluxInstance';
  } else if (kind === 'HelmRelease' && apiVersion.startsWith('helm.toolkit.fluxcd.io/')) {
    spec = getNode(doc, root, 'spec', 'values', 'instance');
    sync = getNode(doc, spec, 'sync');
    namespace = getString(doc, root, 'spec', 'targetNamespace') ?? getString(doc, root, 'metadata', 'namespace');
    via = 'HelmRelease values';
  } else if (kind === null && findPair(root, 'apiVersion') === undefined) {
    spec = getNode(doc, root, 'instance');
    sync = getNode(doc, spec, 'sync');
    via = 'chart values';
  }
  const syncKind = getString(doc, sync, 'kind') ?? 'GitRepository';
  const pathNode = getNode(doc, sync, 'path');
  const path = getString(doc, sync, 'path');
  if (!asMap(doc, sync) || path === null || !SOURCE_KINDS.includes(syncKind)) return null;
  const ns = namespace ?? 'flux-system';
  return {
    kind: syncKind as SourceKind,
    name: getString(doc, sync, 'name') ?? ns,
    namespace: ns,
    url: getString(doc, sync, 'url'),
    pathAsWritten: path,
    file,
    span: nodeSpan(parsed, pathNode) ?? [0, 0],
    via,
    version: getString(doc, spec, 'distribution', 'version'),
  };
}

const MUTATING_WEBHOOK = /kustomize-mutating-webhook/;

/**
 * xunholy/kustomize-mutating-webhook: the values of its chart (a values file,
 * or a HelmRelease's `spec.values`) name the ConfigMaps and Secrets whose
 * entries it injects into every Flux Kustomization's postBuild.
 */
export function webhookDecl(file: string, parsed: ParsedDocument, root: YAMLMap, kind: string | null): WebhookDecl | null {
  const { doc } = parsed;
  const values = kind === 'HelmRelease' ? asMap(doc, getNode(doc, root, 'spec', 'values')) : kind === null ? root : null;
  if (!values) return null;
  const named = MUTATING_WEBHOOK.test(getString(doc, values, 'image', 'repository') ?? '') || (kind === 'HelmRelease' && MUTATING_WEBHOOK.test(getString(doc, root, 'metadata', 'name') ?? ''));
  if (!named) return null;
  const refs: SubstituteFromRef[] = [];
  for (const [key, refKind] of [
    ['configMaps', 'ConfigMap'],
    ['secrets', 'Secret'],
  ] as const) {
    for (const item of asSeq(doc, findPair(values, key)?.value)?.items ?? []) {
      const name = getString(doc, item, 'name');
      if (name) refs.push({ kind: refKind, name, optional: true, file, span: nodeSpan(parsed, item) ?? [0, 0] });
    }
  }
  return refs.length > 0 ? { substituteFrom: refs, file, span: nodeSpan(parsed, values) ?? [0, 0], via: 'kustomize-mutating-webhook' } : null;
}

export function isSourceApi(apiVersion: string): boolean {
  return apiVersion.startsWith('source.toolkit.fluxcd.io/');
}
