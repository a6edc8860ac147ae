// The apply stage: from the roots, which Flux Kustomizations Flux applies,
// what each builds, and with which variables. Several roots (one per cluster)
// are several worlds: a file can be built in one and not in another, or with
// other variables. A Kustomization nothing applies is dead: nothing it would
// build is checked for substitution, and its references are not reported.
//
// Stages (each pure, each in its module): facts (per file, flux/facts/) →
// roots (roots.ts, chosen in root-choice.ts) → source artifacts (artifact.ts,
// sources.ts) → builds (build.ts over layout.ts) → variables (variables.ts) →
// the walk of each world (walk.ts). Everything is indexed by path: no stage
// compares all pairs. This class joins them and answers the questions the
// rules, the editor and the index ask.
import { push } from '../../base/collections';
import type { FileFacts, FluxKustomization, InputFacts, KustomizeConfig, Located, SourceDecl, VariableSource, ArtifactDecl } from '../facts/model';
import type { ArtifactIndex } from './artifact';
import { buildKustomization, type Build, type FluxBuildFailure, type GraphProblem } from './build';
import { KustomizeView, type KustomizeInput } from './kustomize-view';
import { Layout } from './layout';
import { RootChoice } from './root-choice';
import type { FluxConfig, RootCandidate } from './roots';
import { Sources } from './sources';
import { Walk } from './walk';
import type { BuildEntry, Builder, World } from './world';
import type { NeverBuilds } from './gate';
import { helmRefs, type HelmOutsideRef, type HelmRefs } from './helm-refs';

const NO_DEFINERS: ReadonlyMap<string, readonly Builder[]> = new Map();

export interface GraphInput {
  files: ReadonlySet<string>;
  facts: ReadonlyMap<string, FileFacts>;
  /** `.sourceignore` files by path. */
  ignoreFiles: ReadonlyMap<string, string>;
  /** Generator input files the index has read. */
  inputs: ReadonlyMap<string, InputFacts>;
  config: FluxConfig;
  /** What kustomize reads (texts, document headers): with it, kustomize's own build decides failures and opt-outs. */
  kustomize?: KustomizeInput;
}

export class FluxGraph {
  readonly worlds: World[] = [];
  readonly problems: GraphProblem[] = [];
  /** Every Flux Kustomization written in the repository (not those in kustomize patch files). */
  readonly kustomizations: FluxKustomization[] = [];
  /** True when no root was found and the model fell back to "what nothing else builds". */
  fallback = false;
  private readonly entries = new Map<string, BuildEntry[]>();
  private readonly live: Builder[] = [];
  private readonly blocked = new Map<Builder, NeverBuilds>();
  private readonly layout: Layout;
  private readonly variablesByName = new Map<string, Array<VariableSource & { generated?: KustomizeConfig }>>();
  private readonly byFile = new Map<string, FluxKustomization[]>();
  private readonly builds = new Map<string, Build>();
  private readonly reported = new Set<string>();
  private readonly sources: Sources;
  /** kustomize's verdicts (null: the model is not asked, every folder builds as the walk reads it). */
  readonly kustomize: KustomizeView | null;

  constructor(input: GraphInput) {
    this.layout = new Layout(input.files, input.facts);
    this.kustomize = input.kustomize ? new KustomizeView(this.layout, input.kustomize) : null;
    const sources: SourceDecl[] = [];
    const artifactDecls: ArtifactDecl[] = [];
    const variableSources: Array<VariableSource & { generated?: KustomizeConfig }> = [];
    const patchFiles = new Set<string>();
    for (const facts of input.facts.values()) for (const patch of facts.kustomize?.patches ?? []) patchFiles.add(patch);
    for (const [file, facts] of input.facts) {
      // A Kustomization written in a kustomize patch file is a patch, not a resource.
      if (!patchFiles.has(file)) for (const k of facts.kustomizations) this.kustomizations.push(k);
      sources.push(...facts.sources);
      // A FluxInstance sync declares its source too (named after the namespace, with the sync's URL).
      for (const sync of facts.syncs) sources.push({ kind: sync.kind, name: sync.name, namespace: sync.namespace, url: sync.url, ignore: null, file: sync.file, span: sync.span });
      artifactDecls.push(...facts.artifacts);
      variableSources.push(...facts.variableSources);
      if (facts.kustomize) variableSources.push(...generatedSources(facts.kustomize, input.inputs));
    }
    for (const source of variableSources) push(this.variablesByName, `${source.kind}/${source.name}`, source);
    this.kustomizations.sort((a, b) => (a.file + a.name < b.file + b.name ? -1 : a.file + a.name > b.file + b.name ? 1 : a.span[0] - b.span[0]));
    for (const k of this.kustomizations) push(this.byFile, k.file, k);
    this.sources = new Sources(sources, artifactDecls, input.config, input.ignoreFiles);
    const model = {
      ...input,
      layout: this.layout,
      kustomizations: this.kustomizations,
      byFile: this.byFile,
      sources: this.sources,
      variablesByName: this.variablesByName,
      buildOf: (k: FluxKustomization, artifact: ArtifactIndex) => this.buildOf(k, artifact),
      report: (problem: GraphProblem) => this.report(problem),
      worlds: this.worlds,
      entries: this.entries,
      live: this.live,
      blocked: this.blocked,
      declaredNames: new Set(this.kustomizations.map((k) => k.name)),
    };
    const roots = new RootChoice(model);
    const chosen = roots.choose();
    this.fallback = roots.fallback;
    new Walk(model).apply(chosen);
    this.reportFailures();
    this.reportNothingApplied(chosen);
    this.helm = helmRefs({
      worlds: this.worlds,
      live: this.live,
      facts: input.facts,
      entries: this.entries,
      artifactOf: (b) => this.artifactOf(b),
      sourceUrl: (b) => this.sources.declaredSource(b.kustomization.sourceKind, b.kustomization.sourceName ?? '', b.kustomization.file)?.url ?? null,
      view: this.kustomize,
      config: input.config,
    });
    for (const problem of this.helm.problems) this.report(problem);
  }

  private readonly helm: HelmRefs;

  /**
   * Flux Kustomizations are written here, yet from the roots chosen Flux applies none of the
   * repository's files: an audit that checked nothing must not pass as clean. Said once.
   */
  private reportNothingApplied(roots: readonly RootCandidate[]): void {
    if (this.kustomizations.length === 0 || [...this.entries.values()].some((entries) => entries.some((entry) => entry.role === 'resource'))) return;
    // Where the model already said why (a root that fails, waits forever or starts from nothing), that is the one finding.
    if (this.problems.some((problem) => problem.kind !== 'assumed-root')) return;
    const first = this.kustomizations[0];
    const from =
      roots.length === 0 ? 'no root was found' : `the roots found (${roots.map((root) => `"${root.kustomization.path ?? root.kustomization.pathAsWritten}"`).join(', ')}) apply none of them`;
    this.report({
      kind: 'assumed-root',
      severity: 'warning',
      file: first.file,
      span: first.span,
      message: `${this.kustomizations.length} Flux Kustomization(s) are written here, but ${from}: no file of this repository was checked as Flux applies it. Name the folders Flux starts from in flux.roots.`,
    });
  }

  /** The references of live HelmReleases that nothing of their world creates, declared in the contract or not. */
  helmOutside(): readonly HelmOutsideRef[] {
    return this.helm.outside;
  }

  /** The artifact a live Kustomization builds from in its world (null: another repository's). */
  artifactOf(builder: Builder): ArtifactIndex | null {
    return this.sources.artifactIn(builder.kustomization, builder.world);
  }

  /** Whether a live Kustomization whose build fails reads the file (Flux reads it, then fails). */
  readByFailingBuild(file: string): boolean {
    return this.readByFailingBuilds.has(file);
  }

  /**
   * The live Kustomizations whose build fails because this file is not valid YAML, sorted (empty:
   * none). The file's yaml-syntax error says so; no second finding repeats it.
   */
  failedByYamlOf(file: string): readonly string[] {
    return this.failedByYaml.get(file) ?? [];
  }

  private readonly readByFailingBuilds = new Set<string>();
  private readonly failedByYaml = new Map<string, string[]>();

  /** Everything that builds `file`, in every world, with the role the file plays. */
  entriesOf(file: string): readonly BuildEntry[] {
    return this.entries.get(file) ?? [];
  }

  /** The Kustomizations that apply `file` as a resource (or patch one with it). */
  buildersOf(file: string): Builder[] {
    const out: Builder[] = [];
    for (const entry of this.entriesOf(file)) if ((entry.role === 'resource' || entry.role === 'patch') && !out.includes(entry.builder)) out.push(entry.builder);
    return out;
  }

  /** Whether a live Kustomization applies the file's documents as resources. */
  isApplied(file: string): boolean {
    return this.entriesOf(file).some((entry) => entry.role === 'resource');
  }

  hasDir(path: string): boolean {
    return this.layout.hasDir(path);
  }

  /** Whether the repository declares (or a generator makes) a ConfigMap or Secret of that name. */
  declaresObject(kind: 'ConfigMap' | 'Secret', name: string): boolean {
    return this.variablesByName.has(`${kind}/${name}`);
  }

  /** Every file with what builds it. */
  allEntries(): IterableIterator<[string, BuildEntry[]]> {
    return this.entries.entries();
  }

  /** Every live Kustomization, once per world. */
  liveBuilders(): Builder[] {
    return this.live;
  }

  private definersByWorld: Map<number, Map<string, Builder[]>> | null = null;

  /** The live Kustomizations of `world` that build this repository and whose postBuild substitutes and defines each name (indexed once per graph). */
  definersIn(world: World): ReadonlyMap<string, readonly Builder[]> {
    if (!this.definersByWorld) {
      this.definersByWorld = new Map();
      for (const builder of this.live) {
        // Another repository's Kustomization says nothing of the names this one uses.
        if (!builder.vars?.substitutes || this.artifactOf(builder) === null) continue;
        let byName = this.definersByWorld.get(builder.world.index);
        if (!byName) this.definersByWorld.set(builder.world.index, (byName = new Map<string, Builder[]>()));
        for (const defined of builder.vars.defined.keys()) {
          const list = byName.get(defined);
          if (list) list.push(builder);
          else byName.set(defined, [builder]);
        }
      }
    }
    return this.definersByWorld.get(world.index) ?? NO_DEFINERS;
  }

  /** Kustomizations a world applies that never build there (the dependsOn gate), with why. */
  neverBuilds(): ReadonlyMap<Builder, NeverBuilds> {
    return this.blocked;
  }

  private buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build {
    const key = `${artifact.artifact.key}|${k.file}|${k.span[0]}|${k.name}|${k.pathAsWritten}`;
    let build = this.builds.get(key);
    if (!build) this.builds.set(key, (build = this.withKustomize(k, artifact, buildKustomization(k, artifact, this.layout))));
    return build;
  }

  /**
   * kustomize decides about the folders: where it builds, the walk's own warnings about them go;
   * where it fails, the Kustomization applies nothing (one error per failing entry, reportFailures).
   */
  private withKustomize(k: FluxKustomization, artifact: ArtifactIndex, built: Build): Build {
    const view = this.kustomize;
    const { fails } = built;
    if (!view || !view.answers(k, artifact)) return { files: built.files, problems: [...built.problems, ...built.treeProblems], treeProblems: [], fails };
    const failure = view.failure(k, artifact);
    if (!failure) return { files: built.files, problems: built.problems, treeProblems: [], fails };
    return { files: new Map(), attempted: built.files, problems: built.problems, treeProblems: [], failure, fails };
  }

  /** One error per failing entry, naming every live Kustomization whose build it fails (in any world). */
  private reportFailures(): void {
    const failures = new Map<string, { failure: FluxBuildFailure; names: Set<string> }>();
    for (const builder of this.live) {
      const artifact = this.artifactOf(builder);
      const build = artifact ? this.buildOf(builder.kustomization, artifact) : undefined;
      const failure = build?.failure;
      if (!failure) continue;
      for (const file of build.attempted?.keys() ?? []) this.readByFailingBuilds.add(file);
      const key = `${failure.file}|${failure.span[0]}|${failure.span[1]}|${failure.reason}`;
      let entry = failures.get(key);
      if (!entry) failures.set(key, (entry = { failure, names: new Set() }));
      entry.names.add(builder.kustomization.name);
    }
    for (const { failure, names } of failures.values()) {
      if (isYamlFailure(failure)) {
        this.failedByYaml.set(failure.file, [...names].sort());
        continue;
      }
      const who = [...names].sort().map((name) => `"${name}"`);
      const message = `kustomize cannot build ${failure.dir === '' ? 'the repository root' : `"${failure.dir}"`}: ${failure.message}${failure.excludedBy ? ` (the source artifact leaves it out: ${failure.excludedBy})` : ''}. Kustomization ${who.join(', ')} ${who.length === 1 ? 'fails' : 'fail'} and ${who.length === 1 ? 'applies' : 'apply'} nothing${hint(failure)}.`;
      this.report({ kind: 'broken-reference', severity: 'error', file: failure.file, span: failure.span, message });
    }
  }

  private report(problem: GraphProblem): void {
    const key = `${problem.kind}:${problem.file}:${problem.span[0]}:${problem.message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push(problem);
  }
}

/** A resource file kustomize's YAML decoder refuses: the file's yaml-syntax error is where the user learns it. */
function isYamlFailure(failure: FluxBuildFailure): boolean {
  return failure.reason === 'invalid-resource' && failure.message.includes('MalformedYAMLError');
}

/** What to do about a failure kustomize's message does not say plainly. */
function hint(failure: FluxBuildFailure): string {
  if (failure.reason === 'component-as-resource') return ' (a Component folder belongs under `components:`, not `resources:`)';
  if (failure.reason === 'kustomization-as-component') return ' (a folder with a Kustomization belongs under `resources:`, not `components:`)';
  if (failure.reason === 'duplicate-id') return ' (one build may hold each resource once)';
  return '';
}

/** The ConfigMaps and Secrets a kustomization's generators make, as variable sources. */
function generatedSources(config: KustomizeConfig, inputs: ReadonlyMap<string, InputFacts>): Array<VariableSource & { generated: KustomizeConfig }> {
  return config.generators.map((generator) => {
    const entries = new Map<string, Located<string>>();
    for (const input of generator.inputs) {
      if (input.kind === 'env' && input.path) for (const [name, located] of inputs.get(input.path)?.env ?? []) entries.set(name, located);
      else if (input.key && input.path) entries.set(input.key, { value: `(the content of ${input.path})`, file: config.file, span: input.span ?? generator.span });
    }
    for (const literal of generator.literals) entries.set(literal.key, { value: literal.value, file: config.file, span: literal.span });
    return { kind: generator.kind, name: generator.name, namespace: generator.namespace ?? config.namespace, file: config.file, entries, secret: generator.kind === 'Secret', generated: config };
  });
}
