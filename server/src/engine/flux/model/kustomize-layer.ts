// What Flux builds is not the folder alone: kustomize-controller (fluxcd/pkg
// kustomize's generator) rewrites the kustomization file of `spec.path`
// before it runs kustomize — decoded without strictness and encoded again
// (unknown fields dropped, an empty file made a Kustomization), with the Flux
// Kustomization's targetNamespace, `patches` and `components` written in —
// and where the folder has no kustomization file it generates one over every
// YAML file below (a sub-folder with its own kustomization file counting as
// one entry). (`commonMetadata` is applied after substitution, on the
// objects: not part of the build.) This module makes that layer for the
// kustomize model. Entries the layer adds are written in the Flux
// Kustomization's file, not in the kustomization file: they carry placeholder
// spans (negative offsets) that `locate` turns back into where they are
// written.
import { isYamlPath } from '../../base/paths';
import type { KustomizationLayer } from '../../kustomize/build';
import { KUSTOMIZATION_FILE_NAMES } from '../../kustomize/files';
import type { Kustomization, PatchEntry, Selector } from '../../kustomize/kustomization';
import type { Span, Written } from '../../kustomize/types';
import type { FluxKustomization } from '../facts/model';

/** A place in the repository (a finding's anchor). */
export interface Place {
  file: string;
  span: [number, number];
}

/** The folder listing the generated kustomization is made from: the artifact's files and sub-folders of a folder. */
export interface FolderListing {
  filesIn(dir: string): readonly string[];
  subdirs(dir: string): readonly string[];
  isFile(path: string): boolean;
  isDir(path: string): boolean;
}

export interface FluxLayer extends KustomizationLayer {
  /** The kustomization file the layer stands for (the folder's own, or the one Flux generates). */
  file: string;
  /** Whether the folder has no kustomization file of its own. */
  generated: boolean;
  /** Where a failure the model reports at `file` and `span` is written in the repository (null: where it says). */
  locate(file: string, span: Span | null): Place | null;
}

/** The layer Flux puts over `dir` for `k`; `hasOwn`: the folder has a kustomization file. */
export function fluxLayer(k: FluxKustomization, dir: string, hasOwn: boolean, listing: FolderListing): FluxLayer {
  const file = hasOwn ? '' : dir === '' ? KUSTOMIZATION_FILE_NAMES[0] : `${dir}/${KUSTOMIZATION_FILE_NAMES[0]}`;
  const places: Place[] = [];
  const anchor = k.pathSpan ?? k.span;
  /** A placeholder span for an entry written at `place`. */
  const at = (place: Place): Span => {
    places.push(place);
    return [-places.length, -places.length];
  };
  const written = (value: string, place: Place): Written => ({ value, span: at(place) });
  return {
    dir,
    file,
    generated: !hasOwn,
    apply(own) {
      const base = own ? copyOf(own) : generatedKustomization(file, dir, listing, (entry) => written(entry, { file: k.file, span: anchor }));
      if (k.targetNamespace !== null && k.targetNamespace !== '') base.namespace = k.targetNamespace;
      for (const component of k.components) base.components.push(written(component.written, { file: k.file, span: component.span ?? anchor }));
      for (const patch of k.kustomizeLayer?.patches ?? []) {
        const span = at({ file: k.file, span: patch.span });
        const entry: PatchEntry = { field: 'patches', span, path: null, inline: { value: patch.patch, span }, target: patch.target ? selector(patch.target) : null, options: new Map() };
        base.patches.push(entry);
      }
      return base;
    },
    locate(failedAt, span) {
      if (span !== null && span[0] < 0) return places[-span[0] - 1] ?? null;
      return !hasOwn && failedAt === file ? { file: k.file, span: anchor } : null;
    },
  };
}

/** A copy whose lists and maps the layer may change (the folder's own stays as it is, shared by other builds). */
function copyOf(k: Kustomization): Kustomization {
  return {
    ...k,
    components: [...k.components],
    patches: [...k.patches],
  };
}

/** What Flux generates for a folder without a kustomization file: every YAML file below, a folder with one as a whole. */
function generatedKustomization(file: string, dir: string, listing: FolderListing, written: (entry: string) => Written): Kustomization {
  const resources: Written[] = [];
  const relative = (path: string) => (dir === '' ? path : path.slice(dir.length + 1));
  const walk = (folder: string) => {
    // filepath.Walk: the entries of a folder in lexical order, files and folders alike
    const entries = [...listing.filesIn(folder).map((path) => ({ path, isDir: false })), ...listing.subdirs(folder).map((path) => ({ path, isDir: true }))].sort((a, b) => (a.path < b.path ? -1 : 1));
    for (const entry of entries) {
      if (entry.isDir) {
        if (!listing.isDir(entry.path)) continue;
        if (KUSTOMIZATION_FILE_NAMES.some((name) => listing.isFile(`${entry.path}/${name}`))) resources.push(written(relative(entry.path)));
        else walk(entry.path);
      } else if (isYamlPath(entry.path) && listing.isFile(entry.path)) resources.push(written(relative(entry.path)));
    }
  };
  walk(dir);
  return {
    file,
    dir,
    kind: 'Kustomization',
    resources,
    components: [],
    namePrefix: '',
    nameSuffix: '',
    namespace: '',
    commonLabels: new Map(),
    labels: [],
    commonAnnotations: new Map(),
    patchesStrategicMerge: [],
    patches: [],
    patchesJson6902: [],
    generators: [],
    replacements: [],
    unmodelled: [],
  };
}

function selector(target: Record<string, string>): Selector {
  return {
    group: target.group ?? '',
    version: target.version ?? '',
    kind: target.kind ?? '',
    name: target.name ?? '',
    namespace: target.namespace ?? '',
    labelSelector: target.labelSelector ?? '',
    annotationSelector: target.annotationSelector ?? '',
  };
}
