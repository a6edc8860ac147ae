// What the dependsOn gate reads of one document: the `spec.dependsOn` entries
// of a Flux Kustomization or HelmRelease (each names an object of the same
// kind that must be Ready first; the namespace defaults to the dependent's),
// and the HelmReleases themselves (the objects a HelmRelease's entries name),
// with what they read before they install (helm-refs.ts).
import { asSeq, findPair, getNode, getString, nodeSpan, ParsedDocument, YAMLMap } from '../../yaml/documents';
import type { LineIndex } from '../../yaml/line-index';
import type { DependsOnRef, HelmReleaseDecl } from './model';
import { helmObjectRefs, isSuspended } from './helm-refs';

export const HELM_GROUP = 'helm.toolkit.fluxcd.io/';

export function dependsOnRefs(parsed: ParsedDocument, spec: unknown): DependsOnRef[] {
  const { doc } = parsed;
  const refs: DependsOnRef[] = [];
  for (const item of asSeq(doc, getNode(doc, spec, 'dependsOn'))?.items ?? []) {
    const nameNode = getNode(doc, item, 'name');
    const name = getString(doc, item, 'name');
    const span = nodeSpan(parsed, item);
    const nameSpan = nodeSpan(parsed, nameNode);
    if (!name || !span || !nameSpan) continue;
    refs.push({ name, namespace: getString(doc, item, 'namespace'), span, nameSpan, readyExpr: getNode(doc, item, 'readyExpr') !== null });
  }
  return refs;
}

export function helmReleaseDecl(file: string, parsed: ParsedDocument, root: YAMLMap, lines: LineIndex): HelmReleaseDecl | null {
  const { doc } = parsed;
  const name = getString(doc, root, 'metadata', 'name');
  if (!name) return null;
  const span = nodeSpan(parsed, findPair(root, 'kind')?.key) ?? [parsed.base, parsed.base];
  const spec = findPair(root, 'spec')?.value;
  return {
    file,
    name,
    nameSpan: nodeSpan(parsed, getNode(doc, root, 'metadata', 'name')),
    namespace: getString(doc, root, 'metadata', 'namespace'),
    span,
    range: lines.range(span[0], span[1]),
    dependsOn: dependsOnRefs(parsed, spec),
    refs: helmObjectRefs(parsed, spec),
    suspended: isSuspended(parsed, spec),
    targetNamespace: getString(doc, spec, 'targetNamespace'),
  };
}
