// The dependsOn gate of one world, as part of the apply stage: Flux builds a
// Kustomization only once it is applied (by the root, or by a parent that
// built) and every `spec.dependsOn` entry names a Kustomization of that world
// that is Ready (namespace defaulting to the dependent's). Its own spec.path
// must exist too, or it fails and its dependents wait as well. Ready is the
// least fixpoint of those rules, found with a worklist. A Kustomization that
// is not Ready never builds: what only it builds is not applied in that world.
// The gate also says why, and reports the causes Flux users cannot see: an
// entry that names no Kustomization of the world (or only a HelmRelease: a
// cross-kind dependsOn never resolves), one that only the dependent's own build
// creates, and cycles. HelmReleases wait for HelmReleases the same way.
import { push } from '../../base/collections';
import { stronglyConnected } from '../../base/components';
import { isClose, nearest } from '../../base/words';
import type { DependsOnRef, FileFacts, HelmReleaseDecl } from '../facts/model';
import type { Build, GraphProblem } from './build';
import type { Builder, World } from './world';
import { Index, renderName, type Ident } from './names';

export interface GateNode {
  builder: Builder;
  /** The Kustomizations of this world that apply its file (its parents). */
  parents: Builder[];
  /** Its namespace in the cluster (a parent's targetNamespace, a kustomization's namespace, its own). */
  namespace: string | null;
  /** What it builds; null when its source is not this repository (nothing is known of it). */
  build: Build | null;
  /** Why it fails to build at all, null when it builds. */
  fails: string | null;
  root: boolean;
  /**
   * Applied before Flux runs, with the root: `flux bootstrap` and `kubectl apply -k` apply the whole
   * folder of the root's own file, so the Kustomizations declared there exist from the start.
   */
  bootstrapped?: boolean;
}

/** Why a Kustomization never builds in a world, for the hover. */
export interface NeverBuilds {
  why: string;
  /** What its own build reports once it runs (paths that do not exist, and the like). */
  problems: GraphProblem[];
}

export interface GateResult {
  /** Kustomizations that never build, with why. */
  blocked: Map<Builder, NeverBuilds>;
  /** Kustomizations Flux tries to build (applied, every dependency Ready): their build's problems are real. */
  attempted: Set<Builder>;
  problems: GraphProblem[];
}

interface Release {
  decl: HelmReleaseDecl;
  ident: Ident;
  builder: Builder;
}

export function gate(world: World, nodes: GateNode[], facts: ReadonlyMap<string, FileFacts>, declaredAnywhere: ReadonlySet<string>): GateResult {
  return new Gate(world, nodes, facts, declaredAnywhere).run();
}

class Gate {
  private readonly byBuilder = new Map<Builder, GateNode>();
  private readonly idents = new Map<GateNode, Ident>();
  private readonly children = new Map<Builder, GateNode[]>();
  private readonly kustomizations: Index<GateNode>;
  private readonly releases: Index<Release>;
  private readonly releaseList: Release[] = [];
  private readonly ready = new Set<GateNode>();
  private readonly attempted = new Set<Builder>();
  private readonly problems: GraphProblem[] = [];
  /** Whether some live Kustomization builds another repository, whose Kustomizations this one cannot show. */
  private readonly foreign: boolean;

  constructor(
    private readonly world: World,
    private readonly nodes: GateNode[],
    private readonly facts: ReadonlyMap<string, FileFacts>,
    private readonly declaredAnywhere: ReadonlySet<string>,
  ) {
    for (const node of nodes) {
      this.byBuilder.set(node.builder, node);
      this.idents.set(node, { name: renderName(node.builder.kustomization.name, node.parents), namespace: node.namespace });
      for (const parent of node.parents) push(this.children, parent, node);
    }
    this.kustomizations = new Index(nodes, (node) => this.idents.get(node)!);
    for (const node of nodes) for (const release of this.releasesBuiltBy(node)) this.releaseList.push(release);
    this.releases = new Index(this.releaseList, (release) => release.ident);
    this.foreign = nodes.some((node) => node.build === null && !node.root);
  }

  run(): GateResult {
    this.settle();
    const blocked = new Map<Builder, NeverBuilds>();
    const cycles = this.reportCycles();
    for (const node of this.nodes) {
      if (this.ready.has(node)) continue;
      blocked.set(node.builder, { why: this.whyNotReady(node, cycles), problems: node.build?.problems ?? [] });
    }
    this.checkReleases();
    return { blocked, attempted: this.attempted, problems: this.problems };
  }

  /** The least fixpoint: a node becomes Ready when it is applied, builds, and every entry it waits for is Ready. */
  private settle(): void {
    const dependents = new Map<GateNode, GateNode[]>();
    for (const node of this.nodes) for (const ref of node.builder.kustomization.dependsOn) for (const target of this.targets(node, ref)) push(dependents, target, node);
    const queue = this.nodes.filter((node) => this.appliedAtStart(node));
    while (queue.length > 0) {
      const node = queue.pop()!;
      if (this.ready.has(node) || !this.applied(node) || !this.dependenciesReady(node)) continue;
      this.attempted.add(node.builder);
      if (node.fails) continue;
      this.ready.add(node);
      queue.push(...(this.children.get(node.builder) ?? []), ...(dependents.get(node) ?? []));
    }
  }

  private applied(node: GateNode): boolean {
    return this.appliedAtStart(node) || node.parents.some((parent) => this.ready.has(this.byBuilder.get(parent)!));
  }

  private appliedAtStart(node: GateNode): boolean {
    return node.root || node.bootstrapped === true;
  }

  private dependenciesReady(node: GateNode): boolean {
    return node.builder.kustomization.dependsOn.every((ref) => this.entryState(node, ref) === 'ready');
  }

  /** An entry: Ready, waiting, or naming nothing Flux can resolve (`unknown`: a name the files cannot tell, taken as met). */
  private entryState(node: GateNode, ref: DependsOnRef): 'ready' | 'waiting' | 'missing' {
    const name = this.entryName(node, ref);
    if (name === null) return 'ready';
    const targets = this.targets(node, ref);
    if (targets.length === 0) return this.maybeElsewhere(name) ? 'ready' : 'missing';
    return targets.some((target) => this.ready.has(target)) ? 'ready' : 'waiting';
  }

  /** A name no file of this repository declares, in a world that builds other repositories too: theirs may. */
  private maybeElsewhere(name: string): boolean {
    return this.foreign && !this.declaredAnywhere.has(name);
  }

  /** The entry's name as Flux reads it (the dependent's parents substitute its spec), null when the files cannot tell. */
  private entryName(node: GateNode, ref: DependsOnRef): string | null {
    const name = renderName(ref.name, node.parents);
    return typeof name === 'string' ? name : null;
  }

  private targets(node: GateNode, ref: DependsOnRef): GateNode[] {
    const name = this.entryName(node, ref);
    if (name === null) return [];
    return this.kustomizations.find(name, ref.namespace ?? node.namespace);
  }

  /** Why a node is not Ready; reports the causes that are errors (once per entry). */
  private whyNotReady(node: GateNode, cycles: Map<GateNode, GateNode[]>): string {
    const k = node.builder.kustomization;
    if (!this.applied(node)) {
      const parents = node.parents.map((parent) => `"${parent.kustomization.name}"`).join(', ');
      return `Kustomization${node.parents.length > 1 ? 's' : ''} ${parents}, which appl${node.parents.length > 1 ? 'y' : 'ies'} it, never build${node.parents.length > 1 ? '' : 's'}`;
    }
    const waits: string[] = [];
    for (const ref of k.dependsOn) {
      const state = this.entryState(node, ref);
      if (state === 'ready') continue;
      const target = describeTarget(ref.name, ref.namespace ?? node.namespace);
      if (state === 'missing') {
        waits.push(this.reportMissing(node, ref, target));
        continue;
      }
      const targets = this.targets(node, ref);
      const cycle = cycles.get(node);
      if (cycle && targets.some((t) => cycle.includes(t))) waits.push(`it waits for ${target} in a cycle (${cycleText(cycle)})`);
      else if (targets.every((t) => this.onlyThrough(node, t))) waits.push(this.reportSelfCreated(node, ref, target, targets[0]));
      else waits.push(`it waits for ${target}, which never becomes Ready here (${targets.map((t) => this.whyNotReadyShort(t)).join('; ')})`);
    }
    if (waits.length > 0) return waits.join('; ');
    return node.fails ?? 'it never becomes Ready';
  }

  private whyNotReadyShort(node: GateNode): string {
    if (!this.applied(node)) return `nothing that builds applies "${node.builder.kustomization.name}"`;
    if (node.fails) return `"${node.builder.kustomization.name}" fails: ${node.fails}`;
    return `"${node.builder.kustomization.name}" waits for its own dependencies`;
  }

  private reportMissing(node: GateNode, ref: DependsOnRef, target: string): string {
    const k = node.builder.kustomization;
    const name = this.entryName(node, ref)!;
    const namespace = ref.namespace ?? node.namespace;
    const releases = this.releases.find(name, namespace);
    if (releases.length > 0) {
      const release = releases[0];
      const via = release.builder.kustomization;
      const sameNamespace =
        namespace === null || this.idents.get(this.byBuilder.get(release.builder)!)!.namespace === null || this.idents.get(this.byBuilder.get(release.builder)!)!.namespace === namespace;
      this.problems.push({
        kind: 'depends-on-kind',
        file: k.file,
        span: ref.nameSpan,
        message:
          `Kustomization "${k.name}" waits for a Kustomization named "${name}", but "${name}" is a HelmRelease (${release.decl.file}): a Kustomization's dependsOn names Kustomizations only, and kustomize-controller never resolves another kind (fluxcd/kustomize-controller#242), so "${k.name}" never builds. ` +
          `Depend on Kustomization "${via.name}", which applies the HelmRelease (with wait: true or a healthCheck on it, it is Ready only once the release is).`,
        ...(sameNamespace && via.name !== name ? { replace: { title: `Depend on Kustomization "${via.name}", which applies HelmRelease "${name}"`, span: ref.nameSpan, newText: via.name } } : {}),
      });
      return `it waits for ${target}, which is a HelmRelease (a dependsOn never resolves another kind)`;
    }
    const suggestion = this.nearestName(name, namespace);
    this.problems.push({
      kind: 'depends-on-missing',
      file: k.file,
      span: ref.nameSpan,
      message: `Kustomization "${k.name}" waits for ${target}, which no Kustomization of this world declares: Flux never builds "${k.name}", and nothing only it applies reaches the cluster.${suggestion ? ` The nearest existing name is "${suggestion.name}"${suggestion.where}.` : ''}`,
      ...(suggestion?.close ? { replace: { title: `Replace with "${suggestion.name}"`, span: ref.nameSpan, newText: suggestion.name } } : {}),
    });
    return `it waits for ${target}, which no Kustomization of this world declares`;
  }

  /** The name meant: the same name in another namespace, else the nearest name in this one. */
  private nearestName(name: string, namespace: string | null): { name: string; where: string; close: boolean } | null {
    const literals = this.kustomizations.literals();
    const elsewhere = literals.find((entry) => entry.name === name && entry.namespace !== null);
    if (elsewhere) return { name, where: ` (in namespace ${elsewhere.namespace})`, close: false };
    const found = nearest(name, new Set(literals.filter((entry) => namespace === null || entry.namespace === null || entry.namespace === namespace).map((entry) => entry.name)));
    return found ? { name: found.candidate, where: '', close: isClose(name, found.distance) } : null;
  }

  private reportSelfCreated(node: GateNode, ref: DependsOnRef, target: string, created: GateNode): string {
    const k = node.builder.kustomization;
    const chain = this.pathTo(node, created);
    this.problems.push({
      kind: 'depends-on-missing',
      file: k.file,
      span: ref.nameSpan,
      message: `Kustomization "${k.name}" waits for ${target}, which only its own build creates (${chain}): it cannot be Ready before "${k.name}" builds, so Flux never builds "${k.name}" on a cluster where it does not exist yet, and nothing only it applies reaches the cluster.`,
      related: [
        { file: created.builder.kustomization.file, range: created.builder.kustomization.range, message: `Kustomization "${created.builder.kustomization.name}", created by "${k.name}"'s own build` },
      ],
    });
    return `it waits for ${target}, which only its own build creates (${chain})`;
  }

  /** Whether every way from the root to `target` goes through `through` (what only its build creates). */
  private onlyThrough(through: GateNode, target: GateNode): boolean {
    if (target === through) return false;
    const seen = new Set<GateNode>();
    const queue = this.nodes.filter((node) => this.appliedAtStart(node) && node !== through);
    for (const node of queue) seen.add(node);
    while (queue.length > 0) {
      const node = queue.pop()!;
      if (node === target) return false;
      for (const child of this.children.get(node.builder) ?? []) {
        if (child === through || seen.has(child)) continue;
        seen.add(child);
        queue.push(child);
      }
    }
    return true;
  }

  /** `cluster-apps → external-secrets → kubernetes/apps/x/ks.yaml`: the Kustomizations from `from` that lead to `to`'s file. */
  private pathTo(from: GateNode, to: GateNode): string {
    const previous = new Map<GateNode, GateNode>();
    const queue = [from];
    const seen = new Set<GateNode>([from]);
    while (queue.length > 0) {
      const node = queue.shift()!;
      if (node === to) break;
      for (const child of this.children.get(node.builder) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        previous.set(child, node);
        queue.push(child);
      }
    }
    const names: string[] = [];
    for (let node = previous.get(to); node; node = previous.get(node)) names.unshift(`"${node.builder.kustomization.name}"`);
    return `${names.join(' → ')} → ${to.builder.kustomization.file}`;
  }

  /** Each cycle of dependsOn once, at its first member in file order; the members of each, by node. */
  private reportCycles(): Map<GateNode, GateNode[]> {
    const byNode = new Map<GateNode, GateNode[]>();
    const next = (node: GateNode) => node.builder.kustomization.dependsOn.flatMap((ref) => this.targets(node, ref));
    for (const component of stronglyConnected(this.nodes, next)) {
      if (component.length === 1 && !next(component[0]).includes(component[0])) continue;
      if (!component.some((node) => this.applied(node))) continue; // downstream of another failure: that one is the finding
      const first = [...component].sort((a, b) => fileOrder(a.builder.kustomization, b.builder.kustomization))[0];
      const cycle = cyclePath(first, (node) => next(node).filter((target) => component.includes(target)));
      for (const member of component) byNode.set(member, cycle);
      const k = first.builder.kustomization;
      const ref = k.dependsOn.find((entry) => this.targets(first, entry).includes(cycle[1] ?? first))!;
      this.problems.push({
        kind: 'depends-on-cycle',
        file: k.file,
        span: ref.nameSpan,
        message: `Kustomizations wait for each other in a cycle (${cycleText(cycle)}): none of them ever becomes Ready, so Flux builds none of them, and nothing only they apply reaches the cluster. Remove one dependsOn entry of the cycle.`,
        related: cycle.slice(0, -1).map((node, i) => ({
          file: node.builder.kustomization.file,
          range: node.builder.kustomization.range,
          message: `Kustomization "${node.builder.kustomization.name}" waits for "${cycle[i + 1].builder.kustomization.name}"`,
        })),
      });
    }
    return byNode;
  }

  /** The HelmReleases a node applies, each with the name and namespace Flux gives it. */
  private releasesBuiltBy(node: GateNode): Release[] {
    const out: Release[] = [];
    const k = node.builder.kustomization;
    for (const [file, built] of node.build?.files ?? []) {
      const resource = built.find((entry) => entry.role === 'resource');
      if (!resource) continue;
      for (const decl of this.facts.get(file)?.helmReleases ?? []) {
        out.push({ decl, builder: node.builder, ident: { name: renderName(decl.name, [node.builder]), namespace: k.targetNamespace ?? resource.namespace ?? decl.namespace } });
      }
    }
    return out;
  }

  /** HelmReleases that Ready Kustomizations apply wait for HelmReleases of the world: missing names and cycles. */
  private checkReleases(): void {
    const live = this.releaseList.filter((release) => this.ready.has(this.byBuilder.get(release.builder)!));
    const targets = (release: Release, ref: DependsOnRef) => {
      const name = renderName(ref.name, [release.builder]);
      return typeof name === 'string' ? this.releases.find(name, ref.namespace ?? release.ident.namespace) : null;
    };
    for (const release of live) {
      for (const ref of release.decl.dependsOn) {
        const found = targets(release, ref);
        if (found === null || found.length > 0) continue;
        const name = renderName(ref.name, [release.builder]) as string;
        if (this.maybeElsewhere(name)) continue;
        const namespace = ref.namespace ?? release.ident.namespace;
        const candidates = this.releases.literals().filter((entry) => namespace === null || entry.namespace === null || entry.namespace === namespace);
        const suggestion = nearest(name, new Set(candidates.map((entry) => entry.name)));
        const close = suggestion !== null && isClose(name, suggestion.distance);
        this.problems.push({
          kind: 'depends-on-missing',
          file: release.decl.file,
          span: ref.nameSpan,
          message: `HelmRelease "${release.decl.name}" waits for ${describeTarget(name, namespace, 'HelmRelease')}, which no HelmRelease of this world declares: Flux never installs or upgrades "${release.decl.name}".${suggestion ? ` The nearest existing name is "${suggestion.candidate}".` : ''}`,
          ...(close ? { replace: { title: `Replace with "${suggestion.candidate}"`, span: ref.nameSpan, newText: suggestion.candidate } } : {}),
        });
      }
    }
    const next = (release: Release) => release.decl.dependsOn.flatMap((ref) => (targets(release, ref) ?? []).filter((target) => live.includes(target)));
    for (const component of stronglyConnected(live, next)) {
      if (component.length === 1 && !next(component[0]).includes(component[0])) continue;
      const first = [...component].sort((a, b) => fileOrder(a.decl, b.decl))[0];
      const cycle = cyclePath(first, (release) => next(release).filter((target) => component.includes(target)));
      const ref = first.decl.dependsOn.find((entry) => (targets(first, entry) ?? []).includes(cycle[1] ?? first))!;
      this.problems.push({
        kind: 'depends-on-cycle',
        file: first.decl.file,
        span: ref.nameSpan,
        message: `HelmReleases wait for each other in a cycle (${cycle.map((r) => `"${r.decl.name}"`).join(' → ')}): Flux installs none of them. Remove one dependsOn entry of the cycle.`,
        related: cycle.slice(0, -1).map((release, i) => ({ file: release.decl.file, range: release.decl.range, message: `HelmRelease "${release.decl.name}" waits for "${cycle[i + 1].decl.name}"` })),
      });
    }
  }
}

function describeTarget(name: string, namespace: string | null, kind = 'Kustomization'): string {
  return `${kind} "${name}"${namespace ? ` (namespace ${namespace})` : ''}`;
}

/** File order: by path, then by place in the file. */
function fileOrder(a: { file: string; span: [number, number] }, b: { file: string; span: [number, number] }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.span[0] - b.span[0];
}

/** A path around a cycle from `first` back to it, following `next` (within one strongly connected component). */
function cyclePath<T>(first: T, next: (node: T) => T[]): T[] {
  const previous = new Map<T, T>();
  const queue = [first];
  const seen = new Set<T>();
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of next(node)) {
      if (target === first) {
        const path = [first];
        for (let at: T | undefined = node; at !== undefined && at !== first; at = previous.get(at)) path.splice(1, 0, at);
        path.push(first);
        return path;
      }
      if (seen.has(target)) continue;
      seen.add(target);
      previous.set(target, node);
      queue.push(target);
    }
  }
  return [first, first];
}

function cycleText(cycle: GateNode[]): string {
  return cycle.map((node) => `"${node.builder.kustomization.name}"`).join(' → ');
}
