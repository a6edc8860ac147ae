// The repository graph: which Flux Kustomizations build each file, and with
// which post-build variables. Derived from the per-file facts (facts.ts) and
// the file list, so it can be rebuilt cheaply whenever one of them changes.
//
// Modelled on kustomize-controller: `spec.path` is relative to the source
// root; a folder with a kustomization file builds its `resources` and
// `components` (recursively); a folder without one builds every YAML file
// below it, a sub-folder with its own kustomization file counting as one
// unit; `spec.components` add components; parents' `spec.patches` that target
// a child Kustomization can add its postBuild.
import { validateVarName } from './envsubst';
import type { FileFacts, FluxKustomization, KustomizeConfig, Located, PostBuild, SubstituteFromRef, VariableSource } from './facts';
import { dirnameOf, isYamlPath } from '../paths';
import { KUSTOMIZATION_FILE_NAMES } from './facts';

export interface DefinedVariable extends Located<string> {
  /** Where the value comes from, for messages: `substitute` or `ConfigMap cluster-settings`. */
  from: string;
}

export interface VarSet {
  defined: Map<string, DefinedVariable>;
  /** substituteFrom objects the repository does not hold: their names are unknown. */
  unknownSources: SubstituteFromRef[];
  /** Whether Flux substitutes at all (some variable resolves, an unknown source may, or strategy Always). */
  substitutes: boolean;
}

export interface Builder {
  kustomization: FluxKustomization;
  /** The effective postBuild (own, plus what parents patch in), null without one. */
  postBuild: PostBuild | null;
  vars: VarSet | null;
}

/** A reference kustomize or Flux cannot follow, reported on the referencing file. */
export interface GraphProblem {
  rule: 'kustomize-reference' | 'flux-substitution-syntax';
  file: string;
  span: [number, number];
  message: string;
}

export class FluxGraph {
  private readonly builders = new Map<string, Builder[]>();
  readonly problems: GraphProblem[] = [];
  readonly kustomizations: FluxKustomization[] = [];
  private readonly filesByDir = new Map<string, string[]>();
  private readonly dirs = new Set<string>(['']);
  private readonly childDirs = new Map<string, string[]>();
  private readonly configs = new Map<string, KustomizeConfig>();
  private readonly sources: VariableSource[] = [];

  constructor(private readonly files: ReadonlySet<string>, facts: ReadonlyMap<string, FileFacts>) {
    for (const file of files) {
      const dir = dirnameOf(file);
      const list = this.filesByDir.get(dir) ?? [];
      list.push(file);
      this.filesByDir.set(dir, list);
      for (let d = dir; d !== '' && !this.dirs.has(d); d = dirnameOf(d)) {
        this.dirs.add(d);
        const parent = dirnameOf(d);
        this.childDirs.set(parent, [...(this.childDirs.get(parent) ?? []), d]);
      }
    }
    for (const fileFacts of facts.values()) {
      this.kustomizations.push(...fileFacts.kustomizations);
      this.sources.push(...fileFacts.variableSources);
      if (fileFacts.kustomize) {
        const dir = dirnameOf(fileFacts.kustomize.file);
        const existing = this.configs.get(dir);
        if (!existing || rank(fileFacts.kustomize.file) < rank(existing.file)) this.configs.set(dir, fileFacts.kustomize);
      }
    }
    this.kustomizations.sort((a, b) => (a.file + a.name < b.file + b.name ? -1 : 1));
    const built = new Map<FluxKustomization, string[]>();
    for (const kustomization of this.kustomizations) built.set(kustomization, this.filesBuiltBy(kustomization));
    const parentsOf = new Map<string, FluxKustomization[]>();
    for (const [kustomization, files] of built) {
      for (const file of files) parentsOf.set(file, [...(parentsOf.get(file) ?? []), kustomization]);
    }
    for (const [kustomization, files] of built) {
      const postBuild = effectivePostBuild(kustomization, parentsOf.get(kustomization.file) ?? []);
      const builder: Builder = { kustomization, postBuild, vars: postBuild ? this.resolveVars(kustomization, postBuild) : null };
      for (const file of files) this.builders.set(file, [...(this.builders.get(file) ?? []), builder]);
    }
  }

  buildersOf(file: string): Builder[] {
    return this.builders.get(file) ?? [];
  }

  private filesBuiltBy(kustomization: FluxKustomization): string[] {
    const out = new Set<string>();
    const report = (span: [number, number] | null, message: string) =>
      this.problems.push({ rule: 'kustomize-reference', file: kustomization.file, span: span ?? kustomization.span, message });
    if (kustomization.path === null) {
      report(kustomization.pathSpan, `spec.path ${JSON.stringify(kustomization.pathAsWritten)} of Kustomization "${kustomization.name}" points outside the repository: Flux cannot build it from this source.`);
      return [];
    }
    if (!this.dirs.has(kustomization.path)) {
      report(kustomization.pathSpan, `spec.path ${JSON.stringify(kustomization.pathAsWritten)} of Kustomization "${kustomization.name}" does not exist in the repository: the Kustomization fails to build.`);
      return [];
    }
    this.buildFolder(kustomization.path, out, []);
    for (const component of kustomization.components) {
      if (component.path !== null && this.dirs.has(component.path)) this.buildFolder(component.path, out, []);
      else report(component.span, `spec.components entry ${JSON.stringify(component.written)} of Kustomization "${kustomization.name}" does not exist in the repository.`);
    }
    return [...out];
  }

  private buildFolder(dir: string, out: Set<string>, stack: string[]): void {
    const config = this.configs.get(dir);
    if (config) return this.buildKustomize(config, out, stack);
    // No kustomization file: Flux generates one over every YAML file below the folder.
    for (const file of this.filesByDir.get(dir) ?? []) if (isYamlPath(file)) out.add(file);
    for (const sub of this.subdirs(dir)) this.buildFolder(sub, out, stack);
  }

  private buildKustomize(config: KustomizeConfig, out: Set<string>, stack: string[]): void {
    const next = [...stack, config.file];
    // Patches end up inside the resources they patch, so Flux substitutes their text too.
    for (const patch of config.patches) if (this.files.has(patch)) out.add(patch);
    for (const ref of [...config.resources, ...config.components]) {
      const report = (message: string) => this.problems.push({ rule: 'kustomize-reference', file: config.file, span: ref.span ?? [0, 0], message });
      if (ref.path === null) report(`${JSON.stringify(ref.written)} points outside the repository.`);
      else if (this.files.has(ref.path)) out.add(ref.path);
      else if (this.dirs.has(ref.path)) {
        const sub = this.configs.get(ref.path);
        if (sub && next.includes(sub.file)) report(`kustomize references form a cycle: ${[...next, sub.file].join(' → ')}.`);
        else if (sub) this.buildKustomize(sub, out, next);
        else report(`${JSON.stringify(ref.written)} is a folder without a kustomization.yaml: kustomize cannot build it.`);
      } else report(`${JSON.stringify(ref.written)} does not exist in the repository: kustomize fails to build this folder.`);
    }
  }

  private subdirs(dir: string): string[] {
    return this.childDirs.get(dir) ?? [];
  }

  private resolveVars(kustomization: FluxKustomization, postBuild: PostBuild): VarSet {
    const defined = new Map<string, DefinedVariable>();
    const unknownSources: SubstituteFromRef[] = [];
    const namespace = kustomization.namespace;
    for (const ref of postBuild.substituteFrom) {
      const candidates = this.sources.filter((source) => source.kind === ref.kind && source.name === ref.name);
      const source = candidates.find((s) => s.namespace === namespace) ?? candidates.find((s) => s.namespace === null) ?? candidates[0];
      if (!source) {
        unknownSources.push(ref);
        continue;
      }
      for (const [name, located] of source.entries) {
        this.checkName(name, located);
        defined.set(name, { ...located, from: `${source.kind} ${source.name}` });
      }
    }
    for (const [name, located] of postBuild.substitute) {
      this.checkName(name, located);
      defined.set(name, { ...located, from: `substitute of Kustomization "${kustomization.name}"` });
    }
    return { defined, unknownSources, substitutes: postBuild.always || defined.size > 0 || unknownSources.length > 0 };
  }

  private checkName(name: string, located: Located<string>): void {
    const error = validateVarName(name);
    if (error && !this.problems.some((p) => p.file === located.file && p.span[0] === located.span[0])) {
      this.problems.push({ rule: 'flux-substitution-syntax', file: located.file, span: located.span, message: `Flux fails every Kustomization that uses this variable: ${error}.` });
    }
  }
}

function rank(file: string): number {
  return KUSTOMIZATION_FILE_NAMES.indexOf(file.slice(file.lastIndexOf('/') + 1));
}

/** The child's own postBuild with what its parents' `spec.patches` add (a patch wins key by key). */
function effectivePostBuild(child: FluxKustomization, parents: FluxKustomization[]): PostBuild | null {
  let result = child.postBuild;
  for (const parent of parents) {
    for (const patch of parent.patches) {
      if (!patch.postBuild || !targets(patch, child)) continue;
      result = {
        substitute: new Map([...(result?.substitute ?? []), ...patch.postBuild.substitute]),
        substituteFrom: patch.postBuild.substituteFrom.length > 0 ? patch.postBuild.substituteFrom : result?.substituteFrom ?? [],
        always: patch.postBuild.always || (result?.always ?? false),
      };
    }
  }
  return result;
}

function targets(patch: FluxKustomization['patches'][number], child: FluxKustomization): boolean {
  if (patch.targetKind !== null && patch.targetKind !== 'Kustomization') return false;
  if (patch.targetName !== null && !nameMatches(patch.targetName, child.name)) return false;
  if (patch.targetLabels) {
    for (const [key, value] of Object.entries(patch.targetLabels)) {
      if (key.startsWith('!')) {
        if (key.slice(1) in child.labels) return false;
      } else if (!(key in child.labels) || (value !== '' && child.labels[key] !== value)) return false;
    }
  }
  return patch.targetKind !== null || patch.targetName !== null || patch.targetLabels !== null;
}

/** kustomize matches target names as anchored regular expressions. */
function nameMatches(pattern: string, name: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(name);
  } catch {
    return pattern === name;
  }
}
