// Choosing the roots: of the candidates roots.ts reads (the contract's
// `flux.roots`, FluxInstance syncs, what bootstrap writes, Kustomizations that
// apply themselves), those that hold up: a sync written in a file no world
// applies is stale, a candidate another one applies is part of that world. When
// none does, the fallback: every Kustomization nothing else builds, and an
// info finding that says so.
import { mostCommon, push } from '../../base/collections';
import { basenameOf, dirnameOf } from '../../base/paths';
import type { FileFacts, FluxKustomization, SourceDecl, SyncDecl } from '../facts/model';
import { envsubst } from '../substitution/envsubst/template';
import { inRepository, type ArtifactIndex } from './artifact';
import type { Build, GraphProblem } from './build';
import type { Layout } from './layout';
import { FluxConfig, RootCandidate, sameRepository, SourceIdentity, syncCandidate, syntheticKustomization } from './roots';
import { selfApplying } from './self-applying';
import type { Sources } from './sources';

/** What root choice reads of the model being built. */
export interface RootChoiceInput {
  files: ReadonlySet<string>;
  facts: ReadonlyMap<string, FileFacts>;
  config: FluxConfig;
  layout: Layout;
  kustomizations: readonly FluxKustomization[];
  byFile: ReadonlyMap<string, FluxKustomization[]>;
  sources: Sources;
  buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build;
  report(problem: GraphProblem): void;
}

export class RootChoice {
  /** True when no root was found and the model fell back to "what nothing else builds". */
  fallback = false;

  constructor(private readonly model: RootChoiceInput) {}

  choose(): RootCandidate[] {
    const { config } = this.model;
    if (config.roots.length > 0) return config.roots.map((root) => this.contractRoot(root));
    const unresolved: string[] = [];
    const syncs: RootCandidate[] = [];
    for (const facts of this.model.facts.values()) {
      for (const sync of facts.syncs.flatMap((written) => this.resolvedSyncs(written))) {
        const candidate = syncCandidate(sync, config, (path) => this.model.layout.foldersHolding(path));
        if ('unresolved' in candidate) unresolved.push(candidate.unresolved);
        else syncs.push(candidate);
      }
    }
    const bootstraps = [...new Set([...this.selfApplyingKustomizations(), ...this.bootstrapSyncs()]), ...this.bootstrapPlaceholders()].map((k): RootCandidate => ({
      how: 'bootstrap',
      kustomization: k,
      source: this.model.sources.identityOf(k),
      declaredIn: null,
      assumption: null,
    }));
    // A sync is current when a world applies the file it is written in (the FluxInstance manages itself).
    const reach = new Map<RootCandidate, Set<string>>();
    for (const candidate of [...bootstraps, ...syncs]) reach.set(candidate, this.reachOf(candidate));
    const appliedAnywhere = (file: string) => [...reach.values()].some((files) => files.has(file));
    let current = syncs.filter((sync) => appliedAnywhere(sync.declaredIn!));
    if (current.length === 0 && bootstraps.length === 0) current = syncs;
    const kubectl = this.kubectlBootstraps(appliedAnywhere, [...bootstraps, ...current]);
    for (const candidate of kubectl) reach.set(candidate, this.reachOf(candidate));
    const candidates = dedupe([...bootstraps, ...current, ...kubectl], reach);
    if (candidates.length > 0) {
      this.reportAssumptions(candidates);
      for (const candidate of candidates) if (reach.get(candidate)!.size === 0) this.reportEmptyRoot(candidate);
      const reached = new Set(candidates.flatMap((candidate) => [...reach.get(candidate)!]));
      // Beside a root that applies nothing (its path is wrong), the fix is its path, not a guess.
      const applying = candidates.filter((candidate) => reach.get(candidate)!.size > 0);
      return [...candidates, ...this.unshownClusterRoots(applying, (file) => reached.has(file))];
    }
    return this.fallbackRoots(unresolved);
  }

  /**
   * A sync path with a `${VAR}` (`kubernetes/clusters/${CLUSTER}/bootstrap`) is substituted by the
   * Kustomization that applies the FluxInstance: the values of those that build its file. Without
   * one, every existing folder the path can name is tried as a root; only those whose world applies
   * the FluxInstance are kept (the current-sync check in choose).
   */
  private resolvedSyncs(sync: SyncDecl): SyncDecl[] {
    if (!sync.pathAsWritten.includes('${')) return [sync];
    const paths = new Set<string>();
    for (const k of this.model.kustomizations) {
      const substitute = k.postBuild?.substitute;
      const artifact = substitute && substitute.size > 0 ? this.model.sources.ownArtifact(k) : null;
      if (!substitute || !artifact) continue;
      if (
        !this.model
          .buildOf(k, artifact)
          .files.get(sync.file)
          ?.some((entry) => entry.role === 'resource')
      )
        continue;
      const rendered = envsubst(sync.pathAsWritten, (name) => substitute.get(name)?.value, { strict: true });
      if (rendered.ok) paths.add(rendered.output);
    }
    if (paths.size === 0) for (const dir of this.model.layout.dirsMatching(sync.pathAsWritten)) paths.add(dir);
    // Nothing fits: the sync as written, which starts from nothing (said once, reportEmptyRoot).
    if (paths.size === 0) return [sync];
    return [...paths].map((path) => ({ ...sync, pathAsWritten: path }));
  }

  /** A root Flux starts from that applies nothing: its sync fails (no such folder) or finds nothing to apply. Said at the path it syncs. */
  private reportEmptyRoot(candidate: RootCandidate): void {
    // An assumed folder (an OCI artifact pushed from somewhere) is said by its assumption; only a
    // GitRepository of this repository shows what the root really holds.
    if (candidate.assumption !== null || candidate.source.kind !== 'GitRepository') return;
    const k = candidate.kustomization;
    const written = k.pathAsWritten;
    const variable = /\$\{[^}]*\}/.exec(written);
    // A folder that does not exist is the build's own error (spec.path does not exist): said there.
    if (!variable && !this.model.layout.hasDir(k.path ?? written)) return;
    const start = candidate.how === 'sync' ? `The ${candidate.via} in ${candidate.declaredIn} syncs` : `The root Kustomization "${k.name}" starts from`;
    const why = variable ? `keeps ${variable[0]}: no Kustomization that applies it substitutes it, and no folder of the repository fits "${written}"` : 'holds nothing Flux applies';
    const message = `${start} "${written}", which ${why}: Flux applies nothing from it, and nothing it would apply is checked. Fix the path, or name the folders Flux starts from in flux.roots.`;
    this.model.report({ kind: 'broken-reference', severity: 'error', file: k.file, span: k.pathSpan ?? k.span, message });
  }

  /** One info per guess: the syncs that make the same guess (one per cluster) are named in the first one's message. */
  private reportAssumptions(candidates: RootCandidate[]): void {
    const groups = new Map<string, RootCandidate[]>();
    for (const candidate of candidates) if (candidate.assumption) push(groups, candidate.assumptionKey ?? candidate.assumption, candidate);
    for (const [first, ...others] of groups.values()) {
      const also = others.length > 0 ? ` The same is assumed for the syncs in ${others.map((c) => c.kustomization.file).join(', ')}.` : '';
      this.model.report({ kind: 'assumed-root', file: first.kustomization.file, span: first.kustomization.span, message: first.assumption! + also, severity: 'info' });
    }
  }

  private contractRoot(root: FluxConfig['roots'][number]): RootCandidate {
    const probe = syntheticKustomization('flux-system', 'flux-system', root.file, root.span, root.path, 'GitRepository', '');
    // "This repository" is the GitRepository the Kustomizations right under the root name most.
    const counts = new Map<string, number>();
    const build = this.model.buildOf(probe, this.model.sources.repositoryArtifact(null));
    for (const file of build.files.keys()) {
      for (const child of this.model.byFile.get(file) ?? []) {
        if (child.sourceKind === 'GitRepository' && child.sourceName) counts.set(child.sourceName, (counts.get(child.sourceName) ?? 0) + 1);
      }
    }
    const name = mostCommon(counts) ?? 'flux-system';
    const kustomization = { ...probe, sourceName: name };
    // The GitRepository of that name the root applies is this world's (one per cluster, each with its own spec.ignore).
    const decl = this.declaredIn(build.files.keys(), name) ?? this.model.sources.declaredSource('GitRepository', name, `${root.path}/`);
    return {
      how: 'contract',
      kustomization,
      source: { kind: 'GitRepository', name, namespace: decl?.namespace ?? null, url: decl?.url ?? null, folder: null, ...(decl ? { decl } : {}) },
      declaredIn: null,
      assumption: null,
    };
  }

  /** The first GitRepository called `name` written in these files. */
  private declaredIn(files: Iterable<string>, name: string): SourceDecl | undefined {
    for (const file of files) {
      const found = this.model.facts.get(file)?.sources.find((source) => source.kind === 'GitRepository' && source.name === name);
      if (found) return found;
    }
    return undefined;
  }

  /** No root: every Kustomization (of the most used GitRepository) that no other builds and that lies outside every other's path. */
  private fallbackRoots(unresolved: string[]): RootCandidate[] {
    if (this.model.kustomizations.length === 0) return [];
    this.fallback = true;
    const name = mostCommon(countSourceNames(this.model.kustomizations)) ?? 'flux-system';
    const ours = this.model.kustomizations.filter((k) => k.sourceKind === 'GitRepository' && (k.sourceName ?? name) === name);
    const source: SourceIdentity = { kind: 'GitRepository', name, namespace: null, url: null, folder: null };
    const artifact = this.model.sources.repositoryArtifact(name);
    const builtByOther = new Set<FluxKustomization>();
    const paths = new Map<string, FluxKustomization[]>();
    for (const k of ours) {
      if (k.path !== null) push(paths, k.path, k);
      for (const file of this.model.buildOf(k, artifact).files.keys()) for (const child of this.model.byFile.get(file) ?? []) if (child !== k) builtByOther.add(child);
    }
    const insideAnother = (k: FluxKustomization) => {
      for (let dir = dirnameOf(k.file); ; dir = dirnameOf(dir)) {
        if ((paths.get(dir) ?? []).some((other) => other !== k)) return true;
        if (dir === '') return false;
      }
    };
    const roots = ours.filter((k) => !builtByOther.has(k) && !insideAnother(k));
    // No root at all: the graph says once that nothing was checked (reportNothingApplied).
    if (roots.length === 0) return [];
    const first = this.model.kustomizations[0];
    const why = unresolved.length > 0 ? ` (${unresolved.join('; ')})` : '';
    this.model.report({
      kind: 'assumed-root',
      file: first.file,
      span: first.span,
      severity: 'info',
      message: `No root found: no gotk-sync.yaml or other Kustomization that applies itself, no FluxInstance sync, no flux.roots in the contract${why}. Every Kustomization that nothing else here builds is taken as a root; name the folders Flux starts from in flux.roots to check exactly what Flux applies.`,
    });
    return roots.map((k): RootCandidate => ({ how: 'fallback', kustomization: k, source, declaredIn: null, assumption: null }));
  }

  /** The Kustomizations that apply themselves (self-applying.ts), each from its own source's artifact. */
  private selfApplyingKustomizations(): FluxKustomization[] {
    const { model } = this;
    return selfApplying({ ...model, artifactOf: (k) => model.sources.ownArtifact(k) });
  }

  /**
   * What `kubectl apply -k F` bootstraps (a cluster set up by hand or by a script): a folder with a
   * kustomization file, that nothing found so far applies, whose build holds a GitRepository of
   * this repository and a Flux Kustomization on it. The folder is a root of its own world, its
   * GitRepository the source of that world. "This repository": the URL of a root found, or, with
   * none, the GitRepository name most Kustomizations here name.
   */
  private kubectlBootstraps(applied: (file: string) => boolean, found: readonly RootCandidate[]): RootCandidate[] {
    const urls = found.map((candidate) => candidate.source.url).filter((url): url is string => url !== null);
    const ours = urls.length > 0 ? null : mostCommon(countSourceNames(this.model.kustomizations));
    const isOurs = (source: SourceDecl) => (ours === null ? urls.some((url) => sameRepository(url, source.url)) : source.name === ours);
    const out: RootCandidate[] = [];
    const tried = new Set<string>();
    for (const facts of this.model.facts.values()) {
      for (const source of facts.sources) {
        if (source.kind !== 'GitRepository' || applied(source.file) || !isOurs(source)) continue;
        const config = this.nearestConfig(source.file);
        if (!config || tried.has(config.file)) continue;
        tried.add(config.file);
        // Its own GitRepository must fetch the folder (an archived cluster its spec.ignore leaves out is no root).
        const artifact = this.model.sources.artifactOfRepository(source);
        if (!artifact.holds(config.file)) continue;
        const dir = dirnameOf(config.file);
        const probe = syntheticKustomization(source.name, source.namespace, config.file, [0, 0], dir, 'GitRepository', source.name);
        const built = this.model.buildOf(probe, artifact).files;
        // A Kustomization on it whose folder exists: one whose path names no folder is a template a
        // script copies and fills in (clusters/template syncing ./clusters/cluster-name), not a cluster.
        const onIt = (k: FluxKustomization) =>
          k.sourceKind === 'GitRepository' && k.sourceName === source.name && sameNamespace(k.sourceNamespace ?? k.namespace, source.namespace) && k.path !== null && this.model.layout.hasDir(k.path);
        const bundled = built.has(source.file) && [...built.keys()].some((file) => (this.model.byFile.get(file) ?? []).some(onIt));
        if (!bundled) continue;
        const identity: SourceIdentity = { kind: 'GitRepository', name: source.name, namespace: source.namespace, url: source.url, folder: null, decl: source };
        out.push({ how: 'bootstrap', kustomization: probe, source: identity, declaredIn: null, assumption: null });
      }
    }
    return out;
  }

  /**
   * Cluster folders that no readable root applies (a cluster bootstrapped by Terraform, or by a
   * FluxInstance rendered from a helmfile template): a folder beside a root's own folder
   * (clusters/staging beside clusters/prod) whose files no world applies, that the root's source
   * fetches, and that holds Flux Kustomizations on that source whose folders exist. Each is taken
   * as a root of that source, and one info says which were assumed.
   */
  private unshownClusterRoots(found: readonly RootCandidate[], applied: (file: string) => boolean): RootCandidate[] {
    const assumed: Array<{ folder: string; first: FluxKustomization; root: RootCandidate; probe: FluxKustomization }> = [];
    const tried = new Set<string>();
    for (const root of found) {
      const folder = root.kustomization.path;
      // A root at the top (flux/) has the whole repository beside it: apps/, archive/, … are no clusters.
      if (!folder || dirnameOf(folder) === '' || root.assumption !== null || root.source.kind !== 'GitRepository' || root.source.folder !== null) continue;
      const artifact = this.model.sources.artifactIn(root.kustomization, root);
      if (!artifact) continue;
      for (const sibling of this.model.layout.subdirs(dirnameOf(folder))) {
        if (sibling === folder || tried.has(sibling) || NO_CLUSTER.test(basenameOf(sibling))) continue;
        tried.add(sibling);
        // A folder some Kustomization builds (one that fails, say) is part of a world, not a cluster of its own.
        if (this.filesBelow(sibling).some(applied) || this.namedByPathOutside(sibling)) continue;
        // A cluster folder holds its Kustomizations at its top (clusters/dev/apps.yaml), on the root's source.
        const onSource = (k: FluxKustomization) => k.sourceKind === 'GitRepository' && k.sourceName === root.source.name && k.path !== null && this.model.layout.hasDir(k.path);
        const first = this.model.layout
          .filesIn(sibling)
          .filter((file) => artifact.holds(file))
          .flatMap((file) => this.model.byFile.get(file) ?? [])
          .find(onSource);
        if (!first) continue;
        // A cluster folder that does not build (it lists a flux-system/ it lacks) was never bootstrapped.
        const probe = syntheticKustomization('flux-system', root.kustomization.namespace, first.file, [0, 0], sibling, 'GitRepository', root.source.name);
        const build = this.model.buildOf(probe, artifact);
        if (!build.failure && build.fails === null) assumed.push({ folder: sibling, first, root, probe });
      }
    }
    if (assumed.length === 0) return [];
    const folders = assumed.map(({ folder }) => folder);
    const beside = [...new Set(assumed.map(({ root }) => root.kustomization.path))].join(', ');
    const message = `No root found applies ${folders.join(', ')}, beside ${beside}: taken as cluster folders that a bootstrap outside the repository (Terraform, a templated FluxInstance) applies, on GitRepository ${assumed[0].root.source.name}. Name the folders Flux starts from in flux.roots to check exactly what Flux applies.`;
    this.model.report({ kind: 'assumed-root', file: assumed[0].first.file, span: assumed[0].first.span, severity: 'info', message });
    return assumed.map(({ root, probe }) => ({
      how: 'sync',
      kustomization: probe,
      source: root.source,
      declaredIn: null,
      assumption: message,
    }));
  }

  /** Whether a Kustomization written outside the folder builds it, part of it, or a folder above it. */
  private namedByPathOutside(dir: string): boolean {
    return this.model.kustomizations.some((k) => k.path !== null && !k.file.startsWith(dir + '/') && (k.path === '' || k.path === dir || k.path.startsWith(dir + '/') || dir.startsWith(k.path + '/')));
  }

  /** Every file in the folder and below it. */
  private filesBelow(dir: string): string[] {
    return [...this.model.layout.filesIn(dir), ...this.model.layout.subdirs(dir).flatMap((sub) => this.filesBelow(sub))];
  }

  /** The kustomization file of the file's folder or of the nearest folder above it that has one. */
  private nearestConfig(file: string): { file: string } | undefined {
    for (let dir = dirnameOf(file); ; dir = dirnameOf(dir)) {
      const config = this.model.layout.configIn(dir);
      if (config) return config;
      if (dir === '') return undefined;
    }
  }

  /** The files a candidate's world applies (for the checks between candidates). */
  private reachOf(candidate: RootCandidate): Set<string> {
    const files = new Set<string>();
    const seen = new Set<FluxKustomization>([candidate.kustomization]);
    const queue = [candidate.kustomization];
    const world = { source: candidate.source };
    while (queue.length > 0) {
      const k = queue.pop()!;
      const artifact = this.model.sources.artifactIn(k, world);
      if (!artifact) continue;
      for (const [file, built] of this.model.buildOf(k, artifact).files) {
        files.add(file);
        if (!built.some((entry) => entry.role === 'resource')) continue;
        for (const child of this.model.byFile.get(file) ?? []) {
          if (seen.has(child)) continue;
          seen.add(child);
          queue.push(child);
        }
      }
    }
    return files;
  }

  /**
   * What `flux bootstrap` writes (P/flux-system/gotk-sync.yaml) is applied by bootstrap itself,
   * whether or not P's kustomization lists flux-system/ again: its Kustomizations whose path exists.
   */
  private bootstrapSyncs(): FluxKustomization[] {
    const found: FluxKustomization[] = [];
    for (const [file, ks] of this.model.byFile) {
      if (!/(^|\/)flux-system\/gotk-sync\.yaml$/.test(file)) continue;
      for (const k of ks) {
        const artifact = this.model.sources.ownArtifact(k);
        if (artifact && k.path !== null && this.model.layout.hasDir(inRepository(artifact.artifact, k.path))) found.push(k);
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
    for (const file of this.model.files) {
      const match = /^(?:(.*)\/)?flux-system\/gotk-sync\.yaml$/.exec(file);
      if (!match) continue;
      if ((this.model.byFile.get(file) ?? []).length > 0) continue;
      const path = match[1] ?? '';
      found.push(syntheticKustomization('flux-system', 'flux-system', file, [0, 0], path, 'GitRepository', 'flux-system'));
    }
    return found;
  }
}

/** Folder names that say a tree is no cluster Flux syncs: kept but not run (an old cluster, a template to copy), or what sets a cluster up. */
const NO_CLUSTER = /^[._]|(^|[-_.])(archived?|deprecated|backups?|old|legacy|templates?|examples?|samples?|skeleton|bootstrap)([-_.]|$)/i;

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

/** How many Kustomizations name each GitRepository. */
function countSourceNames(kustomizations: readonly FluxKustomization[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of kustomizations) if (k.sourceKind === 'GitRepository' && k.sourceName) counts.set(k.sourceName, (counts.get(k.sourceName) ?? 0) + 1);
  return counts;
}

function sameNamespace(a: string | null, b: string | null): boolean {
  return a === null || b === null || a === b;
}
