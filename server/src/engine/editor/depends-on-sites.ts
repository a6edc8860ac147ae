// Flux Kustomizations and HelmReleases as symbols: each is declared by its
// `metadata.name` and named by the `spec.dependsOn` entries of others of its
// kind. Go-to-definition, references, rename and the completion of names stand
// on this.
//
// Names resolve as Flux resolves them (flux/model/gate.ts), so that a rename
// changes exactly what Flux would then look for: an entry names an object of
// the dependent's kind, in the entry's namespace (the dependent's by default),
// in the same cluster. An object's namespace is the one the Kustomization that
// applies it gives it (its targetNamespace, a kustomization's `namespace:`,
// else the object's own); one file applied twice is one object per cluster
// and namespace. Where nothing tells the namespace or the cluster (a file
// nothing applies), it matches any.
//
// The open document's objects come from its text: completion and rename may
// come before the index has seen the last keystroke.
import { extractFacts } from '../flux/facts/extract';
import type { DependsOnRef, FileFacts } from '../flux/facts/model';
import { namePattern } from '../flux/model/names';
import type { FluxGraph } from '../flux/model/graph';
import type { World } from '../flux/model/world';
import type { RepoIndex } from '../pipeline/repo-index';
import type { ParsedDocument } from '../yaml/documents';
import type { ReadText, VariableSite } from './variable-sites';

export type ObjectKind = 'Kustomization' | 'HelmRelease';

/** One Flux Kustomization or HelmRelease as one cluster gets it. */
export interface DeclaredObject {
  kind: ObjectKind;
  name: string;
  /** The namespace it lands in; null when nothing tells. */
  namespace: string | null;
  /** The cluster (a root's world) that applies it; null when nothing does. */
  world: World | null;
  file: string;
  /** Its document's `kind` key: with the file and name, which declaration it is. */
  span: [number, number];
  /** `metadata.name`'s value as written (quotes included); null without one. */
  nameSpan: [number, number] | null;
  dependsOn: DependsOnRef[];
}

/** What the cursor is on: an object's `metadata.name`, or a dependsOn entry's name. */
export interface ObjectTarget {
  kind: ObjectKind;
  name: string;
  /** The name's own characters (inside any quotes). */
  span: [number, number];
  /** The objects it declares (on a metadata.name) or names (on an entry), in every cluster and namespace. */
  objects: DeclaredObject[];
  definition: boolean;
  /** Every object of the repository, as the target was resolved. */
  all: DeclaredObject[];
}

export interface ObjectSites {
  /** The declarations' names first, then the entries that name them; each file's in order. */
  sites: VariableSite[];
  /** Where the name is not written as such (a ResourceSet input), or an entry may name it through a variable. */
  unlocated: Array<{ file: string; span: [number, number] }>;
}

/** Every Kustomization and HelmRelease of the repository; `documents`: the open document's, parsed already. */
export function declaredObjects(index: RepoIndex, path: string, text: string, documents?: ParsedDocument[]): DeclaredObject[] {
  const graph = index.fluxGraph();
  const out: DeclaredObject[] = [];
  const add = (facts: FileFacts, open: boolean) => {
    const declarations = [...facts.kustomizations.map((k) => ({ kind: 'Kustomization' as const, decl: k })), ...facts.helmReleases.map((release) => ({ kind: 'HelmRelease' as const, decl: release }))];
    for (const { kind, decl } of declarations) {
      // The open document's facts come from its text; a patch's object is merged into another, a chart template's is Helm's.
      if ((decl.file === path) !== open || decl.name === '' || index.roleOf(decl.file) !== 'resource') continue;
      for (const { namespace, world } of placesOf(graph, decl.file, decl.name, decl.namespace)) {
        out.push({ kind, name: decl.name, namespace, world, file: decl.file, span: decl.span, nameSpan: decl.nameSpan, dependsOn: decl.dependsOn });
      }
    }
  };
  for (const facts of index.allFacts()) add(facts, false);
  const own = extractFacts(path, text, documents);
  if (own) add(own, true);
  return out;
}

/**
 * Where a file's objects land: each cluster that applies it, with the namespace its Kustomization
 * gives them; a root is in its own cluster too (a root the fallback chose is applied by none of its
 * Kustomizations), with its own namespace.
 */
function placesOf(graph: FluxGraph, file: string, name: string, declared: string | null): Array<{ namespace: string | null; world: World | null }> {
  const places = new Map<string, { namespace: string | null; world: World }>();
  for (const entry of graph.entriesOf(file)) {
    if (entry.role !== 'resource') continue;
    const namespace = entry.builder.kustomization.targetNamespace ?? entry.namespace ?? declared;
    places.set(`${entry.builder.world.index}|${namespace}`, { namespace, world: entry.builder.world });
  }
  for (const world of graph.worlds) {
    const applied = [...places.values()].some((place) => place.world === world);
    if (!applied && world.root.file === file && world.root.name === name) places.set(`${world.index}|${declared}`, { namespace: declared, world });
  }
  return places.size > 0 ? [...places.values()] : [{ namespace: declared, world: null }];
}

/** Either side unknown: any. */
export function fits<T>(a: T | null, b: T | null): boolean {
  return a === null || b === null || a === b;
}

export function sameDeclaration(a: DeclaredObject, b: DeclaredObject): boolean {
  return a.file === b.file && a.span[0] === b.span[0] && a.name === b.name;
}

/** The objects an entry of `dependent` names: of its kind and cluster, that name, in the entry's namespace (the dependent's by default). */
export function namedBy(all: readonly DeclaredObject[], dependent: DeclaredObject, ref: DependsOnRef): DeclaredObject[] {
  const namespace = ref.namespace ?? dependent.namespace;
  return all.filter((object) => object.kind === dependent.kind && object.name === ref.name && fits(object.namespace, namespace) && fits(object.world, dependent.world));
}

/** The name's own characters in what is written at `span`: the whole plain scalar, or inside its quotes; null when the text is not the name. */
export function nameCharacters(text: string, span: [number, number], name: string): [number, number] | null {
  const written = text.slice(span[0], span[1]);
  if (written === name) return span;
  const quote = written[0];
  const quoted = (quote === '"' || quote === "'") && written.length >= 2 && written.endsWith(quote);
  return quoted && written.slice(1, -1) === name ? [span[0] + 1, span[1] - 1] : null;
}

/** The metadata.name or dependsOn name at `offset` of the open document, or null. */
export function objectTargetAt(index: RepoIndex, path: string, text: string, offset: number): ObjectTarget | null {
  // Cheap: a document that is neither a Flux Kustomization nor a HelmRelease is never parsed here.
  if (!text.includes('kind:') || !/Kustomization|HelmRelease/.test(text)) return null;
  const all = declaredObjects(index, path, text);
  const within = (span: [number, number] | null) => span !== null && span[0] <= offset && offset <= span[1];
  for (const object of all) {
    if (object.file !== path) continue;
    const declarations = all.filter((other) => sameDeclaration(other, object));
    const own = object.nameSpan && nameCharacters(text, object.nameSpan, object.name);
    if (own && within(own)) return { kind: object.kind, name: object.name, span: own, objects: declarations, definition: true, all };
    for (const ref of object.dependsOn) {
      const span = nameCharacters(text, ref.nameSpan, ref.name);
      if (!span || !within(span)) continue;
      const named = unique(declarations.flatMap((dependent) => namedBy(all, dependent, ref)));
      return { kind: object.kind, name: ref.name, span, objects: named, definition: false, all };
    }
  }
  return null;
}

/** Where the entry at `offset` points: the `metadata.name` of each object it names. */
export function dependsOnDefinitions(index: RepoIndex, path: string, text: string, offset: number): Array<{ file: string; span: [number, number] }> {
  const target = objectTargetAt(index, path, text, offset);
  if (!target || target.definition) return [];
  return firstOfEach(target.objects).map((object) => ({ file: object.file, span: object.nameSpan ?? object.span }));
}

/** Every place of the target's name: the declarations, and every entry that names one of them. */
export async function objectSites(target: ObjectTarget, path: string, text: string, read: ReadText): Promise<ObjectSites> {
  const { all } = target;
  const declarations = new Set(target.objects.map(identity));
  const entries = new Map<string, { file: string; ref: DependsOnRef }>();
  for (const dependent of all) {
    for (const ref of dependent.dependsOn) {
      if (namedBy(all, dependent, ref).some((object) => declarations.has(identity(object)))) entries.set(`${dependent.file}:${ref.nameSpan[0]}`, { file: dependent.file, ref });
    }
  }
  const { objects } = target;
  const unlocated: ObjectSites['unlocated'] = [];
  // An entry whose name has a variable in it, and that may stand for this one: Flux may read it as this name.
  for (const dependent of all) {
    for (const ref of dependent.dependsOn) {
      if (!/\$\{|<</.test(ref.name) || !namePattern(ref.name).test(target.name)) continue;
      const namespace = ref.namespace ?? dependent.namespace;
      if (objects.some((object) => object.kind === dependent.kind && fits(object.namespace, namespace) && fits(object.world, dependent.world)))
        unlocated.push({ file: dependent.file, span: ref.nameSpan });
    }
  }
  const textOf = async (file: string) => (file === path ? text : await read(file));
  const definitions: VariableSite[] = [];
  for (const object of firstOfEach(objects)) {
    const written = await textOf(object.file);
    const span = written === undefined || object.nameSpan === null ? null : nameCharacters(written, object.nameSpan, object.name);
    if (span) definitions.push({ file: object.file, span, definition: true });
    else unlocated.push({ file: object.file, span: object.nameSpan ?? object.span });
  }
  const uses: VariableSite[] = [];
  for (const { file, ref } of entries.values()) {
    const written = await textOf(file);
    const span = written === undefined ? null : nameCharacters(written, ref.nameSpan, ref.name);
    if (span) uses.push({ file, span, definition: false });
    else unlocated.push({ file, span: ref.nameSpan });
  }
  const bySite = (a: { file: string; span: [number, number] }, b: { file: string; span: [number, number] }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.span[0] - b.span[0]);
  return { sites: [...definitions.sort(bySite), ...uses.sort(bySite)], unlocated: uniqueSpans(unlocated).sort(bySite) };
}

function identity(object: DeclaredObject): string {
  return `${object.file}:${object.span[0]}:${object.name}`;
}

function unique(objects: DeclaredObject[]): DeclaredObject[] {
  return [...new Set(objects)];
}

/** One object per declaration (a declaration applied in several clusters or namespaces is several objects). */
export function firstOfEach(objects: readonly DeclaredObject[]): DeclaredObject[] {
  const seen = new Set<string>();
  return objects.filter((object) => !seen.has(identity(object)) && Boolean(seen.add(identity(object))));
}

function uniqueSpans<T extends { file: string; span: [number, number] }>(places: T[]): T[] {
  const seen = new Set<string>();
  return places.filter((place) => !seen.has(`${place.file}:${place.span[0]}`) && Boolean(seen.add(`${place.file}:${place.span[0]}`)));
}
