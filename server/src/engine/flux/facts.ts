// What one file contributes to the repository graph: Flux Kustomizations
// (path, postBuild, patches, components, lifecycle fields), kustomize
// `kustomization.yaml` references, the ConfigMaps and Secrets that
// `substituteFrom` may name, and ServiceAccounts. A text prefilter keeps
// most files from being parsed at all.
import { basenameOf, dirnameOf, joinRepoPath } from '../paths';
import { podSpecOf } from '../pods';
import { parseLabelSelector, Requirement } from './label-selector';

import {
  asMap,
  asSeq,
  Document,
  findPair,
  getNode,
  getString,
  isMap,
  isScalar,
  keyText,
  nodeSpan,
  parseYamlFile,
  ParsedDocument,
  scalarText,
  YAMLMap,
} from '../yaml-docs';

export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(basenameOf(path));
}

export const FLUX_KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io/';

/** A value and where it is written, for hover and go-to-definition. */
export interface Located<T> {
  value: T;
  file: string;
  span: [number, number];
}

export interface SubstituteFromRef {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  optional: boolean;
}

export interface PostBuild {
  substitute: Map<string, Located<string>>;
  substituteFrom: SubstituteFromRef[];
  /** `substituteStrategy: Always` substitutes even when no variable resolves. */
  always: boolean;
}

export interface KustomizationPatch {
  /** Target selectors (kind, name, labelSelector as `k=v` pairs). */
  targetKind: string | null;
  targetName: string | null;
  /** Parsed `labelSelector`; null without one (a malformed selector matches nothing). */
  targetLabels: Requirement[] | null;
  /** The postBuild the patch adds, when it adds one. */
  postBuild: PostBuild | null;
}

export interface FluxKustomization {
  file: string;
  name: string;
  namespace: string | null;
  labels: Record<string, string>;
  /** Offset of the document's `kind` (where hovers point), and its 0-based line. */
  span: [number, number];
  line: number;
  /** spec.path normalized (repository-relative), null when it leaves the repository. */
  path: string | null;
  pathAsWritten: string;
  pathSpan: [number, number] | null;
  components: Array<{ path: string | null; written: string; span: [number, number] | null }>;
  postBuild: PostBuild | null;
  patches: KustomizationPatch[];
  interval: string | null;
  timeout: string | null;
  wait: boolean;
  force: boolean;
  prune: boolean;
  targetNamespace: string | null;
  /** `spec.sourceRef`: only a source that is this repository can be followed. */
  sourceKind: string | null;
  sourceName: string | null;
}

export interface KustomizeConfig {
  file: string;
  /** Repository-relative, null for references that leave the repository; remote URLs are dropped. */
  resources: Array<{ path: string | null; written: string; span: [number, number] | null }>;
  components: Array<{ path: string | null; written: string; span: [number, number] | null }>;
  /** Files listed under patches, patchesStrategicMerge or patchesJson6902. */
  patches: string[];
  /** Inline `patches` that target Flux Kustomizations (they can add postBuild to them). */
  kustomizationPatches: KustomizationPatch[];
  namespace: string | null;
}

export interface VariableSource {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string | null;
  file: string;
  /** Keys of `data` (Secret values base64-decoded) and `stringData`. */
  entries: Map<string, Located<string>>;
}

export interface ServiceAccountDecl {
  name: string;
  namespace: string | null;
  file: string;
}

export interface FileFacts {
  kustomizations: FluxKustomization[];
  kustomize: KustomizeConfig | null;
  variableSources: VariableSource[];
  serviceAccounts: ServiceAccountDecl[];
  /** ServiceAccounts that pods in this file run as. */
  serviceAccountUses: ServiceAccountDecl[];
}

const EMPTY: FileFacts = { kustomizations: [], kustomize: null, variableSources: [], serviceAccounts: [], serviceAccountUses: [] };

/** Cheap test: can this text hold anything the graph needs? */
export function mayHoldFacts(path: string, text: string): boolean {
  return (
    isKustomizationFile(path) ||
    text.includes(FLUX_KUSTOMIZE_GROUP) ||
    /kind:\s*["']?(ConfigMap|Secret|ServiceAccount|ExternalSecret)\b/.test(text) ||
    /serviceAccount(Name)?\s*:/.test(text)
  );
}

export function extractFacts(path: string, text: string, documents?: ParsedDocument[]): FileFacts {
  if (!mayHoldFacts(path, text)) return EMPTY;
  const facts: FileFacts = { kustomizations: [], kustomize: null, variableSources: [], serviceAccounts: [], serviceAccountUses: [] };
  for (const parsed of documents ?? parseYamlFile(text)) {
    if (parsed.errors.length > 0) continue;
    const { doc } = parsed;
    const root = asMap(doc, doc.contents);
    if (!root) continue;
    const kind = getString(doc, root, 'kind');
    const apiVersion = getString(doc, root, 'apiVersion') ?? '';
    if (kind === 'Kustomization' && apiVersion.startsWith(FLUX_KUSTOMIZE_GROUP)) {
      facts.kustomizations.push(fluxKustomization(path, parsed, root));
    } else if (isKustomizationFile(path) && (kind === 'Kustomization' || kind === 'Component' || kind === null)) {
      facts.kustomize = kustomizeConfig(path, parsed, root);
    } else if (kind === 'ExternalSecret' && apiVersion.startsWith('external-secrets.io/')) {
      const source = externalSecretSource(path, parsed, root);
      if (source) facts.variableSources.push(source);
    } else if ((kind === 'ConfigMap' && apiVersion === 'v1') || (kind === 'Secret' && apiVersion === 'v1')) {
      facts.variableSources.push(variableSource(path, parsed, root, kind));
    } else if (kind === 'ServiceAccount' && apiVersion === 'v1') {
      const name = getString(doc, root, 'metadata', 'name');
      if (name) facts.serviceAccounts.push({ name, namespace: getString(doc, root, 'metadata', 'namespace'), file: path });
    }
    const podSpec = podSpecOf(doc);
    const account = podSpec ? getString(doc, podSpec, 'serviceAccountName') ?? getString(doc, podSpec, 'serviceAccount') : null;
    if (account) facts.serviceAccountUses.push({ name: account, namespace: getString(doc, root, 'metadata', 'namespace'), file: path });
  }
  return facts;
}

function stringMap(doc: Document, node: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of asMap(doc, node)?.items ?? []) {
    const key = keyText(pair);
    const value = scalarText(doc, pair.value);
    if (key !== null && value !== null) out[key] = value;
  }
  return out;
}

function pathRef(parsed: ParsedDocument, baseDir: string, node: unknown) {
  const written = scalarText(parsed.doc, node) ?? '';
  return { path: joinRepoPath(baseDir, written), written, span: nodeSpan(parsed, node) };
}

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
    const kind = getString(doc, item, 'kind');
    const name = getString(doc, item, 'name');
    if ((kind === 'ConfigMap' || kind === 'Secret') && name) {
      substituteFrom.push({ kind, name, optional: getString(doc, item, 'optional') === 'true' });
    }
  }
  return { substitute, substituteFrom, always: getString(doc, map, 'substituteStrategy') === 'Always' };
}

function fluxKustomization(file: string, parsed: ParsedDocument, root: YAMLMap): FluxKustomization {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const pathNode = getNode(doc, spec, 'path');
  const written = scalarText(doc, pathNode) ?? '';
  const path = joinRepoPath('', written);
  const components = (asSeq(doc, findPair(spec, 'components')?.value)?.items ?? []).map((item) => pathRef(parsed, path ?? '', item));
  return {
    file,
    name: getString(doc, root, 'metadata', 'name') ?? '',
    namespace: getString(doc, root, 'metadata', 'namespace'),
    labels: stringMap(doc, getNode(doc, root, 'metadata', 'labels')),
    span: nodeSpan(parsed, findPair(root, 'kind')!.key)!,
    line: lineOf(parsed.source, nodeSpan(parsed, findPair(root, 'kind')!.key)![0]),
    path,
    pathAsWritten: written,
    pathSpan: pathNode ? nodeSpan(parsed, pathNode) : null,
    components,
    postBuild: readPostBuild(parsed, file, findPair(spec, 'postBuild')?.value),
    patches: (asSeq(doc, findPair(spec, 'patches')?.value)?.items ?? []).map((item) => kustomizationPatch(parsed, file, item)),
    interval: getString(doc, spec, 'interval'),
    timeout: getString(doc, spec, 'timeout'),
    wait: getString(doc, spec, 'wait') === 'true',
    force: getString(doc, spec, 'force') === 'true',
    prune: getString(doc, spec, 'prune') === 'true',
    targetNamespace: getString(doc, spec, 'targetNamespace'),
    sourceKind: getString(doc, spec, 'sourceRef', 'kind'),
    sourceName: getString(doc, spec, 'sourceRef', 'name'),
  };
}

/** A `spec.patches` entry of a parent Kustomization; only what it does to children's postBuild matters here. */
function kustomizationPatch(parsed: ParsedDocument, file: string, item: unknown): KustomizationPatch {
  const { doc } = parsed;
  const target = getNode(doc, item, 'target');
  const labelSelector = getString(doc, target, 'labelSelector');
  const patchText = getString(doc, item, 'patch') ?? '';
  return {
    targetKind: getString(doc, target, 'kind'),
    targetName: getString(doc, target, 'name'),
    targetLabels: labelSelector === null ? null : parseLabelSelector(labelSelector) ?? [{ key: '', op: 'in', values: [] }],
    postBuild: patchText.includes('postBuild') ? postBuildOfPatch(patchText, file) : null,
  };
}


/**
 * The postBuild a patch text adds: a strategic-merge patch (`spec.postBuild`)
 * or a JSON6902 list (`op: add, path: /spec/postBuild[...]`). Positions point
 * into the parent file only approximately (the patch is a string in it), so
 * definitions found here carry the patch's file.
 */
function postBuildOfPatch(patchText: string, file: string): PostBuild | null {
  for (const parsed of parseYamlFile(patchText)) {
    if (parsed.errors.length > 0) continue;
    const { doc } = parsed;
    if (isMap(doc.contents)) {
      const postBuild = readPostBuild(parsed, file, getNode(doc, doc.contents, 'spec', 'postBuild'));
      if (postBuild) return withoutSpans(postBuild);
    }
    for (const op of asSeq(doc, doc.contents)?.items ?? []) {
      const path = getString(doc, op, 'path') ?? '';
      if (path === '/spec/postBuild') {
        const postBuild = readPostBuild(parsed, file, getNode(doc, op, 'value'));
        if (postBuild) return withoutSpans(postBuild);
      }
      if (path === '/spec/postBuild/substitute' || path.startsWith('/spec/postBuild/substitute/')) {
        const wrapped = new Map<string, Located<string>>();
        const value = getNode(doc, op, 'value');
        if (path === '/spec/postBuild/substitute') {
          for (const pair of asMap(doc, value)?.items ?? []) {
            const key = keyText(pair);
            if (key !== null) wrapped.set(key, { value: scalarText(doc, pair.value) ?? '', file, span: [0, 0] });
          }
        } else wrapped.set(path.slice('/spec/postBuild/substitute/'.length), { value: scalarText(doc, value) ?? '', file, span: [0, 0] });
        return { substitute: wrapped, substituteFrom: [], always: false };
      }
    }
  }
  return null;
}

function withoutSpans(postBuild: PostBuild): PostBuild {
  for (const [key, located] of postBuild.substitute) postBuild.substitute.set(key, { ...located, span: [0, 0] });
  return postBuild;
}

function kustomizeConfig(file: string, parsed: ParsedDocument, root: YAMLMap): KustomizeConfig {
  const { doc } = parsed;
  const dir = dirnameOf(file);
  const refs = (key: string) =>
    (asSeq(doc, findPair(root, key)?.value)?.items ?? [])
      .filter((item) => isScalar(item) && typeof item.value === 'string' && !/^[a-z]+:\/\/|^github\.com\/|^git@/.test(item.value))
      .map((item) => pathRef(parsed, dir, item));
  const kustomizationPatches = (asSeq(doc, findPair(root, 'patches')?.value)?.items ?? [])
    .filter((item) => getString(doc, item, 'patch') !== null)
    .map((item) => kustomizationPatch(parsed, file, item))
    .filter((patch) => patch.postBuild !== null && (patch.targetKind === null || patch.targetKind === 'Kustomization'));
  return { file, resources: refs('resources'), components: refs('components'), patches: patchFilesOf(parsed, dir), kustomizationPatches, namespace: getString(doc, root, 'namespace') };
}

/**
 * The Secret an ExternalSecret creates (`spec.target.name`, else its own
 * name), with the keys it will hold: `data[].secretKey` and the keys of
 * `target.template.data`. Their values live outside the repository. With
 * `dataFrom` and no template the keys are unknowable, so it declares nothing
 * (the source stays "not in the repository").
 */
function externalSecretSource(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource | null {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const template = asMap(doc, getNode(doc, spec, 'target', 'template', 'data'));
  // A template decides the Secret's keys; without one, `dataFrom` makes them unknowable here.
  if (!spec || (findPair(spec, 'dataFrom') && !template)) return null;
  const entries = new Map<string, Located<string>>();
  for (const item of asSeq(doc, findPair(spec, 'data')?.value)?.items ?? []) {
    const key = getNode(doc, item, 'secretKey');
    const name = scalarText(doc, key);
    if (name) entries.set(name, { value: '(from the external secret store)', file, span: nodeSpan(parsed, key)! });
  }
  for (const pair of template?.items ?? []) {
    const name = keyText(pair);
    if (name) entries.set(name, { value: '(templated by the ExternalSecret)', file, span: nodeSpan(parsed, pair.key)! });
  }
  const name = getString(doc, spec, 'target', 'name') ?? getString(doc, root, 'metadata', 'name');
  return name ? { kind: 'Secret', name, namespace: getString(doc, root, 'metadata', 'namespace'), file, entries } : null;
}

const PATCH_KEYS = ['patches', 'patchesStrategicMerge', 'patchesJson6902'];

/** The files a kustomization lists as patches (inline patches have none). */
function patchFilesOf(parsed: ParsedDocument, dir: string): string[] {
  const { doc } = parsed;
  const root = asMap(doc, doc.contents);
  const files: string[] = [];
  for (const key of PATCH_KEYS) {
    for (const item of asSeq(doc, findPair(root, key)?.value)?.items ?? []) {
      const written = isScalar(item) ? scalarText(doc, item) : getString(doc, item, 'path');
      const resolved = written === null ? null : joinRepoPath(dir, written);
      if (resolved !== null) files.push(resolved);
    }
  }
  return files;
}

function variableSource(file: string, parsed: ParsedDocument, root: YAMLMap, kind: 'ConfigMap' | 'Secret'): VariableSource {
  const { doc } = parsed;
  const entries = new Map<string, Located<string>>();
  const read = (key: string, decode: boolean) => {
    for (const pair of asMap(doc, findPair(root, key)?.value)?.items ?? []) {
      const name = keyText(pair);
      if (name === null) continue;
      const raw = scalarText(doc, pair.value) ?? '';
      entries.set(name, { value: (decode ? decodeBase64(raw) : raw).replace(/\r?\n/g, ''), file, span: nodeSpan(parsed, pair.key)! });
    }
  };
  read('data', kind === 'Secret');
  if (kind === 'Secret') read('stringData', false);
  return { kind, name: getString(doc, root, 'metadata', 'name') ?? '', namespace: getString(doc, root, 'metadata', 'namespace'), file, entries };
}

function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function decodeBase64(text: string): string {
  try {
    return typeof atob === 'function' ? new TextDecoder().decode(Uint8Array.from(atob(text.replace(/\s/g, '')), (c) => c.charCodeAt(0))) : text;
  } catch {
    return text; // SOPS-encrypted or not base64: show it as written
  }
}

