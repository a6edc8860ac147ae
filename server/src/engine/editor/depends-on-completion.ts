// Completion of names in `spec.dependsOn`: a Flux Kustomization's entries
// name Kustomizations, a HelmRelease's name HelmReleases (Flux resolves no
// other kind), so only those of the repository are offered (depends-on-sites.ts).
// On an entry's `name:` value, and on a bare `- ` item of the list, which
// gets its `name: ` written too. Those in the namespace the entry resolves in
// (the dependent's, unless the entry says one) come first; one in another
// namespace gets its `namespace:` line written, since without it Flux looks in
// the dependent's; one that already waits for the dependent comes last and
// says so (depending on it closes a cycle). Never offered: the dependent
// itself, an object only another cluster applies, a name the list has
// already. Block style only, as typed: a flow `[{name: x}]` is left alone.
import { FLUX_KUSTOMIZE_GROUP } from '../flux/facts/model';
import { HELM_GROUP } from '../flux/facts/depends-on';
import type { World } from '../flux/model/world';
import type { RepoIndex } from '../pipeline/repo-index';
import { asMap, asSeq, getNode, getString, isScalar, nodeSpan, parseYamlFile, ParsedDocument, YAMLMap, YAMLSeq } from '../yaml/documents';
import { yamlString } from '../yaml/edit';
import { LineIndex, lineEnding } from '../yaml/line-index';
import { DeclaredObject, declaredObjects, fits, namedBy, ObjectKind, sameDeclaration } from './depends-on-sites';

export interface NameCandidate {
  name: string;
  namespace: string | null;
  /** `Kustomization in namespace apps — clusters/home/apps.yaml`. */
  detail: string;
  /** In the namespace the entry resolves in: no `namespace:` needed. */
  preferred: boolean;
  /** It waits for the dependent already (its entries lead to it): depending on it closes a cycle. */
  cycle: boolean;
  /** What replaces the completion's `replace`. */
  newText: string;
  /** A `namespace:` line that goes after the line's end (where a comment or a quote follows the name), else null. */
  insert: { at: number; text: string } | null;
}

export interface DependsOnCompletion {
  /** The dependent's kind, which is also the kind of every candidate. */
  kind: ObjectKind;
  /** [start, end) of the name (or the bare item's text) typed so far and the rest of it after the cursor. */
  replace: [number, number];
  /** On a bare `- ` item: each candidate writes `name: ` too. */
  item: boolean;
  candidates: NameCandidate[];
}

const NAME_CHARS = /[A-Za-z0-9._-]/;
/** `- name: inf`, `name: "inf`: a name value being typed (up to the cursor). */
const VALUE = /^( *)(- +)?name:[ \t]+(["']?)([A-Za-z0-9._-]*)$/;
/** `- ` or `- inf`: a bare item of the list. */
const ITEM = /^( *- +)([A-Za-z0-9._-]*)$/;

export function dependsOnCompletion(index: RepoIndex, path: string, text: string, offset: number): DependsOnCompletion | null {
  if (!text.includes('dependsOn')) return null;
  const lines = new LineIndex(text);
  const line = lines.position(offset).line;
  const lineStart = lines.lineStart(line);
  const lineEnd = lines.lineEnd(line);
  const before = text.slice(lineStart, offset);
  const value = VALUE.exec(before);
  const bare = value ? null : ITEM.exec(before);
  if (!value && !bare) return null;
  const typed = (value ? value[4] : bare![2]).length;
  let end = offset;
  while (end < lineEnd && NAME_CHARS.test(text[end])) end++;
  const replace: [number, number] = [offset - typed, end];
  const documents = parseYamlFile(text);
  const list = dependsOnList(documents, offset);
  if (!list) return null;
  const entry = entryAt(list, replace[0], lineStart, value !== null);
  if (!entry) return null;
  const explicit = entry.map ? getString(list.parsed.doc, entry.map, 'namespace') : null;
  const all = declaredObjects(index, path, text, documents);
  const dependents = all.filter((object) => object.file === path && object.kind === list.kind && object.span[0] >= list.parsed.base && object.span[0] < list.parsed.end);
  // Where an entry of this dependent resolves: each cluster and namespace of it (the document's own namespace when the facts hold none).
  const places: Array<{ namespace: string | null; world: World | null }> =
    dependents.length > 0
      ? dependents.map((d) => ({ namespace: explicit ?? d.namespace, world: d.world }))
      : [{ namespace: explicit ?? getString(list.parsed.doc, list.root, 'metadata', 'namespace'), world: null }];
  const listed = otherEntries(list, entry.node, dependents.length > 0 ? dependents[0].namespace : places[0].namespace);
  const waiting = waitingFor(all, dependents);
  const groups = new Map<string, { object: DeclaredObject; files: Set<string>; preferred: boolean; cycle: boolean }>();
  for (const object of all) {
    if (object.kind !== list.kind || dependents.some((d) => sameDeclaration(d, object))) continue;
    // Another cluster's object: Flux would never find it from here.
    if (!places.some((place) => fits(place.world, object.world))) continue;
    if (listed.some((other) => other.name === object.name && fits(other.namespace, object.namespace))) continue;
    const key = `${object.name}|${object.namespace}`;
    const group = groups.get(key) ?? { object, files: new Set<string>(), preferred: false, cycle: false };
    group.files.add(object.file);
    group.cycle ||= waiting.has(object);
    group.preferred ||= places.some((place) => fits(place.namespace, object.namespace) && fits(place.world, object.world));
    groups.set(key, group);
  }
  const eol = lineEnding(text, offset);
  const keyColumn = value ? value[1].length + (value[2]?.length ?? 0) : bare![1].length;
  const quoted = value !== null && value[3] !== '';
  const rest = text.slice(end, lineEnd);
  const candidates = [...groups.values()].map(({ object, files, preferred, cycle }): NameCandidate => {
    const name = quoted ? object.name : yamlString(object.name);
    let newText = value ? name : `name: ${name}`;
    let insert: NameCandidate['insert'] = null;
    // Without it Flux looks in the dependent's namespace; a namespace the entry already says is the user's.
    if (!preferred && explicit === null && object.namespace !== null) {
      const line = `${eol}${' '.repeat(keyColumn)}namespace: ${yamlString(object.namespace)}`;
      if (rest.trim() === '') newText += line;
      else insert = { at: lineEnd, text: line };
    }
    const detail = detailOf(list.kind, object.namespace, [...files].sort()) + (cycle ? ` (it waits for ${dependents[0].name}: a cycle)` : '');
    return { name: object.name, namespace: object.namespace, detail, preferred, cycle, newText, insert };
  });
  candidates.sort((a, b) => Number(a.cycle) - Number(b.cycle) || Number(b.preferred) - Number(a.preferred) || compare(a.name, b.name) || compare(a.namespace ?? '', b.namespace ?? ''));
  return { kind: list.kind, replace, item: value === null, candidates };
}

/** The objects whose dependsOn entries lead to one of `dependents`, directly or through others. */
function waitingFor(all: readonly DeclaredObject[], dependents: readonly DeclaredObject[]): Set<DeclaredObject> {
  const reached = new Set<DeclaredObject>(dependents);
  for (let grew = true; grew;) {
    grew = false;
    for (const object of all) {
      if (reached.has(object) || !object.dependsOn.some((ref) => namedBy(all, object, ref).some((named) => reached.has(named)))) continue;
      reached.add(object);
      grew = true;
    }
  }
  for (const dependent of dependents) reached.delete(dependent);
  return reached;
}

interface DependsOnList {
  parsed: ParsedDocument;
  root: YAMLMap;
  kind: ObjectKind;
  seq: YAMLSeq;
}

/** The `spec.dependsOn` list of the Flux Kustomization or HelmRelease document at `offset`. */
function dependsOnList(documents: ParsedDocument[], offset: number): DependsOnList | null {
  const parsed = documents.find((d) => d.base <= offset && offset <= d.end);
  if (!parsed) return null;
  const { doc } = parsed;
  const root = asMap(doc, doc.contents);
  const apiVersion = getString(doc, root, 'apiVersion') ?? '';
  const kind = getString(doc, root, 'kind');
  const objectKind = kind === 'Kustomization' && apiVersion.startsWith(FLUX_KUSTOMIZE_GROUP) ? 'Kustomization' : kind === 'HelmRelease' && apiVersion.startsWith(HELM_GROUP) ? 'HelmRelease' : null;
  const seq = asSeq(doc, getNode(doc, root, 'spec', 'dependsOn'));
  return root && objectKind && seq ? { parsed, root, kind: objectKind, seq } : null;
}

/**
 * The list item being completed: on a `name:` value, the item mapping whose `name` key is on the
 * cursor's line; on a bare item, a scalar item (empty, or the text typed so far) at `start`.
 */
function entryAt(list: DependsOnList, start: number, lineStart: number, onValue: boolean): { node: unknown; map: YAMLMap | null } | null {
  const { parsed } = list;
  for (const node of list.seq.items) {
    if (onValue) {
      const map = asMap(parsed.doc, node);
      const key = nodeSpan(parsed, map?.items.find((pair) => isScalar(pair.key) && pair.key.value === 'name')?.key);
      if (map && key && key[0] >= lineStart && key[1] <= start) return { node, map };
    } else if (isScalar(node)) {
      const span = nodeSpan(parsed, node);
      if (span && span[0] <= start && start <= span[1]) return { node, map: null };
    }
  }
  return null;
}

/** The names the list's other entries give already (a namespace they leave out is the dependent's). */
function otherEntries(list: DependsOnList, current: unknown, namespace: string | null): Array<{ name: string; namespace: string | null }> {
  const { doc } = list.parsed;
  return list.seq.items.flatMap((node) => {
    const name = node === current ? null : getString(doc, node, 'name');
    return name === null ? [] : [{ name, namespace: getString(doc, node, 'namespace') ?? namespace }];
  });
}

function detailOf(kind: ObjectKind, namespace: string | null, files: string[]): string {
  const where = files.length > 1 ? `${files[0]}, and ${files.length - 1} more` : files[0];
  return `${kind}${namespace === null ? '' : ` in namespace ${namespace}`} — ${where}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
