// Reading `postBuild` where it is written: a Flux Kustomization's own spec,
// or a patch (a parent Kustomization's `spec.patches`, a kustomize inline
// patch) that adds it to the Kustomizations it targets; and the `sourceRef` such
// a patch writes (a child whose own sourceRef is a placeholder the parent fills).
import { asMap, asSeq, findPair, getNode, getString, isMap, keyText, nodeSpan, parseYamlFile, ParsedDocument, scalarText } from '../../yaml/documents';
import type { KustomizationPatch, Located, PostBuild, SourceRefPatch, SubstituteFromRef } from './model';
import { parseLabelSelector } from './label-selector';
import { mayWriteHelmRefs } from './helm-refs';

export function readPostBuild(parsed: ParsedDocument, file: string, node: unknown): PostBuild | null {
  const { doc } = parsed;
  const map = asMap(doc, node);
  if (!map) return null;
  const substitute = new Map<string, Located<string>>();
  for (const pair of asMap(doc, findPair(map, 'substitute')?.value)?.items ?? []) {
    const key = keyText(pair);
    if (key === null) continue;
    const value = (scalarText(doc, pair.value) ?? '').replace(/\r?\n/g, '');
    substitute.set(key, { value, file, span: nodeSpan(parsed, pair.key)! });
  }
  const substituteFrom: SubstituteFromRef[] = [];
  for (const item of asSeq(doc, findPair(map, 'substituteFrom')?.value)?.items ?? []) {
    const ref = substituteFromRef(parsed, file, item);
    if (ref) substituteFrom.push(ref);
  }
  return { substitute, substituteFrom, always: getString(doc, map, 'substituteStrategy') === 'Always' };
}

export function substituteFromRef(parsed: ParsedDocument, file: string, item: unknown): SubstituteFromRef | null {
  const { doc } = parsed;
  const kind = getString(doc, item, 'kind');
  const name = getString(doc, item, 'name');
  if ((kind !== 'ConfigMap' && kind !== 'Secret') || !name) return null;
  return { kind, name, optional: getString(doc, item, 'optional') === 'true', file, span: nodeSpan(parsed, item) ?? [0, 0] };
}

/** A `patches` entry (of a parent Kustomization or a kustomization.yaml); only what it does to postBuild and sourceRef matters here. */
export function kustomizationPatch(parsed: ParsedDocument, file: string, item: unknown): KustomizationPatch {
  const { doc } = parsed;
  const target = getNode(doc, item, 'target');
  const labelSelector = getString(doc, target, 'labelSelector');
  const patchText = getString(doc, item, 'patch') ?? '';
  const span = nodeSpan(parsed, item) ?? [0, 0];
  return {
    targetKind: getString(doc, target, 'kind'),
    targetName: getString(doc, target, 'name'),
    targetLabels: labelSelector === null ? null : (parseLabelSelector(labelSelector) ?? [{ key: '', op: 'in', values: [] }]),
    postBuild: patchText.includes('postBuild') ? postBuildOfPatch(patchText, file, span) : null,
    sourceRef: patchText.includes('sourceRef') ? sourceRefOfPatch(patchText) : null,
    ...(patchText.includes('HelmRelease') && nestsHelmRefPatch(patchText) ? { writesHelmRefs: true } : {}),
  };
}

const SOURCE_REF_FIELDS = ['kind', 'name', 'namespace'] as const;

/**
 * Whether a patch of Kustomizations writes into their `spec.patches` a patch that may change a
 * HelmRelease's references (kustomize-controller applies it to what the child builds). A text the
 * reader cannot follow (a JSON6902 list, YAML it cannot parse) counts as one that may.
 */
function nestsHelmRefPatch(patchText: string): boolean {
  for (const parsed of parseYamlFile(patchText)) {
    if (parsed.errors.length > 0 || !isMap(parsed.doc.contents)) return true;
    const { doc } = parsed;
    for (const item of asSeq(doc, getNode(doc, doc.contents, 'spec', 'patches'))?.items ?? []) {
      const nested = getString(doc, item, 'patch') ?? '';
      const kind = getString(doc, item, 'target', 'kind');
      if ((kind === null || kind === 'HelmRelease') && mayWriteHelmRefs(nested)) return true;
    }
  }
  return false;
}

/**
 * The sourceRef fields a patch text sets: a strategic-merge patch (`spec.sourceRef`) or a JSON6902
 * list (`add`/`replace` of `/spec/sourceRef` or one of its fields).
 */
function sourceRefOfPatch(patchText: string): SourceRefPatch | null {
  for (const parsed of parseYamlFile(patchText)) {
    if (parsed.errors.length > 0) continue;
    const { doc } = parsed;
    const fields: SourceRefPatch = {};
    const take = (node: unknown) => {
      for (const field of SOURCE_REF_FIELDS) {
        const value = getString(doc, node, field);
        if (value !== null) fields[field] = value;
      }
    };
    if (isMap(doc.contents)) take(getNode(doc, doc.contents, 'spec', 'sourceRef'));
    for (const op of isMap(doc.contents) ? [] : (asSeq(doc, doc.contents)?.items ?? [])) {
      const operation = getString(doc, op, 'op');
      if (operation !== 'add' && operation !== 'replace') continue;
      const path = getString(doc, op, 'path') ?? '';
      const value = getNode(doc, op, 'value');
      if (path === '/spec/sourceRef') take(value);
      const field = SOURCE_REF_FIELDS.find((name) => path === `/spec/sourceRef/${name}`);
      const text = field ? scalarText(doc, value) : null;
      if (field && text !== null) fields[field] = text;
    }
    if (Object.keys(fields).length > 0) return fields;
  }
  return null;
}

/**
 * The postBuild a patch text adds: a strategic-merge patch (`spec.postBuild`)
 * or a JSON6902 list (`op: add, path: /spec/postBuild[...]`). The patch is a
 * string inside its file, so what it defines points at the patch entry.
 */
function postBuildOfPatch(patchText: string, file: string, span: [number, number]): PostBuild | null {
  const here = <T extends { span: [number, number] }>(value: T): T => ({ ...value, span });
  for (const parsed of parseYamlFile(patchText)) {
    if (parsed.errors.length > 0) continue;
    const { doc } = parsed;
    let postBuild: PostBuild | null = null;
    if (isMap(doc.contents)) postBuild = readPostBuild(parsed, file, getNode(doc, doc.contents, 'spec', 'postBuild'));
    for (const op of postBuild ? [] : (asSeq(doc, doc.contents)?.items ?? [])) {
      const path = getString(doc, op, 'path') ?? '';
      const value = getNode(doc, op, 'value');
      if (path === '/spec/postBuild') postBuild = readPostBuild(parsed, file, value);
      else if (path === '/spec/postBuild/substitute' || path.startsWith('/spec/postBuild/substitute/')) {
        const substitute = new Map<string, Located<string>>();
        if (path === '/spec/postBuild/substitute') {
          for (const pair of asMap(doc, value)?.items ?? []) {
            const key = keyText(pair);
            if (key !== null) substitute.set(key, { value: scalarText(doc, pair.value) ?? '', file, span });
          }
        } else substitute.set(path.slice('/spec/postBuild/substitute/'.length), { value: scalarText(doc, value) ?? '', file, span });
        postBuild = { substitute, substituteFrom: [], always: false };
      } else if (path.startsWith('/spec/postBuild/substituteFrom')) {
        const items = path === '/spec/postBuild/substituteFrom' ? (asSeq(doc, value)?.items ?? []) : [value];
        const refs = items.map((item) => substituteFromRef(parsed, file, item)).filter((ref): ref is SubstituteFromRef => ref !== null);
        postBuild = { substitute: new Map(), substituteFrom: refs, always: false, appendsSubstituteFrom: path.endsWith('/-') };
      }
      if (postBuild) break;
    }
    if (postBuild) {
      for (const [key, located] of postBuild.substitute) postBuild.substitute.set(key, here(located));
      postBuild.substituteFrom = postBuild.substituteFrom.map(here);
      return postBuild;
    }
  }
  return null;
}
