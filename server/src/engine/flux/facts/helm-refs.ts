// What helm-controller reads before it installs a HelmRelease, as one document
// writes it: each `spec.valuesFrom` entry (kind ConfigMap or Secret, `name`,
// `optional`), `spec.chartRef` and `spec.chart.spec.sourceRef` (kind, name,
// namespace). The model (flux/model/helm-refs.ts) asks whether the world
// creates each one.
import { asMap, asSeq, getNode, getString, nodeSpan, parseYamlFile, ParsedDocument } from '../../yaml/documents';
import type { HelmObjectRef } from './model';

export function helmObjectRefs(parsed: ParsedDocument, spec: unknown): HelmObjectRef[] {
  const { doc } = parsed;
  const refs: HelmObjectRef[] = [];
  const read = (field: HelmObjectRef['field'], node: unknown) => {
    const kind = getString(doc, node, 'kind');
    const name = getString(doc, node, 'name');
    const span = nodeSpan(parsed, node);
    const nameSpan = nodeSpan(parsed, getNode(doc, node, 'name'));
    if (!kind || !name || !span || !nameSpan) return;
    refs.push({ field, kind, name, namespace: field === 'valuesFrom' ? null : getString(doc, node, 'namespace'), optional: getString(doc, node, 'optional') === 'true', span, nameSpan });
  };
  for (const item of asSeq(doc, getNode(doc, spec, 'valuesFrom'))?.items ?? []) read('valuesFrom', item);
  const chartRef = getNode(doc, spec, 'chartRef');
  if (chartRef) read('chartRef', chartRef);
  const sourceRef = getNode(doc, spec, 'chart', 'spec', 'sourceRef');
  if (sourceRef) read('sourceRef', sourceRef);
  return refs;
}

/**
 * Whether a patch's text (or a replacement's target paths) may change a HelmRelease's references of
 * `field` (all of them without one): it names the field, or replaces what holds it (`$patch`, a JSON
 * patch of `/spec` or `/`). A patch that names none of them leaves them as written.
 */
export function mayWriteHelmRefs(text: string, field?: HelmObjectRef['field']): boolean {
  if (/\$patch|path:\s*["']?\/(spec)?["']?\s*$|^\s*spec\s*$/m.test(text)) return true;
  const values = /valuesFrom/.test(text);
  const chart = /chartRef|sourceRef|\bchart\b/.test(text);
  return field === undefined ? values || chart : field === 'valuesFrom' ? values : chart;
}

/**
 * The kinds whose names a kustomize transformer config (a `configurations:` file) rewrites in a
 * HelmRelease's `spec/valuesFrom/name`: a `nameReference` entry of that kind with such a fieldSpec
 * (for HelmRelease or for every kind). kustomize merges the configs of every kustomization of a build,
 * so one such file makes the generated names right for the whole build. Null where the text cannot be
 * read as a config (then it may rewrite anything).
 */
export function valuesFromRewrites(text: string): Set<string> | null {
  const kinds = new Set<string>();
  for (const parsed of parseYamlFile(text)) {
    if (parsed.errors.length > 0) return null;
    const { doc } = parsed;
    if (doc.contents === null) continue;
    if (!asMap(doc, doc.contents)) return null;
    for (const entry of asSeq(doc, getNode(doc, doc.contents, 'nameReference'))?.items ?? []) {
      const kind = getString(doc, entry, 'kind');
      const specs = asSeq(doc, getNode(doc, entry, 'fieldSpecs'))?.items ?? [];
      const rewrites = specs.some((spec) => {
        const path = (getString(doc, spec, 'path') ?? '').replace(/^\/+|\/+$/g, '').replace(/\[\]/g, '');
        const referrer = getString(doc, spec, 'kind');
        return path === 'spec/valuesFrom/name' && (referrer === null || referrer === '' || referrer === 'HelmRelease');
      });
      if (kind && rewrites) kinds.add(kind);
    }
  }
  return kinds;
}

/** `spec.suspend: true`. */
export function isSuspended(parsed: ParsedDocument, spec: unknown): boolean {
  return getString(parsed.doc, spec, 'suspend') === 'true';
}
