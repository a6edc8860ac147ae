// The build stage: what one Flux Kustomization builds from one artifact, as
// kustomize-controller does. `spec.path` is relative to the source root (`..`
// above it is clamped, as securejoin does); a folder with a kustomization
// file builds its `resources` and `components` (recursively), its patch
// files, and the ConfigMaps its generators make from the files they read; a
// folder without one builds every YAML file below it, a sub-folder with its
// own kustomization file counting as one unit. Pure over the repository
// layout: the caller supplies it (RepoLayout) and reads nothing here.
import { isYamlPath } from '../../base/paths';
import { ArtifactIndex, inRepository } from './artifact';
import { envsubst } from '../substitution/envsubst/template';
import type { FluxKustomization, KustomizationPatch, KustomizeConfig, Generator, GeneratorInput } from '../facts/model';
import type { RelatedLocation } from '../../base/types';
import type { FailureReason } from '../../kustomize/types';

/** How a file takes part in a build. */
export type EntryRole =
  /** A resource: each YAML document is applied (and substituted). */
  | 'resource'
  /** A kustomize patch file: its text ends up inside the resources it patches. */
  | 'patch'
  /** Read by a configMapGenerator/secretGenerator: its bytes become a ConfigMap's (or Secret's) data. */
  | 'generator'
  /** A kustomization file: its inline patches and generator literals end up in the output. */
  | 'inline';

export interface BuiltFile {
  role: EntryRole;
  /**
   * kustomize's answer for this build (pipeline/opt-outs.ts), where it was
   * asked: per document of a resource file, per generator item of a
   * kustomization file, or for the generator that reads an input, whether the
   * build outputs it substituted, opted out of substitution, or not at all.
   * Absent (or no entry for a document): its own metadata decides.
   */
  optOut?: Array<{ span: [number, number]; verdict: 'substituted' | 'disabled' | 'absent' }>;
  /** The kustomize-level patches (of the kustomization files on the way) that reach it. */
  patches: KustomizationPatch[];
  /** The namespace kustomize gives its resources (the outermost `namespace:` on the way), null when none sets one. */
  namespace?: string | null;
  /** For a generator input: which generator reads it, and how. */
  generator?: { config: KustomizeConfig; generator: Generator; input: GeneratorInput };
}

/**
 * What the model found wrong, by kind: a reference Flux cannot follow (a path that does not
 * exist, leaves the repository, or closes a cycle), a variable name Flux rejects, a root it had to
 * assume, an outside source whose names the repository cannot show (once per source); and from the
 * dependsOn gate (gate.ts), an entry that names nothing Ready-able of its world, one that names
 * another kind, a cycle; a HelmRelease reference nothing of its world creates (helm-refs.ts). The
 * rules say which rule reports each kind (rules/registry.ts).
 */
export type GraphProblemKind = 'broken-reference' | 'invalid-variable-name' | 'assumed-root' | 'outside-source' | 'depends-on-missing' | 'depends-on-kind' | 'depends-on-cycle' | 'helm-ref-missing';

export interface GraphProblem {
  kind: GraphProblemKind;
  file: string;
  span: [number, number];
  message: string;
  severity?: 'error' | 'warning' | 'info';
  /** Other places the problem is about (each Kustomization that takes an outside source). */
  related?: RelatedLocation[];
  /** outside-source: the source to declare, with every name the repository uses from it; helm-ref-missing: the object to declare (no names). */
  declare?: SourceToDeclare;
  /** A fix that replaces the text at `span` of the problem's file (a dependsOn name by the one meant). */
  replace?: { title: string; span: [number, number]; newText: string };
}

/** An outside source as the contract's `from` item names it, with the names a declaration lists. */
export interface SourceToDeclare {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string | null;
  names: string[];
}

export interface Build {
  files: Map<string, BuiltFile[]>;
  /** Problems of the Flux Kustomization itself (its spec.path). */
  problems: GraphProblem[];
  /** Problems of the folders it builds: the kustomize model's verdict replaces them where it has one. */
  treeProblems: GraphProblem[];
  /** Where kustomize fails to build what Flux builds (then nothing is applied). */
  failure?: FluxBuildFailure;
  /** With a failure: the files the build read before it failed (a YAML error in one of them is why). */
  attempted?: Map<string, BuiltFile[]>;
  /** Why the Kustomization fails to build at all (its spec.path is no folder of the artifact), null when it builds. */
  fails: string | null;
}

/** Why kustomize cannot build what a Flux Kustomization builds, and where that is written. */
export interface FluxBuildFailure {
  reason: FailureReason;
  message: string;
  file: string;
  span: [number, number];
  /** The folder Flux builds (spec.path in the repository). */
  dir: string;
  /** Where the path kustomize misses is in the repository but the source artifact leaves it out: the pattern's origin (`.sourceignore:3`). */
  excludedBy?: string;
}

/** What the build reads of the repository: its folders, files and kustomization files. */
export interface RepoLayout {
  hasFile(path: string): boolean;
  hasDir(path: string): boolean;
  filesIn(dir: string): readonly string[];
  subdirs(dir: string): readonly string[];
  configIn(dir: string): KustomizeConfig | undefined;
}

export function buildKustomization(kustomization: FluxKustomization, artifact: ArtifactIndex, layout: RepoLayout): Build {
  return new Builder(kustomization, artifact, layout).run();
}

/** Per artifact, whether a folder holds any file of it. */
const dirsHeld = new WeakMap<ArtifactIndex, Map<string, boolean>>();

/** A folder exists in the artifact when it holds at least one file the artifact keeps. */
export function artifactHasDir(layout: RepoLayout, artifact: ArtifactIndex, dir: string): boolean {
  if (!layout.hasDir(dir) || artifact.holdsNothingUnder(dir)) return false;
  let known = dirsHeld.get(artifact);
  if (!known) dirsHeld.set(artifact, (known = new Map<string, boolean>()));
  const cached = known.get(dir);
  if (cached !== undefined) return cached;
  const held = layout.filesIn(dir).some((file) => artifact.holds(file)) || layout.subdirs(dir).some((sub) => artifactHasDir(layout, artifact, sub));
  known.set(dir, held);
  return held;
}

/**
 * What a build adds from a folder it starts at (spec.path, a spec.components entry): the same for
 * every Kustomization that starts there from the artifact, since no patch, namespace or
 * kustomization file applies yet. Shared by them (never changed once made): several
 * Kustomizations building the repository's root each walked all of it.
 */
interface StartedFolder {
  files: ReadonlyMap<string, BuiltFile[]>;
  treeProblems: readonly GraphProblem[];
}

const startedFolders = new WeakMap<RepoLayout, WeakMap<ArtifactIndex, Map<string, StartedFolder>>>();

function startedFolder(layout: RepoLayout, artifact: ArtifactIndex, dir: string, build: () => StartedFolder): StartedFolder {
  let byArtifact = startedFolders.get(layout);
  if (!byArtifact) startedFolders.set(layout, (byArtifact = new WeakMap<ArtifactIndex, Map<string, StartedFolder>>()));
  let byDir = byArtifact.get(artifact);
  if (!byDir) byArtifact.set(artifact, (byDir = new Map<string, StartedFolder>()));
  let started = byDir.get(dir);
  if (!started) byDir.set(dir, (started = build()));
  return started;
}

class Builder {
  private files = new Map<string, BuiltFile[]>();
  /** True while `files` is a started folder's map, shared with other builds: copied before it changes. */
  private shared = false;
  private readonly problems: GraphProblem[] = [];
  private readonly treeProblems: GraphProblem[] = [];
  private fails: string | null = null;

  constructor(
    private readonly kustomization: FluxKustomization,
    private readonly artifact: ArtifactIndex,
    private readonly layout: RepoLayout,
  ) {}

  run(): Build {
    const k = this.kustomization;
    // spec.path itself: Flux fails the Kustomization where the folder is missing ("kustomization path not found").
    const report = (severity: 'error' | 'info', message: string) => this.problems.push({ kind: 'broken-reference', severity, file: k.file, span: k.pathSpan ?? k.span, message });
    const path = resolveSpecPath(k.pathAsWritten);
    if (path.variable) {
      // `${CLUSTER}` in a path: the parent's substitution decides; follow only what its defaults name.
      const dir = path.path === null ? null : inRepository(this.artifact.artifact, path.path);
      if (dir !== null && this.hasDir(dir)) this.start(dir);
      return this.result();
    }
    if (path.path === null || (k.template && /<</.test(k.pathAsWritten))) return this.result(); // unknown until the template is filled in
    const dir = inRepository(this.artifact.artifact, path.path);
    const exists = this.hasDir(dir);
    const source = this.artifact.artifact.label;
    if (path.climbs) {
      // kustomize-controller joins spec.path to the artifact's root as securejoin does: a `..` above the root stays at the root.
      const written = `spec.path ${JSON.stringify(k.pathAsWritten)} of Kustomization "${k.name}" climbs above the root of ${source}`;
      if (exists) report('info', `${written}; Flux clamps it there and builds "./${path.path}", which works: write "./${path.path}" to say so.`);
      else report('error', `${written}; Flux clamps it there, and "./${path.path}" does not exist: the Kustomization fails to build.`);
      if (!exists) return this.failed(`its spec.path "./${path.path}" does not exist in ${source}`);
    } else if (!exists) {
      report('error', `spec.path ${JSON.stringify(k.pathAsWritten)} of Kustomization "${k.name}" does not exist in ${source}${this.excludedNote(dir)}: the Kustomization fails to build.`);
      return this.failed(`its spec.path ${JSON.stringify(k.pathAsWritten)} does not exist in ${source}`);
    }
    this.start(dir);
    for (const component of k.components) {
      const componentDir = component.path === null ? null : inRepository(this.artifact.artifact, component.path);
      if (componentDir !== null && this.hasDir(componentDir)) this.start(componentDir);
      else
        this.treeProblems.push({
          kind: 'broken-reference',
          file: k.file,
          span: component.span ?? k.span,
          message: `spec.components entry ${JSON.stringify(component.written)} of Kustomization "${k.name}" does not exist in ${source}.`,
        });
    }
    return this.result();
  }

  private result(): Build {
    return { files: this.files, problems: this.problems, treeProblems: this.treeProblems, fails: this.fails };
  }

  private failed(why: string): Build {
    this.fails = why;
    return this.result();
  }

  /** Adds what a build adds from `dir` as a starting folder. */
  private start(dir: string): void {
    const started = startedFolder(this.layout, this.artifact, dir, () => {
      const builder = new Builder(this.kustomization, this.artifact, this.layout);
      builder.folder(dir, [], [], null);
      return { files: builder.files, treeProblems: builder.treeProblems };
    });
    this.treeProblems.push(...started.treeProblems);
    if (this.files.size === 0) {
      this.files = started.files as Map<string, BuiltFile[]>;
      this.shared = true;
    } else for (const [file, entries] of started.files) for (const entry of entries) this.add(file, entry);
  }

  private add(file: string, entry: BuiltFile): void {
    if (this.shared) {
      this.files = new Map([...this.files].map(([path, entries]) => [path, [...entries]]));
      this.shared = false;
    }
    const list = this.files.get(file);
    if (list) list.push(entry);
    else this.files.set(file, [entry]);
  }

  private hasFile(path: string): boolean {
    return this.layout.hasFile(path) && this.artifact.holds(path);
  }

  private hasDir(dir: string): boolean {
    return artifactHasDir(this.layout, this.artifact, dir);
  }

  /** ` (the source leaves it out: .sourceignore:3)` when an ignore pattern explains a missing path. */
  private excludedNote(path: string): string {
    const exclusion = this.artifact.exclusion(path + '/x');
    return exclusion && exclusion !== 'outside' ? ` (the source artifact leaves it out: ${exclusion.origin})` : '';
  }

  private folder(dir: string, stack: string[], patches: KustomizationPatch[], namespace: string | null): void {
    const config = this.layout.configIn(dir);
    if (config && this.artifact.holds(config.file)) return this.kustomize(config, stack, patches, namespace);
    // No kustomization file: Flux generates one over every YAML file below the folder.
    for (const file of this.layout.filesIn(dir)) if (isYamlPath(file) && this.artifact.holds(file)) this.add(file, { role: 'resource', patches, namespace });
    for (const sub of this.layout.subdirs(dir)) this.folder(sub, stack, patches, namespace);
  }

  /** `outer`: the namespace a kustomization that includes this one sets (the outermost wins: its transformer runs last). */
  private kustomize(config: KustomizeConfig, stack: string[], inherited: KustomizationPatch[], outer: string | null): void {
    const next = [...stack, config.file];
    const namespace = outer ?? config.namespace;
    // A kustomization's patches (and those of the components it includes) apply to everything it accumulates.
    const components = config.components.map((ref) => (ref.path === null ? undefined : this.layout.configIn(ref.path))).filter((c): c is KustomizeConfig => !!c);
    const patches = [...inherited, ...config.kustomizationPatches, ...components.flatMap((c) => c.kustomizationPatches)];
    this.add(config.file, { role: 'inline', patches });
    // Patch files end up inside the resources they patch, so Flux substitutes their text too.
    for (const patch of config.patches) if (this.hasFile(patch)) this.add(patch, { role: 'patch', patches });
    const report = (span: [number, number] | null, message: string) => this.treeProblems.push({ kind: 'broken-reference', file: config.file, span: span ?? [0, 0], message });
    for (const ref of [...config.resources, ...config.components]) {
      if (ref.path === null) report(ref.span, `${JSON.stringify(ref.written)} points outside the repository.`);
      else if (this.hasFile(ref.path)) this.add(ref.path, { role: 'resource', patches, namespace });
      else if (this.hasDir(ref.path)) {
        const sub = this.layout.configIn(ref.path);
        if (sub && next.includes(sub.file)) report(ref.span, `kustomize references form a cycle: ${[...next, sub.file].join(' → ')}.`);
        else if (sub && this.artifact.holds(sub.file)) this.kustomize(sub, next, patches, namespace);
        else report(ref.span, `${JSON.stringify(ref.written)} is a folder without a kustomization.yaml${sub ? this.excludedNote(sub.file) : ''}: kustomize cannot build it.`);
      } else report(ref.span, `${JSON.stringify(ref.written)} does not exist in the repository${this.excludedNote(ref.path)}: kustomize fails to build this folder.`);
    }
    for (const generator of config.generators) {
      for (const input of generator.inputs) {
        const what = `${generator.kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator'} "${generator.name}"`;
        if (input.path === null) report(input.span, `${what} reads ${JSON.stringify(input.written)}, which points outside the repository.`);
        else if (this.hasFile(input.path)) this.add(input.path, { role: 'generator', patches, generator: { config, generator, input } });
        else report(input.span, `${what} reads ${JSON.stringify(input.written)}, which does not exist in the repository${this.excludedNote(input.path)}: kustomize fails to build this folder.`);
      }
    }
  }
}

/**
 * `spec.path` as kustomize-controller resolves it: relative to the source
 * root, with `..` that would climb above the root clamped to it (securejoin),
 * and `${VAR}` only where a default names the folder.
 */
export function resolveSpecPath(written: string): { path: string | null; climbs: boolean; variable: boolean } {
  let text = written;
  const variable = written.includes('${');
  if (variable) {
    const rendered = envsubst(written, () => undefined, { strict: false });
    if (!rendered.ok || /\/\/|\/$/.test(rendered.output)) return { path: null, climbs: false, variable };
    text = rendered.output;
  }
  const parts: string[] = [];
  let climbs = false;
  for (const part of text.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) climbs = true;
      else parts.pop();
    } else parts.push(part);
  }
  return { path: parts.join('/'), climbs, variable };
}
