// kustomize's patches, read from a kustomization file and its patch files
// alone, and what they do to a resource's id and metadata.
//
// A `patches:` entry (inline or `path:`) is a strategic-merge patch when its
// text is one resource (kind and metadata.name), a JSON 6902 patch when it is
// a list of operations (JSON when it starts with `[`, else YAML read as
// YAML 1.1); `patchesStrategicMerge` entries are inline text or a file of one
// or more patches, `patchesJson6902` entries JSON 6902 only. Of a patch, the
// model keeps what it does to apiVersion, kind, metadata (name, namespace,
// labels, annotations) and, for a generated ConfigMap or Secret, its data
// (which its name hash covers); operations elsewhere in the document are not
// applied.

import { field, isNull, KNode, textOf } from './knode';
import { readTrees } from './tree-reader';
import { KustomizeFiles, resolveIn, unreadable } from './files';
import type { Kustomization, PatchEntry } from './kustomization';
import { Res, ResId, storePreviousId } from './resource';
import { compileSelector, CompiledSelector } from './selector';
import { fail } from './types';
import { Json, yamlToJson } from './yaml-values';

/** What a patch does to a map (labels, annotations, data): `null` entries delete a key. */
export type MapEdit = { kind: 'delete' } | { kind: 'merge'; replace: boolean; entries: Map<string, string | null> };

export interface StrategicMergeDoc {
  /** The id written in the patch: it finds the target when the patch has none. */
  id: ResId;
  /** `$patch: delete` at the top: the target leaves the build. */
  deletes: boolean;
  /** `$patch: replace` at the top: the target becomes the patch. */
  replaces: boolean;
  labels: MapEdit | null;
  annotations: MapEdit | null;
  data: MapEdit | null;
}

export interface JsonOperation {
  op: string;
  path: string | null;
  from: string | null;
  value: Json;
}

interface PatchBase {
  entry: PatchEntry;
  /** The kustomization file that lists it. */
  file: string;
  /** Where the patch text lives: its own file, or the kustomization file for an inline patch. */
  textFile: string;
  /** The patch text (what it may write: the fields it names). */
  text: string;
  target: CompiledSelector | null;
  allowNameChange: boolean;
  allowKindChange: boolean;
}

export type Patch = (PatchBase & { type: 'strategic-merge'; doc: StrategicMergeDoc }) | (PatchBase & { type: 'json6902'; operations: JsonOperation[] });

/** The patches of a kustomization, in the order kustomize runs them; throws a BuildError where kustomize fails to load one. */
export function loadPatches(files: KustomizeFiles, k: Kustomization): { strategicMerge: Patch[]; patches: Patch[]; json6902: Patch[] } {
  return {
    strategicMerge: k.patchesStrategicMerge.flatMap((entry) => loadStrategicMergeEntry(files, k, entry)),
    patches: k.patches.flatMap((entry) => loadPatch(files, k, entry)),
    json6902: k.patchesJson6902.flatMap((entry) => loadPatch(files, k, entry)),
  };
}

function base(k: Kustomization, entry: PatchEntry, textFile: string, text: string): PatchBase {
  let target: CompiledSelector | null = null;
  if (entry.target) {
    const compiled = compileSelector(entry.target);
    if (typeof compiled === 'string') fail('invalid-patch', compiled, k.file, entry.span);
    target = compiled;
  }
  return { entry, file: k.file, textFile, text, target, allowNameChange: entry.options.get('allowNameChange') === true, allowKindChange: entry.options.get('allowKindChange') === true };
}

/** A patchesStrategicMerge entry: inline patch text when it parses as resources, else a file of patches. */
function loadStrategicMergeEntry(files: KustomizeFiles, k: Kustomization, entry: PatchEntry): Patch[] {
  const written = entry.inline?.value ?? '';
  let docs = strategicMergeDocs(written);
  let textFile = k.file;
  let patchText = written;
  if (docs === null || docs.length === 0) {
    const path = resolveIn(k.dir, written);
    const text = path === null ? undefined : files.read(path);
    if (path === null || text === undefined)
      fail('invalid-patch', `trouble reading the patch file ${written}: ${path === null ? unreadable(written, path) : 'no such file or directory'}`, k.file, entry.span, path);
    docs = strategicMergeDocs(text);
    textFile = path;
    patchText = text;
    if (docs === null) fail('invalid-patch', `the patch file ${written} holds no valid strategic-merge patch`, k.file, entry.span);
  }
  if (docs.length === 0) fail('invalid-patch', `patch appears to be empty; files=[${written}]`, k.file, entry.span);
  return docs.map((doc) => ({ ...base(k, entry, textFile, patchText), type: 'strategic-merge', doc }));
}

/** A `patches` or `patchesJson6902` entry: one JSON 6902 patch, or one strategic-merge patch per document. */
function loadPatch(files: KustomizeFiles, k: Kustomization, entry: PatchEntry): Patch[] {
  if (!entry.inline && !entry.path) fail('invalid-patch', 'must specify one of patch and path', k.file, entry.span);
  if (entry.inline && entry.path) fail('invalid-patch', "patch and path can't be set at the same time", k.file, entry.span);
  let text = entry.inline?.value ?? '';
  let textFile = k.file;
  if (entry.path) {
    const path = resolveIn(k.dir, entry.path.value);
    const read = path === null ? undefined : files.read(path);
    if (path === null || read === undefined) fail('invalid-patch', unreadable(entry.path.value, path), k.file, entry.path.span);
    text = read;
    textFile = path;
  }
  text = text.trim();
  const json = jsonOperations(text);
  if (entry.field === 'patchesJson6902') {
    if (!entry.target) fail('invalid-patch', 'must specify the target field in patchesJson6902', k.file, entry.span);
    if (json === null) fail('invalid-patch', `unable to decode the JSON 6902 patch of ${entry.path?.value ?? 'the inline patch'}`, k.file, entry.span);
    return [{ ...base(k, entry, textFile, text), type: 'json6902', operations: json }];
  }
  const docs = strategicMergeDocs(text);
  const strategic = docs !== null && docs.length > 0 ? docs : null;
  if ((strategic !== null && json !== null) || text === '[]') fail('invalid-patch', `illegally qualifies as both an SM and JSON patch: [${text.slice(0, 80)}]`, k.file, entry.span);
  if (strategic === null && json === null) fail('invalid-patch', `unable to parse SM or JSON patch from [${text.slice(0, 80)}]`, k.file, entry.span);
  if (json !== null && !entry.target) fail('invalid-patch', `must specify a target for patch ${text.slice(0, 80)}`, k.file, entry.span);
  if (json !== null) return [{ ...base(k, entry, textFile, text), type: 'json6902', operations: json }];
  return strategic!.map((doc) => ({ ...base(k, entry, textFile, text), type: 'strategic-merge', doc }));
}

/** The strategic-merge patches of a text (empty documents skipped); null when it is not resources. */
function strategicMergeDocs(text: string): StrategicMergeDoc[] | null {
  const trees = readTrees(text);
  if (trees === null) return null;
  const out: StrategicMergeDoc[] = [];
  for (const root of trees) {
    if (root.kind !== 'map') return null;
    const metadata = field(root, 'metadata');
    const id: ResId = { apiVersion: textOf(field(root, 'apiVersion')), kind: textOf(field(root, 'kind')), name: textOf(field(metadata, 'name')), namespace: textOf(field(metadata, 'namespace')) };
    if (id.kind === '' || id.name === '') return null;
    const directive = textOf(field(root, '$patch'));
    out.push({
      id,
      deletes: directive === 'delete',
      replaces: directive === 'replace',
      labels: mapEdit(field(metadata, 'labels')),
      annotations: mapEdit(field(metadata, 'annotations')),
      data: mapEdit(field(root, 'data')),
    });
  }
  return out;
}

/** What a patch's map (or its null) does; null when the patch does not write the map. */
function mapEdit(value: KNode | null): MapEdit | null {
  if (value === null) return null;
  if (value.kind !== 'map') return isNull(value) ? { kind: 'delete' } : null;
  const entries = new Map<string, string | null>();
  let replace = false;
  for (const entry of value.entries) {
    if (entry.key === '$patch') {
      const directive = textOf(entry.value);
      if (directive === 'delete') return { kind: 'delete' };
      replace = directive === 'replace';
      continue;
    }
    entries.set(entry.key, isNull(entry.value) ? null : textOf(entry.value));
  }
  return { kind: 'merge', replace, entries };
}

/** A JSON 6902 patch's operations; null when the text is none (jsonpatch.DecodePatch). */
function jsonOperations(text: string): JsonOperation[] | null {
  if (text === '') return null;
  let value: unknown;
  if (text.startsWith('[')) {
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
  } else {
    // sigs.k8s.io/yaml reads the first document only
    const trees = readTrees(text.split(/^---[ \t]*$/m)[0]);
    if (trees === null || trees.length === 0) return null;
    value = yamlToJson(trees[0]);
  }
  if (!Array.isArray(value) || !value.every((op) => typeof op === 'object' && op !== null && !Array.isArray(op))) return null;
  return value.map((op: Record<string, Json>) => ({
    op: typeof op.op === 'string' ? op.op : '',
    path: typeof op.path === 'string' ? op.path : null,
    from: typeof op.from === 'string' ? op.from : null,
    value: op.value ?? null,
  }));
}

// ---- Applying a patch to a resource ----

function applyMapEdit(current: Map<string, string> | null, edit: MapEdit | null): Map<string, string> | null {
  if (edit === null) return current;
  if (edit.kind === 'delete') return null;
  const out = edit.replace ? new Map<string, string>() : new Map(current ?? []);
  for (const [key, value] of edit.entries) {
    if (value === null) out.delete(key);
    else out.set(key, value);
  }
  return out;
}

/** Resource.ApplySmPatch: metadata maps merged; name and kind kept unless the patch may change them; the namespace always kept. */
export function applyStrategicMerge(res: Res, patch: Patch & { type: 'strategic-merge' }, doc: StrategicMergeDoc): 'kept' | 'deleted' {
  if (doc.deletes) return 'deleted';
  if (patch.allowNameChange || patch.allowKindChange) storePreviousId(res);
  if (doc.replaces) {
    res.labels = applyMapEdit(null, doc.labels);
    res.annotations = applyMapEdit(null, doc.annotations) ?? new Map<string, string>();
  } else {
    res.labels = applyMapEdit(res.labels, doc.labels);
    res.annotations = applyMapEdit(res.annotations, doc.annotations) ?? new Map<string, string>();
  }
  if (res.generated && doc.data) res.generated.data = applyMapEdit(res.generated.data, doc.data) ?? new Map<string, string>();
  if (patch.allowNameChange) res.name = doc.id.name;
  if (patch.allowKindChange) {
    res.kind = doc.id.kind;
    if (doc.id.apiVersion !== '') res.apiVersion = doc.id.apiVersion;
  }
  return 'kept';
}

/** `/a/b~1c` as its tokens. */
function pointer(path: string): string[] | null {
  if (path === '') return [];
  if (!path.startsWith('/')) return null;
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function asText(value: Json): string {
  if (value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function textMap(value: Json): Map<string, string> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return new Map(Object.entries(value).map(([key, item]) => [key, asText(item)]));
}

type Location =
  | { kind: 'key'; map: 'labels' | 'annotations' | 'data'; key: string }
  | { kind: 'map'; map: 'labels' | 'annotations' | 'data' }
  | { kind: 'field'; field: 'name' | 'namespace' | 'kind' | 'apiVersion' }
  | null;

function locate(tokens: string[] | null, res: Res): Location {
  if (tokens === null) return null;
  const [first, second, third] = tokens;
  if (tokens.length === 1 && (first === 'kind' || first === 'apiVersion')) return { kind: 'field', field: first };
  if (first === 'data' && res.generated) return tokens.length === 1 ? { kind: 'map', map: 'data' } : tokens.length === 2 ? { kind: 'key', map: 'data', key: second } : null;
  if (first !== 'metadata') return null;
  if (tokens.length === 2 && (second === 'name' || second === 'namespace')) return { kind: 'field', field: second };
  if (second !== 'labels' && second !== 'annotations') return null;
  if (tokens.length === 2) return { kind: 'map', map: second };
  return tokens.length === 3 ? { kind: 'key', map: second, key: third } : null;
}

function getMap(res: Res, map: 'labels' | 'annotations' | 'data'): Map<string, string> | null {
  return map === 'labels' ? res.labels : map === 'annotations' ? res.annotations : (res.generated?.data ?? null);
}

function setMap(res: Res, map: 'labels' | 'annotations' | 'data', value: Map<string, string> | null): void {
  if (map === 'labels') res.labels = value;
  else if (map === 'annotations') res.annotations = value ?? new Map<string, string>();
  else if (res.generated) res.generated.data = value ?? new Map<string, string>();
}

function read(res: Res, at: Location): Json | undefined {
  if (at === null) return undefined;
  if (at.kind === 'field') return res[at.field] === '' ? undefined : res[at.field];
  const map = getMap(res, at.map);
  if (at.kind === 'map') return map === null ? undefined : Object.fromEntries(map);
  return map?.get(at.key);
}

/** Applies the operations of a JSON 6902 patch to what the model knows of a resource; throws a BuildError where one does not apply. */
export function applyJson6902(res: Res, patch: Patch & { type: 'json6902' }): void {
  const failed: (message: string) => never = (message) => fail('patch-failed', message, patch.file, patch.entry.span);
  for (const operation of patch.operations) {
    const at = locate(operation.path === null ? null : pointer(operation.path), res);
    if (at === null) continue; // a field the model does not follow
    const path = operation.path ?? '';
    let value = operation.value;
    if (operation.op === 'copy' || operation.op === 'move') {
      const from = locate(operation.from === null ? null : pointer(operation.from), res);
      if (from === null) continue;
      const found = read(res, from);
      if (found === undefined) failed(`${operation.op} operation does not apply: doc is missing from path: ${operation.from}`);
      value = found!;
      if (operation.op === 'move') remove(res, from);
    }
    switch (operation.op) {
      case 'add':
      case 'replace':
      case 'copy':
      case 'move':
        if (at.kind === 'key' && getMap(res, at.map) === null) failed(`${operation.op} operation does not apply: doc is missing path: "${path}": missing value`);
        write(res, at, value);
        break;
      case 'remove':
        if (read(res, at) === undefined) failed(`remove operation does not apply: doc is missing path: "${path}": missing value`);
        remove(res, at);
        break;
      case 'test':
        if (JSON.stringify(read(res, at) ?? null) !== JSON.stringify(value)) failed(`testing value ${path} failed: test failed`);
        break;
      default:
        failed(`Unexpected kind: ${operation.op}`);
    }
  }
}

function write(res: Res, at: NonNullable<Location>, value: Json): void {
  if (at.kind === 'field') res[at.field] = asText(value);
  else if (at.kind === 'map') setMap(res, at.map, textMap(value));
  else getMap(res, at.map)!.set(at.key, asText(value));
}

function remove(res: Res, at: NonNullable<Location>): void {
  if (at.kind === 'field') res[at.field] = '';
  else if (at.kind === 'map') setMap(res, at.map, null);
  else getMap(res, at.map)?.delete(at.key);
}
