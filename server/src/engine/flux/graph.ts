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
import { envsubst, validateVarName } from './envsubst';
import { matchesSelector } from './label-selector';
import type { FileFacts, FluxKustomization, KustomizationPatch, KustomizeConfig, Located, PostBuild, SubstituteFromRef, VariableSource } from './facts';

/** The files one Kustomization builds, each with the kustomize patches that reach it. */
type Built = Map<string, KustomizationPatch[]>;
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
  private readonly reported = new Set<string>();
  private discovering = false;
  private mainSource = 'flux-system';
  kustomizations: FluxKustomization[] = [];
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
      for (const kustomization of fileFacts.kustomizations) this.kustomizations.push(kustomization);
      for (const source of fileFacts.variableSources) this.sources.push(source);
      if (fileFacts.kustomize) {
        const dir = dirnameOf(fileFacts.kustomize.file);
        const existing = this.configs.get(dir);
        if (!existing || rank(fileFacts.kustomize.file) < rank(existing.file)) this.configs.set(dir, fileFacts.kustomize);
      }
    }
    // A Kustomization written in a kustomize patch file is a patch, not a resource.
    const patchFiles = new Set([...this.configs.values()].flatMap((config) => config.patches));
    this.kustomizations = this.kustomizations.filter((k) => !patchFiles.has(k.file));
    this.kustomizations.sort((a, b) => (a.file + a.name < b.file + b.name ? -1 : 1));
    this.mainSource = mainSourceName(this.kustomizations);
    const built = new Map<FluxKustomization, Built>();
    for (const kustomization of this.liveKustomizations()) built.set(kustomization, this.filesBuiltBy(kustomization));
    // Who builds each file, and which kustomize-level patches reach it on the way.
    const parentsOf = new Map<string, Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }>>();
    for (const [parent, files] of built) {
      for (const [file, patches] of files) parentsOf.set(file, [...(parentsOf.get(file) ?? []), { parent, patches }]);
    }
    for (const [kustomization, files] of built) {
      const postBuild = effectivePostBuild(kustomization, parentsOf.get(kustomization.file) ?? []);
      const builder: Builder = { kustomization, postBuild, vars: postBuild ? this.resolveVars(kustomization, postBuild) : null };
      for (const file of files.keys()) this.builders.set(file, [...(this.builders.get(file) ?? []), builder]);
    }
  }

  buildersOf(file: string): Builder[] {
    return this.builders.get(file) ?? [];
  }

  /**
   * The Kustomizations Flux applies. A root is one whose file no other
   * Kustomization builds and that lies outside every other one's path (what
   * bootstrap or the Flux operator applies); from the roots, every
   * Kustomization a live one builds is live. One that sits inside another's
   * path but that nothing builds (left out of a kustomization.yaml, an
   * archive) is never applied, so nothing it would build is checked.
   */
  private liveKustomizations(): FluxKustomization[] {
    const builtBy = new Map<string, Set<FluxKustomization>>();
    const discovery = new Map<FluxKustomization, string[]>();
    this.discovering = true;
    for (const kustomization of this.kustomizations) {
      const files = [...this.filesBuiltBy(kustomization).keys()];
      discovery.set(kustomization, files);
      for (const file of files) builtBy.set(file, (builtBy.get(file) ?? new Set()).add(kustomization));
    }
    this.discovering = false;
    const inside = (k: FluxKustomization, other: FluxKustomization) =>
      other !== k && other.path !== null && this.isOurs(other) && (other.path === '' || k.file.startsWith(other.path + '/'));
    const roots = this.kustomizations.filter(
      (k) => ![...(builtBy.get(k.file) ?? [])].some((other) => other !== k) && !this.kustomizations.some((other) => inside(k, other)),
    );
    const byFile = new Map<string, FluxKustomization[]>();
    for (const k of this.kustomizations) byFile.set(k.file, [...(byFile.get(k.file) ?? []), k]);
    const live = new Set<FluxKustomization>(roots);
    const queue = [...roots];
    while (queue.length > 0) {
      for (const file of discovery.get(queue.pop()!) ?? []) {
        for (const child of byFile.get(file) ?? []) {
          if (!live.has(child)) {
            live.add(child);
            queue.push(child);
          }
        }
      }
    }
    return this.kustomizations.filter((k) => live.has(k));
  }

  private isOurs(kustomization: FluxKustomization): boolean {
    return (kustomization.sourceKind ?? 'GitRepository') === 'GitRepository' && (kustomization.sourceName ?? this.mainSource) === this.mainSource;
  }

  private report(problem: GraphProblem): void {
    if (this.discovering) return; // the liveness pass only looks
    const key = `${problem.file}:${problem.span[0]}:${problem.message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push(problem);
  }

  /**
   * The files a Kustomization builds. Only a source that is this repository
   * can be followed: a GitRepository named like most Kustomizations' source
   * (`flux-system`, usually). Another source (an OCI artifact, a second
   * repository) is followed only where its path exists here, and never
   * reported: its files may live elsewhere.
   */
  private filesBuiltBy(kustomization: FluxKustomization): Built {
    const out: Built = new Map();
    const ours = this.isOurs(kustomization);
    const report = (span: [number, number] | null, message: string) => {
      if (ours) this.report({ rule: 'kustomize-reference', file: kustomization.file, span: span ?? kustomization.span, message });
    };
    const path = resolveSpecPath(kustomization.pathAsWritten);
    if (path.variable) {
      // `${CLUSTER}` in a path: the parent's substitution decides; follow only what its defaults name.
      if (path.path !== null && this.dirs.has(path.path)) this.buildFolder(path.path, out, [], []);
      return out;
    }
    const exists = path.path !== null && this.dirs.has(path.path) && (ours || path.path !== '');
    if (path.climbs) {
      const what = exists ? `Flux clamps it to the root and builds "./${path.path}"` : `"./${path.path}", where Flux clamps it, does not exist: the Kustomization fails to build`;
      report(kustomization.pathSpan, `spec.path ${JSON.stringify(kustomization.pathAsWritten)} of Kustomization "${kustomization.name}" points outside the repository (above its root); ${what}.`);
      if (!exists) return out;
    } else if (!exists) {
      report(kustomization.pathSpan, `spec.path ${JSON.stringify(kustomization.pathAsWritten)} of Kustomization "${kustomization.name}" does not exist in the repository: the Kustomization fails to build.`);
      return out;
    }
    this.buildFolder(path.path!, out, [], []);
    for (const component of kustomization.components) {
      if (component.path !== null && this.dirs.has(component.path)) this.buildFolder(component.path, out, [], []);
      else report(component.span, `spec.components entry ${JSON.stringify(component.written)} of Kustomization "${kustomization.name}" does not exist in the repository.`);
    }
    return out;
  }

  private buildFolder(dir: string, out: Built, stack: string[], patches: KustomizationPatch[]): void {
    const config = this.configs.get(dir);
    if (config) return this.buildKustomize(config, out, stack, patches);
    // No kustomization file: Flux generates one over every YAML file below the folder.
    for (const file of this.filesByDir.get(dir) ?? []) if (isYamlPath(file)) out.set(file, patches);
    for (const sub of this.subdirs(dir)) this.buildFolder(sub, out, stack, patches);
  }

  private buildKustomize(config: KustomizeConfig, out: Built, stack: string[], inherited: KustomizationPatch[]): void {
    const next = [...stack, config.file];
    // A kustomization's patches (and those of the components it includes) apply to everything it accumulates.
    const componentConfigs = config.components.map((ref) => (ref.path === null ? undefined : this.configs.get(ref.path))).filter((c): c is KustomizeConfig => !!c);
    const patches = [...inherited, ...config.kustomizationPatches, ...componentConfigs.flatMap((c) => c.kustomizationPatches)];
    // Patch files end up inside the resources they patch, so Flux substitutes their text too.
    for (const patch of config.patches) if (this.files.has(patch)) out.set(patch, patches);
    for (const ref of [...config.resources, ...config.components]) {
      const report = (message: string) => this.report({ rule: 'kustomize-reference', file: config.file, span: ref.span ?? [0, 0], message });
      if (ref.path === null) report(`${JSON.stringify(ref.written)} points outside the repository.`);
      else if (this.files.has(ref.path)) out.set(ref.path, patches);
      else if (this.dirs.has(ref.path)) {
        const sub = this.configs.get(ref.path);
        if (sub && next.includes(sub.file)) report(`kustomize references form a cycle: ${[...next, sub.file].join(' → ')}.`);
        else if (sub) this.buildKustomize(sub, out, next, patches);
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
      // The object lives in the Kustomization's namespace, when both say which.
      const sameNamespace = namespace === null ? candidates : candidates.filter((s) => s.namespace === namespace || s.namespace === null);
      const source = closest(kustomization.file, sameNamespace) ?? closest(kustomization.file, candidates);
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
    if (error) {
      this.report({ rule: 'flux-substitution-syntax', file: located.file, span: located.span, message: `Flux fails every Kustomization that uses this variable: ${error}.` });
    }
  }
}

function rank(file: string): number {
  return KUSTOMIZATION_FILE_NAMES.indexOf(file.slice(file.lastIndexOf('/') + 1));
}

/**
 * The child's own postBuild with what patches add (a patch wins key by key):
 * its parents' `spec.patches`, and kustomize `patches` of the kustomization
 * files the parent built it through.
 */
function effectivePostBuild(child: FluxKustomization, parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }>): PostBuild | null {
  let result = child.postBuild;
  for (const { parent, patches } of parents) {
    for (const patch of [...patches, ...parent.patches]) {
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

/**
 * Several clusters in one repository each keep a `cluster-settings`: the one
 * that shares the longest folder prefix with the Kustomization is its own.
 */
function closest<T extends { file: string }>(file: string, candidates: T[]): T | undefined {
  const segments = file.split('/');
  const shared = (other: string) => {
    const parts = other.split('/');
    let n = 0;
    while (n < parts.length - 1 && n < segments.length - 1 && parts[n] === segments[n]) n++;
    return n;
  };
  return [...candidates].sort((a, b) => shared(b.file) - shared(a.file))[0];
}

/** The name most Kustomizations give their GitRepository source: this repository. */
function mainSourceName(kustomizations: FluxKustomization[]): string {
  const counts = new Map<string, number>();
  for (const k of kustomizations) {
    if ((k.sourceKind ?? 'GitRepository') === 'GitRepository' && k.sourceName) counts.set(k.sourceName, (counts.get(k.sourceName) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'flux-system';
}

function targets(patch: KustomizationPatch, child: FluxKustomization): boolean {
  if (patch.targetKind !== null && patch.targetKind !== 'Kustomization') return false;
  if (patch.targetName !== null && !nameMatches(patch.targetName, child.name)) return false;
  if (patch.targetLabels && !matchesSelector(patch.targetLabels, child.labels)) return false;
  return patch.targetKind !== null || patch.targetName !== null || patch.targetLabels !== null;
}

/**
 * kustomize matches target names as anchored regular expressions (Go's RE2, linear time). JS
 * backtracks: `(a|aa)+$b` against a 50-letter name runs for hours. A pattern that can backtrack
 * badly (a quantified group, a back-reference, more than three quantifiers) is compared as text.
 */
function nameMatches(pattern: string, name: string): boolean {
  const bare = pattern.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  if (/\)[*+?{]/.test(bare) || /\\[1-9]/.test(pattern) || (bare.match(/[*+?]|\{\d/g) ?? []).length > 3) return pattern === name;
  try {
    return new RegExp(`^(?:${pattern})$`).test(name);
  } catch {
    return pattern === name;
  }
}
