// A kustomization file as kustomize v5.5 loads it (krusty's KustTarget.Load):
// the first YAML document, decoded strictly into the Kustomization struct,
// deprecated fields folded in (`bases` into `resources`, `env` into `envs`),
// refused when empty or of another kind or apiVersion. Only what decides the
// resources' ids and metadata is kept; fields that may also change metadata
// but are not modelled are named in `unmodelled`.
import { parseAllDocuments } from 'yaml';
import { dirnameOf } from '../base/paths';
import { documentBoundaries } from '../yaml/documents';
import { fromYaml, isNull, KNode } from './knode';
import { readSimpleYaml } from './simple-yaml';
import type { KustomizeFiles } from './files';
import { kustomizationFilesIn } from './files';
import { fail, Span, Written } from './types';
import { boolMapOf, boolOf, checkShape, fieldNode, Shape, stringMapOf, stringOf } from './yaml-values';

export interface Selector {
  group: string;
  version: string;
  kind: string;
  name: string;
  namespace: string;
  labelSelector: string;
  annotationSelector: string;
}

export interface PatchEntry {
  field: 'patches' | 'patchesStrategicMerge' | 'patchesJson6902';
  /** The item's span in the kustomization file. */
  span: Span;
  path: Written | null;
  /** Inline patch text, as written (kustomize trims it). */
  inline: Written | null;
  target: Selector | null;
  options: Map<string, boolean>;
}

export interface GeneratorOptions {
  labels: Map<string, string>;
  annotations: Map<string, string>;
  disableNameSuffixHash: boolean;
  immutable: boolean;
}

export interface GeneratorSpec {
  kind: 'ConfigMap' | 'Secret';
  span: Span;
  name: string;
  namespace: string;
  behavior: string;
  literals: Written[];
  files: Written[];
  envs: Written[];
  /** The generator's own options with the kustomization's generatorOptions merged in. */
  options: GeneratorOptions;
  /** A Secret's `type` ('' for Opaque). */
  type: string;
}

export interface Kustomization {
  file: string;
  dir: string;
  kind: 'Kustomization' | 'Component';
  resources: Written[];
  components: Written[];
  namePrefix: string;
  nameSuffix: string;
  namespace: string;
  commonLabels: Map<string, string>;
  /** The `pairs` of each `labels:` entry, in order. */
  labels: Array<Map<string, string>>;
  commonAnnotations: Map<string, string>;
  patchesStrategicMerge: PatchEntry[];
  patches: PatchEntry[];
  patchesJson6902: PatchEntry[];
  generators: GeneratorSpec[];
  /** The `replacements` entries as written (inline, or `path:` to a file of them). */
  replacements: KNode[];
  /** Fields present that kustomize applies and the model does not (they may change ids or metadata). */
  unmodelled: string[];
}

const SELECTOR: Shape = { fields: { group: 'string', version: 'string', kind: 'string', name: 'string', namespace: 'string', labelSelector: 'string', annotationSelector: 'string' } };
const PATCH: Shape = { fields: { path: 'string', patch: 'string', target: SELECTOR, options: 'boolMap' } };
const OPTIONS: Shape = { fields: { labels: 'stringMap', annotations: 'stringMap', disableNameSuffixHash: 'bool', immutable: 'bool' } };
const GENERATOR_FIELDS = { name: 'string', namespace: 'string', behavior: 'string', literals: 'strings', files: 'strings', envs: 'strings', env: 'string', options: OPTIONS } as const;
const META: Shape = { fields: { name: 'string', namespace: 'string', labels: 'stringMap', annotations: 'stringMap' } };

/** The Kustomization struct of kustomize v5.5 (api/types/kustomization.go); `any` where only non-metadata fields live. */
const KUSTOMIZATION: Shape = {
  fields: {
    apiVersion: 'string',
    kind: 'string',
    metadata: META,
    openapi: 'stringMap',
    namePrefix: 'string',
    nameSuffix: 'string',
    namespace: 'string',
    commonLabels: 'stringMap',
    labels: { list: { fields: { pairs: 'stringMap', includeSelectors: 'bool', includeTemplates: 'bool', fields: 'any' } } },
    commonAnnotations: 'stringMap',
    patchesStrategicMerge: 'strings',
    patchesJson6902: { list: PATCH },
    patches: { list: PATCH },
    images: 'any',
    imageTags: 'any',
    replacements: 'any',
    replicas: 'any',
    vars: 'any',
    sortOptions: 'any',
    resources: 'strings',
    components: 'strings',
    crds: 'strings',
    bases: 'strings',
    configMapGenerator: { list: { fields: GENERATOR_FIELDS } },
    secretGenerator: { list: { fields: { ...GENERATOR_FIELDS, type: 'string' } } },
    helmGlobals: 'any',
    helmCharts: 'any',
    helmChartInflationGenerator: 'any',
    generatorOptions: OPTIONS,
    configurations: 'strings',
    generators: 'strings',
    transformers: 'strings',
    validators: 'strings',
    buildMetadata: 'strings',
  },
};

/** Fields that can rename or relabel what the folder builds and that the model leaves out. */
const UNMODELLED = ['vars', 'generators', 'transformers', 'validators', 'helmCharts', 'helmChartInflationGenerator', 'configurations', 'crds'];

/** Whether a chunk holds nothing but blank lines and comments. */
function onlyComments(text: string, from: number, to: number): boolean {
  return text
    .slice(from, to)
    .split('\n')
    .every((line) => /^\s*(#.*)?$/.test(line));
}

/**
 * The first document of the file (go-yaml reads no further; comments before
 * the first `---` open none), through the fast reader where it can, else the
 * `yaml` package.
 */
function firstDocument(text: string): { root: KNode | null; error: { message: string; span: Span } | null } {
  const starts = documentBoundaries(text);
  let first = 0;
  while (first < starts.length - 1 && !text.startsWith('---', starts[first]) && onlyComments(text, starts[first], starts[first + 1])) first++;
  const from = starts[first];
  const marker = text.startsWith('---', from) ? /^---[ \t]*(#.*)?(\r?\n|$)/.exec(text.slice(from, from + 200)) : null;
  if (!text.startsWith('---', from) || marker) {
    const fast = readSimpleYaml(text, from + (marker?.[0].length ?? 0), starts[first + 1] ?? text.length);
    if (fast !== undefined) return { root: fast, error: null };
  }
  const docs = parseAllDocuments(text, { prettyErrors: false, strict: false, uniqueKeys: false });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return { root: null, error: null };
  const error = doc.errors[0];
  if (error) return { root: null, error: { message: error.message.split('\n')[0], span: [error.pos[0], error.pos[1]] } };
  return { root: doc.contents === null ? null : fromYaml(doc, doc.contents, 0), error: null };
}

/** Loads the kustomization file of a folder; throws a BuildError where kustomize refuses it. */
/**
 * `asFlux`: as kustomize-controller rewrites the file before the build (it
 * decodes it into kustomize's Go struct without strictness and encodes it
 * again): unknown fields are dropped, and an empty file is an empty
 * Kustomization (Flux writes its apiVersion and kind).
 */
export function loadKustomization(files: KustomizeFiles, dir: string, from: { file: string; span: Span | null }, asFlux = false): Kustomization {
  const candidates = kustomizationFilesIn(files, dir);
  if (candidates.length === 0) {
    fail('no-kustomization', `unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${dir}'`, from.file, from.span);
  }
  if (candidates.length > 1) fail('multiple-kustomization-files', `Found multiple kustomization files under: ${dir}`, candidates[0], null);
  const file = candidates[0];
  const parsed = firstDocument(files.read(file) ?? '');
  if (parsed.error) fail('invalid-kustomization', `invalid Kustomization: yaml: ${parsed.error.message}`, file, parsed.error.span);
  return readKustomization(file, parsed.root, asFlux);
}

function readKustomization(file: string, root: KNode | null, asFlux: boolean): Kustomization {
  if (root !== null && !isNull(root) && root.kind !== 'map') {
    fail('invalid-kustomization', `invalid Kustomization: json: cannot unmarshal ${root.kind === 'seq' ? 'array' : 'string'} into Go value of type types.Kustomization`, file, root.span);
  }
  const shapeError = checkShape(root, KUSTOMIZATION, 'Kustomization', asFlux);
  if (shapeError) fail('invalid-kustomization', `invalid Kustomization: ${shapeError.message}`, file, shapeError.node.span);
  if (asFlux && (!root || isNull(root))) root = { kind: 'map', entries: [], span: [0, 0] };
  if (!root || root.kind !== 'map' || (!asFlux && isEmpty(root))) fail('empty-kustomization', 'kustomization.yaml is empty', file, root ? root.span : null);
  const field = (name: string) => fieldNode(root, name);
  const str = (name: string) => stringOf(field(name));
  const written = (node: KNode | null): Written[] => (node?.kind === 'seq' ? node.items : []).map((item) => ({ value: stringOf(item), span: item.span }));
  const items = (node: KNode | null): KNode[] => (node?.kind === 'seq' ? node.items : []);
  const kind = str('kind') || 'Kustomization';
  const apiVersion = str('apiVersion');
  if (kind !== 'Kustomization' && kind !== 'Component')
    fail('invalid-kustomization', `Failed to read kustomization file: kind should be Kustomization or Component`, file, field('kind')?.span ?? null);
  const requiredVersion = kind === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1';
  if (apiVersion !== '' && apiVersion !== requiredVersion)
    fail('invalid-kustomization', `Failed to read kustomization file: apiVersion for ${kind} should be ${requiredVersion}`, file, field('apiVersion')?.span ?? null);

  const patchEntries = (name: PatchEntry['field']): PatchEntry[] =>
    items(field(name)).map((item) => {
      if (name === 'patchesStrategicMerge') return { field: name, span: item.span, path: null, inline: { value: stringOf(item), span: item.span }, target: null, options: new Map() };
      const path = fieldNode(item, 'path');
      const patch = fieldNode(item, 'patch');
      const target = fieldNode(item, 'target');
      return {
        field: name,
        span: item.span,
        path: path && stringOf(path) !== '' ? { value: stringOf(path), span: path.span } : null,
        inline: patch && stringOf(patch).trim() !== '' ? { value: stringOf(patch), span: patch.span } : null,
        target: target?.kind === 'map' ? selectorOf(target) : null,
        options: boolMapOf(fieldNode(item, 'options')),
      };
    });

  const globalOptions = optionsOf(field('generatorOptions'));
  const generators: GeneratorSpec[] = [];
  for (const [name, generatorKind] of [
    ['configMapGenerator', 'ConfigMap'],
    ['secretGenerator', 'Secret'],
  ] as const) {
    for (const item of items(field(name))) {
      const env = fieldNode(item, 'env');
      generators.push({
        kind: generatorKind,
        span: item.span,
        name: stringOf(fieldNode(item, 'name')),
        namespace: stringOf(fieldNode(item, 'namespace')),
        behavior: stringOf(fieldNode(item, 'behavior')),
        literals: written(fieldNode(item, 'literals')),
        files: written(fieldNode(item, 'files')),
        envs: [...written(fieldNode(item, 'envs')), ...(env && stringOf(env) !== '' ? [{ value: stringOf(env), span: env.span }] : [])],
        options: mergeOptions(optionsOf(fieldNode(item, 'options')), globalOptions),
        type: stringOf(fieldNode(item, 'type')),
      });
    }
  }
  return {
    file,
    dir: dirnameOf(file),
    kind,
    resources: [...written(field('resources')), ...written(field('bases'))],
    components: written(field('components')),
    namePrefix: str('namePrefix'),
    nameSuffix: str('nameSuffix'),
    namespace: str('namespace'),
    commonLabels: stringMapOf(field('commonLabels')),
    labels: items(field('labels')).map((item) => stringMapOf(fieldNode(item, 'pairs'))),
    commonAnnotations: stringMapOf(field('commonAnnotations')),
    patchesStrategicMerge: patchEntries('patchesStrategicMerge'),
    patches: patchEntries('patches'),
    patchesJson6902: patchEntries('patchesJson6902'),
    generators,
    replacements: items(field('replacements')),
    unmodelled: UNMODELLED.filter((name) => !isNull(field(name))),
  };
}

/** A `target` or replacement `select`: the fields of a Selector. */
export function selectorOf(node: KNode | null): Selector {
  const get = (name: string) => stringOf(fieldNode(node, name));
  return {
    group: get('group'),
    version: get('version'),
    kind: get('kind'),
    name: get('name'),
    namespace: get('namespace'),
    labelSelector: get('labelSelector'),
    annotationSelector: get('annotationSelector'),
  };
}

function optionsOf(node: KNode | null): GeneratorOptions | null {
  if (node?.kind !== 'map') return null;
  return {
    labels: stringMapOf(fieldNode(node, 'labels')),
    annotations: stringMapOf(fieldNode(node, 'annotations')),
    disableNameSuffixHash: boolOf(fieldNode(node, 'disableNameSuffixHash')),
    immutable: boolOf(fieldNode(node, 'immutable')),
  };
}

/** types.MergeGlobalOptionsIntoLocal: the generator's own keys win; a global `true` wins over a local `false`. */
function mergeOptions(local: GeneratorOptions | null, global: GeneratorOptions | null): GeneratorOptions {
  const own = local ?? { labels: new Map(), annotations: new Map(), disableNameSuffixHash: false, immutable: false };
  if (!global) return own;
  return {
    labels: new Map<string, string>([...global.labels, ...own.labels]),
    annotations: new Map<string, string>([...global.annotations, ...own.annotations]),
    disableNameSuffixHash: own.disableNameSuffixHash || global.disableNameSuffixHash,
    immutable: own.immutable || global.immutable,
  };
}

/**
 * CheckEmpty: nothing but apiVersion and kind decoded. A field written with a
 * null value decodes to nothing; `bases: []` and `imageTags: []` are folded
 * into nil slices first.
 */
function isEmpty(root: KNode & { kind: 'map' }): boolean {
  return root.entries.every(({ key, value }) => {
    const lower = key.toLowerCase();
    if (lower === 'apiversion' || lower === 'kind' || isNull(value)) return true;
    return (lower === 'bases' || lower === 'imagetags') && value.kind === 'seq' && value.items.length === 0;
  });
}
