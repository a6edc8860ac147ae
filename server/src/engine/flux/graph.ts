// The apply stage: from the roots, which Flux Kustomizations Flux applies,
// what each builds, and with which variables. Several roots (one per cluster)
// are several worlds: a file can be built in one and not in another, or with
// other variables. A Kustomization nothing applies is dead: nothing it would
// build is checked for substitution, and its references are not reported.
//
// Stages (each pure, each in its module): facts (per file) → roots (roots.ts)
// → source artifacts (artifact.ts) → builds (build.ts) → variables
// (variables.ts). Everything is indexed by path: no stage compares all pairs.
import { basenameOf, dirnameOf } from '../paths';
import { Artifact, ArtifactIndex, inRepository, makeArtifact } from './artifact';
import { BuiltFile, buildKustomization, Build, GraphProblem, RepoLayout } from './build';
import type { FileFacts, FluxKustomization, KustomizationPatch, KustomizeConfig, Located, PostBuild, SubstituteFromRef, VariableSource } from './facts';
import { KUSTOMIZATION_FILE_NAMES } from './facts';
import { matchesSelector } from './label-selector';
import { FluxConfig, RootCandidate, sameRepository, SourceIdentity, syncCandidate, syntheticKustomization } from './roots';
import type { ArtifactDecl, SourceDecl } from './start-facts';
import { byCloseness, resolveVars, VarSet } from './variables';

export type { GraphProblem, VarSet };
export type { DefinedVariable } from './variables';

export interface World {
  index: number;
  /** How people name it: the root's path (a cluster folder, usually). */
  label: string;
  how: RootCandidate['how'];
  root: FluxKustomization;
  source: SourceIdentity;
  /** How many worlds the repository has (messages name the world only when there are several). */
  count: number;
}

export interface Builder {
  kustomization: FluxKustomization;
  /** The effective postBuild (own, plus what parents patch in), null without one. */
  postBuild: PostBuild | null;
  /** null: nothing substitutes what this Kustomization builds (no postBuild, no webhook). */
  vars: VarSet | null;
  world: World;
}

export interface BuildEntry extends BuiltFile {
  builder: Builder;
}

/** What a generator input file holds for the model: its KEY=VALUE lines, and the `${NAME}`s its text uses. */
export interface InputFacts {
  env: Map<string, Located<string>>;
  /** Names without a default in the whole text (a `files:` input), and in the values of its KEY=VALUE lines (an `envs:` input). */
  uses: string[];
  envUses: string[];
}

export interface GraphInput {
  files: ReadonlySet<string>;
  facts: ReadonlyMap<string, FileFacts>;
  /** `.sourceignore` files by path. */
  ignoreFiles: ReadonlyMap<string, string>;
  /** Generator input files the index has read. */
  inputs: ReadonlyMap<string, InputFacts>;
  config: FluxConfig;
}

const REPOSITORY_ARTIFACT_KEY = 'repository';

export class FluxGraph {
  readonly worlds: World[] = [];
  readonly problems: GraphProblem[] = [];
  /** Every Flux Kustomization written in the repository (not those in kustomize patch files). */
  readonly kustomizations: FluxKustomization[] = [];
  /** True when no root was found and the model fell back to "what nothing else builds". */
  fallback = false;
  private readonly entries = new Map<string, BuildEntry[]>();
  private readonly layout: Layout;
  private readonly sources: SourceDecl[] = [];
  private readonly artifactDecls: ArtifactDecl[] = [];
  private readonly variableSources: Array<VariableSource & { generated?: KustomizeConfig }> = [];
  private readonly variablesByName = new Map<string, Array<VariableSource & { generated?: KustomizeConfig }>>();
  private readonly byFile = new Map<string, FluxKustomization[]>();
  private readonly artifacts = new Map<string, ArtifactIndex>();
  private readonly builds = new Map<string, Build>();
  private readonly reported = new Set<string>();

  constructor(private readonly input: GraphInput) {
    this.layout = new Layout(input.files, input.facts);
    const patchFiles = new Set<string>();
    for (const facts of input.facts.values()) for (const patch of facts.kustomize?.patches ?? []) patchFiles.add(patch);
    for (const [file, facts] of input.facts) {
      // A Kustomization written in a kustomize patch file is a patch, not a resource.
      if (!patchFiles.has(file)) for (const k of facts.kustomizations) this.kustomizations.push(k);
      this.sources.push(...facts.sources);
      // A FluxInstance sync declares its source too (named after the namespace, with the sync's URL).
      for (const sync of facts.syncs) this.sources.push({ kind: sync.kind, name: sync.name, namespace: sync.namespace, url: sync.url, ignore: null, file: sync.file, span: sync.span });
      this.artifactDecls.push(...facts.artifacts);
      this.variableSources.push(...facts.variableSources);
      if (facts.kustomize) this.variableSources.push(...generatedSources(facts.kustomize, input.inputs));
    }
    for (const source of this.sources) push(this.sourcesByName, `${source.kind}/${source.name}`, source);
    for (const source of this.variableSources) push(this.variablesByName, `${source.kind}/${source.name}`, source);
    this.kustomizations.sort((a, b) => (a.file + a.name < b.file + b.name ? -1 : a.file + a.name > b.file + b.name ? 1 : a.span[0] - b.span[0]));
    for (const k of this.kustomizations) push(this.byFile, k.file, k);
    this.apply(this.chooseRoots());
  }

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

  private live: Builder[] = [];

  // ---- roots ------------------------------------------------------------------

  private chooseRoots(): RootCandidate[] {
    const { config } = this.input;
    if (config.roots.length > 0) return config.roots.map((root) => this.contractRoot(root));
    const unresolved: string[] = [];
    const syncs: RootCandidate[] = [];
    for (const facts of this.input.facts.values()) {
      for (const sync of facts.syncs) {
        const candidate = syncCandidate(sync, config, (path) => this.layout.foldersHolding(path));
        if ('unresolved' in candidate) unresolved.push(candidate.unresolved);
        else syncs.push(candidate);
      }
    }
    const bootstraps = [...new Set([...this.selfApplying(), ...this.bootstrapSyncs()]), ...this.bootstrapPlaceholders()].map((k): RootCandidate => ({
      how: 'bootstrap',
      kustomization: k,
      source: this.identityOf(k),
      declaredIn: null,
      assumption: null,
    }));
    // A sync is current when a world applies the file it is written in (the FluxInstance manages itself).
    const reach = new Map<RootCandidate, Set<string>>();
    for (const candidate of [...bootstraps, ...syncs]) reach.set(candidate, this.reachOf(candidate));
    const appliedAnywhere = (file: string) => [...reach.values()].some((files) => files.has(file));
    let current = syncs.filter((sync) => appliedAnywhere(sync.declaredIn!));
    if (current.length === 0 && bootstraps.length === 0) current = syncs;
    const candidates = dedupe([...bootstraps, ...current], reach);
    if (candidates.length > 0) {
      for (const candidate of candidates)
        if (candidate.assumption) this.report({ rule: 'flux-no-root', file: candidate.kustomization.file, span: candidate.kustomization.span, message: candidate.assumption, severity: 'info' });
      return candidates;
    }
    return this.fallbackRoots(unresolved);
  }

  private contractRoot(root: FluxConfig['roots'][number]): RootCandidate {
    const probe = syntheticKustomization('flux-system', 'flux-system', root.file, root.span, root.path, 'GitRepository', '');
    // "This repository" is the GitRepository the Kustomizations right under the root name most.
    const counts = new Map<string, number>();
    const build = this.buildOf(probe, this.repositoryArtifact(null));
    for (const file of build.files.keys()) {
      for (const child of this.byFile.get(file) ?? []) {
        if (child.sourceKind === 'GitRepository' && child.sourceName) counts.set(child.sourceName, (counts.get(child.sourceName) ?? 0) + 1);
      }
    }
    const name = mostCommon(counts) ?? 'flux-system';
    const kustomization = { ...probe, sourceName: name };
    return {
      how: 'contract',
      kustomization,
      source: { kind: 'GitRepository', name, namespace: null, url: this.declaredSource('GitRepository', name, root.file)?.url ?? null, folder: null },
      declaredIn: null,
      assumption: null,
    };
  }

  /** No root: every Kustomization (of the most used GitRepository) that no other builds and that lies outside every other's path. */
  private fallbackRoots(unresolved: string[]): RootCandidate[] {
    if (this.kustomizations.length === 0) return [];
    this.fallback = true;
    const counts = new Map<string, number>();
    for (const k of this.kustomizations) if (k.sourceKind === 'GitRepository' && k.sourceName) counts.set(k.sourceName, (counts.get(k.sourceName) ?? 0) + 1);
    const name = mostCommon(counts) ?? 'flux-system';
    const ours = this.kustomizations.filter((k) => k.sourceKind === 'GitRepository' && (k.sourceName ?? name) === name);
    const source: SourceIdentity = { kind: 'GitRepository', name, namespace: null, url: null, folder: null };
    const artifact = this.repositoryArtifact(name);
    const builtByOther = new Set<FluxKustomization>();
    const paths = new Map<string, FluxKustomization[]>();
    for (const k of ours) {
      if (k.path !== null) push(paths, k.path, k);
      for (const file of this.buildOf(k, artifact).files.keys()) for (const child of this.byFile.get(file) ?? []) if (child !== k) builtByOther.add(child);
    }
    const insideAnother = (k: FluxKustomization) => {
      for (let dir = dirnameOf(k.file); ; dir = dirnameOf(dir)) {
        if ((paths.get(dir) ?? []).some((other) => other !== k)) return true;
        if (dir === '') return false;
      }
    };
    const first = this.kustomizations[0];
    const why = unresolved.length > 0 ? ` (${unresolved.join('; ')})` : '';
    this.report({
      rule: 'flux-no-root',
      file: first.file,
      span: first.span,
      severity: 'info',
      message: `No root found: no gotk-sync.yaml or other Kustomization that applies itself, no FluxInstance sync, no flux.roots in the contract${why}. Every Kustomization that nothing else here builds is taken as a root; name the folders Flux starts from in flux.roots to check exactly what Flux applies.`,
    });
    return ours.filter((k) => !builtByOther.has(k) && !insideAnother(k)).map((k): RootCandidate => ({ how: 'fallback', kustomization: k, source, declaredIn: null, assumption: null }));
  }

  /**
   * Kustomizations that apply themselves: on a cycle of "builds the file of"
   * through Kustomizations of one source (bootstrap's flux-system, which builds
   * the folder holding its own gotk-sync.yaml). Tarjan's SCC, linear in edges.
   */
  private selfApplying(): FluxKustomization[] {
    const edges = new Map<FluxKustomization, FluxKustomization[]>();
    for (const k of this.kustomizations) {
      const artifact = this.ownArtifact(k);
      if (!artifact) continue;
      const children: FluxKustomization[] = [];
      for (const [file, built] of this.buildOf(k, artifact).files) {
        if (!built.some((entry) => entry.role === 'resource')) continue;
        for (const child of this.byFile.get(file) ?? []) if (child.sourceKind === k.sourceKind && child.sourceName === k.sourceName) children.push(child);
      }
      edges.set(k, children);
    }
    const sizes = componentSizes(this.kustomizations, (k) => edges.get(k) ?? []);
    return this.kustomizations.filter((k) => sizes.get(k)! > 1 || (edges.get(k) ?? []).includes(k));
  }

  /** The files a candidate's world applies (for the checks between candidates). */
  private reachOf(candidate: RootCandidate): Set<string> {
    const files = new Set<string>();
    const seen = new Set<FluxKustomization>([candidate.kustomization]);
    const queue = [candidate.kustomization];
    const world = { source: candidate.source };
    while (queue.length > 0) {
      const k = queue.pop()!;
      const artifact = this.artifactIn(k, world);
      if (!artifact) continue;
      for (const [file, built] of this.buildOf(k, artifact).files) {
        files.add(file);
        if (!built.some((entry) => entry.role === 'resource')) continue;
        for (const child of this.byFile.get(file) ?? []) {
          if (seen.has(child)) continue;
          seen.add(child);
          queue.push(child);
        }
      }
    }
    return files;
  }

  // ---- sources and artifacts ----------------------------------------------------

  private identityOf(k: FluxKustomization): SourceIdentity {
    const name = k.sourceName ?? '';
    return { kind: k.sourceKind, name, namespace: k.sourceNamespace ?? k.namespace, url: this.declaredSource(k.sourceKind, name, k.file)?.url ?? null, folder: this.ownFolder(k) };
  }

  /**
   * The folder that is the Kustomization's own Git repository, when its path builds its file only
   * from there (`repos/gitops-system/clusters/mgmt/flux-system/gotk-sync.yaml` with path
   * `./clusters/mgmt`: the folder repos/gitops-system is pushed as a repository of its own), and
   * its GitRepository's URL names a repository called like that folder. (An archived copy of a
   * cluster folder fits the path too, but its source is the repository itself.)
   */
  private ownFolder(k: FluxKustomization): string | null {
    let folder = this.ownFolders.get(k);
    if (folder === undefined) this.ownFolders.set(k, (folder = this.findOwnFolder(k)));
    return folder;
  }

  private readonly ownFolders = new Map<FluxKustomization, string | null>();

  private findOwnFolder(k: FluxKustomization): string | null {
    if (k.sourceKind !== 'GitRepository' || k.path === null) return null;
    const dir = dirnameOf(k.file);
    if (k.path === '' || dir === k.path || dir.startsWith(k.path + '/')) return null;
    const repositoryName = repositoryNameOf(this.declaredSource('GitRepository', k.sourceName ?? '', k.file)?.url ?? null);
    for (let root = dirnameOf(dir); root !== ''; root = dirnameOf(root)) {
      const inside = `${root}/${k.path}`;
      if ((dir === inside || dir.startsWith(inside + '/')) && basenameOf(root) === repositoryName) return root;
    }
    return null;
  }

  /**
   * What `flux bootstrap` writes (P/flux-system/gotk-sync.yaml) is applied by bootstrap itself,
   * whether or not P's kustomization lists flux-system/ again: its Kustomizations whose path exists.
   */
  private bootstrapSyncs(): FluxKustomization[] {
    const found: FluxKustomization[] = [];
    for (const [file, ks] of this.byFile) {
      if (!/(^|\/)flux-system\/gotk-sync\.yaml$/.test(file)) continue;
      for (const k of ks) {
        const artifact = this.ownArtifact(k);
        if (artifact && k.path !== null && this.layout.hasDir(inRepository(artifact.artifact, k.path))) found.push(k);
      }
    }
    return found;
  }

  /**
   * What `flux bootstrap --path=P` stands for when its sync file is a placeholder (a
   * P/flux-system/gotk-sync.yaml without a Kustomization in it): a Kustomization flux-system that
   * applies P, from the GitRepository flux-system.
   */
  private bootstrapPlaceholders(): FluxKustomization[] {
    const found: FluxKustomization[] = [];
    for (const file of this.input.files) {
      const match = /^(?:(.*)\/)?flux-system\/gotk-sync\.yaml$/.exec(file);
      if (!match) continue;
      if ((this.byFile.get(file) ?? []).length > 0) continue;
      const path = match[1] ?? '';
      found.push(syntheticKustomization('flux-system', 'flux-system', file, [0, 0], path, 'GitRepository', 'flux-system'));
    }
    return found;
  }

  /** The source object of that kind and name nearest to `file` (several clusters declare their own flux-system). */
  private declaredSource(kind: string, name: string, file: string): SourceDecl | undefined {
    const named = this.sourcesByName.get(`${kind}/${name}`);
    if (!named || named.length < 2) return named?.[0];
    // Several clusters declare their own flux-system: the nearest one (by folder), memoized per folder.
    const key = `${kind}/${name}|${dirnameOf(file)}`;
    let found = this.nearestSource.get(key);
    if (found === undefined) this.nearestSource.set(key, (found = byCloseness(file, named)[0]));
    return found;
  }

  private readonly sourcesByName = new Map<string, SourceDecl[]>();
  private readonly nearestSource = new Map<string, SourceDecl>();

  private repositoryArtifact(sourceName: string | null, near = ''): ArtifactIndex {
    const decl = sourceName === null ? undefined : this.declaredSource('GitRepository', sourceName, near);
    const key = decl ? `${REPOSITORY_ARTIFACT_KEY}:${decl.file}:${decl.span[0]}` : REPOSITORY_ARTIFACT_KEY;
    return this.artifact(key, () =>
      makeArtifact(
        key,
        decl ? `GitRepository ${decl.name}` : 'the repository',
        '',
        this.input.ignoreFiles,
        decl?.ignore ?? null,
        decl ? `spec.ignore of GitRepository ${decl.name} (${decl.file})` : '',
      ),
    );
  }

  private folderArtifact(kind: string, name: string, folder: string, decl?: SourceDecl): ArtifactIndex {
    const key = `folder:${kind}/${name}:${folder}:${decl?.file ?? ''}`;
    return this.artifact(key, () =>
      makeArtifact(key, `${kind} ${name} (${folder}/)`, folder, this.input.ignoreFiles, decl?.ignore ?? null, decl ? `spec.ignore of ${kind} ${name} (${decl.file})` : ''),
    );
  }

  private artifact(key: string, make: () => Artifact): ArtifactIndex {
    let index = this.artifacts.get(key);
    if (!index) this.artifacts.set(key, (index = new ArtifactIndex(make())));
    return index;
  }

  /** The artifact a Kustomization builds from when its own source is taken to be this repository. */
  private ownArtifact(k: FluxKustomization): ArtifactIndex | null {
    const mapped = this.mappedSource(k);
    if (mapped) return mapped;
    if (k.sourceKind !== 'GitRepository') return null;
    const folder = this.ownFolder(k);
    return folder === null
      ? this.repositoryArtifact(k.sourceName, k.file)
      : this.folderArtifact(k.sourceKind, k.sourceName ?? '', folder, this.declaredSource(k.sourceKind, k.sourceName ?? '', k.file));
  }

  private mappedSource(k: FluxKustomization): ArtifactIndex | null {
    const mapped = this.input.config.sources.find(
      (s) => s.kind === k.sourceKind && s.name === k.sourceName && (s.namespace === null || (k.sourceNamespace ?? k.namespace) === null || s.namespace === (k.sourceNamespace ?? k.namespace)),
    );
    return mapped ? this.folderArtifact(mapped.kind, mapped.name, mapped.path) : null;
  }

  /** The artifact `k` builds from in a world, or null when its source is not this repository there. */
  private artifactIn(k: FluxKustomization, world: { source: SourceIdentity }): ArtifactIndex | null {
    const mapped = this.mappedSource(k);
    if (mapped) return mapped;
    const { source } = world;
    const sameName = k.sourceKind === source.kind && (k.sourceName ?? source.name) === source.name;
    const namespace = k.sourceNamespace ?? k.namespace;
    if (sameName && (namespace === null || source.namespace === null || namespace === source.namespace)) {
      if (source.folder !== null) return this.folderArtifact(source.kind, source.name, source.folder, this.declaredSource(source.kind, source.name, k.file));
      return source.kind === 'GitRepository' ? this.repositoryArtifact(source.name, k.file) : null;
    }
    if (k.sourceKind === 'ExternalArtifact') return this.generatedArtifact(k, world);
    // Another GitRepository object for the same repository (another branch, a ResourceSet's preview).
    if (k.sourceKind === 'GitRepository' && source.url && k.sourceName) {
      const decl = this.declaredSource('GitRepository', k.sourceName, k.file);
      if (decl && sameRepository(decl.url, source.url)) return this.repositoryArtifact(k.sourceName, k.file);
    }
    return null;
  }

  /** An ArtifactGenerator's ExternalArtifact made of folders of this world's source, copied where they were. */
  private generatedArtifact(k: FluxKustomization, world: { source: SourceIdentity }): ArtifactIndex | null {
    const namespace = k.sourceNamespace ?? k.namespace;
    const decl = this.artifactDecls.find((d) => d.name === k.sourceName && (namespace === null || d.namespace === null || d.namespace === namespace));
    if (!decl || decl.copies.length === 0) return null;
    const folders: string[] = [];
    let base: ArtifactIndex | null = null;
    for (const copy of decl.copies) {
      const from = copy.from.replace(/\*\*\/?$/, '').replace(/\/+$/, '');
      const to = copy.to.replace(/\*\*\/?$/, '').replace(/\/+$/, '');
      const probe = syntheticKustomization('', namespace, k.file, k.span, '', copy.kind, copy.sourceName);
      const artifact = from === to && !/[*?[]/.test(from) ? this.artifactIn({ ...probe, sourceNamespace: copy.sourceNamespace }, world) : null;
      if (!artifact || (base && base !== artifact)) return null; // a copy that moves files, or from another source: not followed
      base = artifact;
      folders.push(inRepository(artifact.artifact, from));
    }
    const source = base!.artifact;
    const key = `generated:${decl.file}:${decl.name}`;
    return this.artifact(key, () => ({ ...source, key, label: `ExternalArtifact ${decl.name}`, include: folders }));
  }

  private buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build {
    const key = `${artifact.artifact.key}|${k.file}|${k.span[0]}|${k.name}|${k.pathAsWritten}`;
    let build = this.builds.get(key);
    if (!build) this.builds.set(key, (build = buildKustomization(k, artifact, this.layout)));
    return build;
  }

  // ---- worlds -----------------------------------------------------------------

  private apply(roots: RootCandidate[]): void {
    const webhookRefs = this.input.config.substituteFrom;
    roots.forEach((candidate, index) => {
      // Without a root the fallback's roots are not clusters: one world, as far as messages go.
      const count = candidate.how === 'fallback' ? 1 : roots.length;
      const world: World = {
        index,
        label: candidate.kustomization.path || candidate.kustomization.pathAsWritten || '(root)',
        how: candidate.how,
        root: candidate.kustomization,
        source: candidate.source,
        count,
      };
      this.worlds.push(world);
      const builders = this.walk(world, candidate);
      const applied = (file: string) => (this.entries.get(file) ?? []).some((entry) => entry.builder.world === world);
      const webhooks = [...webhookRefs, ...this.detectedWebhooks(applied)];
      for (const { builder, parents } of builders) this.resolve(builder, parents, webhooks, applied);
    });
  }

  /** Breadth-first from the root: each live Kustomization once, with the parents that build it. */
  private walk(world: World, candidate: RootCandidate): Array<{ builder: Builder; parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }> }> {
    const found = new Map<FluxKustomization, { builder: Builder; parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }> }>();
    const visit = (k: FluxKustomization) => {
      let node = found.get(k);
      if (!node) found.set(k, (node = { builder: { kustomization: k, postBuild: null, vars: null, world }, parents: [] }));
      return node;
    };
    visit(candidate.kustomization);
    const queue = [candidate.kustomization];
    while (queue.length > 0) {
      const k = queue.shift()!;
      const builder = found.get(k)!.builder;
      const artifact = this.artifactIn(k, world);
      if (!artifact) continue; // another source: its files are not in this repository
      const build = this.buildOf(k, artifact);
      // A contract root that names no folder is the contract check's finding (contract-file-missing).
      for (const problem of build.problems) if (!(candidate.how === 'contract' && k === candidate.kustomization)) this.report(problem);
      for (const [file, built] of build.files) {
        for (const entry of built) push(this.entries, file, { ...entry, builder });
        const resource = built.find((entry) => entry.role === 'resource');
        if (!resource) continue;
        for (const child of this.byFile.get(file) ?? []) {
          if (child === k) continue;
          const isNew = !found.has(child);
          visit(child).parents.push({ parent: k, patches: resource.patches });
          if (isNew) queue.push(child);
        }
      }
    }
    this.live.push(...[...found.values()].map((node) => node.builder));
    return [...found.values()];
  }

  private detectedWebhooks(applied: (file: string) => boolean): SubstituteFromRef[] {
    const refs: SubstituteFromRef[] = [];
    for (const facts of this.input.facts.values()) for (const webhook of facts.webhooks) if (applied(webhook.file)) refs.push(...webhook.substituteFrom);
    return refs;
  }

  private resolve(builder: Builder, parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }>, webhooks: SubstituteFromRef[], applied: (file: string) => boolean): void {
    const k = builder.kustomization;
    const own = effectivePostBuild(k, parents);
    builder.postBuild = own;
    if (!own && webhooks.length === 0) return;
    const postBuild = own ?? { substitute: new Map(), substituteFrom: [], always: false };
    const namespace = k.namespace;
    builder.vars = resolveVars(k.name, postBuild, webhooks, {
      external: this.input.config.variables,
      declared: this.input.config.declaredSources,
      namespace,
      candidates: (ref) => {
        // The same for every Kustomization of a folder and namespace in a world: computed once.
        let memo = this.candidateMemo.get(applied);
        if (!memo) this.candidateMemo.set(applied, (memo = new Map<string, VariableSource[]>()));
        const key = `${ref.kind}/${ref.name}|${namespace}|${dirnameOf(k.file)}`;
        let found = memo.get(key);
        if (!found) {
          const named = this.variablesByName.get(`${ref.kind}/${ref.name}`) ?? [];
          const inNamespace = namespace === null ? named : named.filter((s) => s.namespace === null || s.namespace === namespace);
          const pool = inNamespace.length > 0 ? inNamespace : named;
          const live = pool.filter((s) => applied(s.generated ? s.generated.file : s.file));
          memo.set(
            key,
            (found = [
              ...byCloseness(k.file, live),
              ...byCloseness(
                k.file,
                pool.filter((s) => !live.includes(s)),
              ),
            ]),
          );
        }
        return found;
      },
      invalidName: (name, located, error) =>
        this.report({ rule: 'flux-substitution-syntax', file: located.file, span: located.span, message: `Flux fails every Kustomization that uses this variable: ${error}.` }),
    });
  }

  private readonly candidateMemo = new WeakMap<(file: string) => boolean, Map<string, VariableSource[]>>();

  private report(problem: GraphProblem): void {
    const key = `${problem.rule}:${problem.file}:${problem.span[0]}:${problem.message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push(problem);
  }
}

/** The repository's folders and files, indexed for the build stage. */
class Layout implements RepoLayout {
  private readonly filesByDir = new Map<string, string[]>();
  private readonly dirs = new Set<string>(['']);
  private readonly childDirs = new Map<string, string[]>();
  private readonly configs = new Map<string, KustomizeConfig>();

  constructor(
    private readonly files: ReadonlySet<string>,
    facts: ReadonlyMap<string, FileFacts>,
  ) {
    for (const file of files) {
      const dir = dirnameOf(file);
      push(this.filesByDir, dir, file);
      for (let d = dir; d !== '' && !this.dirs.has(d); d = dirnameOf(d)) {
        this.dirs.add(d);
        push(this.childDirs, dirnameOf(d), d);
      }
    }
    for (const fileFacts of facts.values()) {
      const config = fileFacts.kustomize;
      if (!config) continue;
      const dir = dirnameOf(config.file);
      const existing = this.configs.get(dir);
      if (!existing || rank(config.file) < rank(existing.file)) this.configs.set(dir, config);
    }
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }
  hasDir(path: string): boolean {
    return this.dirs.has(path);
  }
  filesIn(dir: string): readonly string[] {
    return this.filesByDir.get(dir) ?? [];
  }
  subdirs(dir: string): readonly string[] {
    return this.childDirs.get(dir) ?? [];
  }
  configIn(dir: string): KustomizeConfig | undefined {
    return this.configs.get(dir);
  }

  /** The folders F for which `F/path` is a folder of the repository. */
  foldersHolding(path: string): string[] {
    const out: string[] = [];
    if (path === '') return [''];
    for (const dir of this.dirs) {
      if (dir === path) out.push('');
      else if (dir.endsWith('/' + path)) out.push(dir.slice(0, dir.length - path.length - 1));
    }
    return out;
  }
}

function rank(file: string): number {
  return KUSTOMIZATION_FILE_NAMES.indexOf(file.slice(file.lastIndexOf('/') + 1));
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
      const added = patch.postBuild;
      result = {
        substitute: new Map([...(result?.substitute ?? []), ...added.substitute]),
        substituteFrom: added.appendsSubstituteFrom
          ? [...(result?.substituteFrom ?? []), ...added.substituteFrom]
          : added.substituteFrom.length > 0
            ? added.substituteFrom
            : (result?.substituteFrom ?? []),
        always: added.always || (result?.always ?? false),
      };
    }
  }
  return result;
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

/** The last segment of a repository URL, without `.git`: `gitops-system` of `REPO_PREFIX/gitops-system.git`. */
function repositoryNameOf(url: string | null): string | null {
  if (!url) return null;
  const match = /([^/:]+?)(?:\.git)?\/?$/.exec(url.trim());
  return match ? match[1] : null;
}

function mostCommon(counts: Map<string, number>): string | undefined {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Drops candidates that another one covers: the same root twice (a sync and
 * the gotk-sync.yaml it replaced), or a root that another root's world applies
 * (a cluster's self-applying flux-system inside a bigger world).
 */
function dedupe(candidates: RootCandidate[], reach: Map<RootCandidate, Set<string>>): RootCandidate[] {
  const seen = new Set<string>();
  const unique = candidates.filter((c) => {
    const key = `${c.source.kind}/${c.source.name}:${c.kustomization.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.filter((c) => !unique.some((other) => other !== c && coveredBy(c, other, reach)));
}

function coveredBy(c: RootCandidate, other: RootCandidate, reach: Map<RootCandidate, Set<string>>): boolean {
  const mine = reach.get(c)!;
  const theirs = reach.get(other)!;
  if (!theirs.has(c.kustomization.file)) return false;
  // Mutual (each applies the other): keep the first of the two.
  if (mine.has(other.kustomization.file)) return c.kustomization.file + c.kustomization.name > other.kustomization.file + other.kustomization.name;
  return true;
}

/** The size of each node's strongly connected component (Tarjan's algorithm, iterative: deep chains do not overflow the stack). */
function componentSizes<T>(nodes: readonly T[], next: (node: T) => readonly T[]): Map<T, number> {
  const sizes = new Map<T, number>();
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: T; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = next(frame.node);
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      if (work.length > 0) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: T[] = [];
        let member: T;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        for (const m of component) sizes.set(m, component.length);
      }
    }
  }
  return sizes;
}
