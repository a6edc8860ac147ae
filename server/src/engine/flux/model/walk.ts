// The apply stage's walk: from each root, breadth first, every Kustomization
// its world applies (each once, with the parents that build it), the files each
// builds, and the variables each substitutes with (its own postBuild, what its
// parents patch in, what a webhook adds). Then the dependsOn gate (gate.ts):
// what never becomes Ready does not build, so what only it builds is not
// applied in that world, and its build's problems wait for the hover. One
// world per root.
import { push } from '../../base/collections';
import { anchoredPattern } from '../../base/anchored-pattern';
import { dirnameOf } from '../../base/paths';
import type { FileFacts, FluxKustomization, KustomizationPatch, KustomizeConfig, PostBuild, SubstituteFromRef, VariableSource } from '../facts/model';
import { matchesSelector } from '../facts/label-selector';
import type { ArtifactIndex } from './artifact';
import type { Build, GraphProblem } from './build';
import { gate, type GateNode, type NeverBuilds } from './gate';
import type { FluxConfig, RootCandidate } from './roots';
import type { Sources } from './sources';
import { byCloseness, resolveVars } from './variables';
import { worldFlux } from './flux-version';
import type { BuildEntry, Builder, World } from './world';

/** What the walk reads of the model being built, and where it writes what it finds. */
export interface WalkInput {
  facts: ReadonlyMap<string, FileFacts>;
  config: FluxConfig;
  byFile: ReadonlyMap<string, FluxKustomization[]>;
  sources: Sources;
  variablesByName: ReadonlyMap<string, Array<VariableSource & { generated?: KustomizeConfig }>>;
  buildOf(k: FluxKustomization, artifact: ArtifactIndex): Build;
  report(problem: GraphProblem): void;
  worlds: World[];
  entries: Map<string, BuildEntry[]>;
  live: Builder[];
  /** Kustomizations that never build in their world (the gate), with why. */
  blocked: Map<Builder, NeverBuilds>;
  /** Every name a Kustomization written here has (a dependsOn on another name may be another repository's). */
  declaredNames: ReadonlySet<string>;
}

interface WalkNode {
  builder: Builder;
  parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[]; namespace: string | null }>;
  /** What it builds; null when its source is not this repository in the world. */
  build: Build | null;
}

export class Walk {
  constructor(private readonly model: WalkInput) {}

  apply(roots: RootCandidate[]): void {
    const webhookRefs = this.model.config.substituteFrom;
    const gated = new Map<string, { problem: GraphProblem; worlds: World[] }>();
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
        flux: null,
      };
      this.model.worlds.push(world);
      const builders = this.walk(world, candidate);
      const applied = (file: string) => (this.model.entries.get(file) ?? []).some((entry) => entry.builder.world === world);
      const webhooks = [...webhookRefs, ...this.detectedWebhooks(applied)];
      for (const { builder, parents } of builders) this.resolve(builder, parents, webhooks, applied);
      for (const problem of this.gateWorld(world, candidate, builders)) {
        const key = `${problem.kind}:${problem.file}:${problem.span[0]}:${problem.message}`;
        const seen = gated.get(key);
        if (seen) seen.worlds.push(world);
        else gated.set(key, { problem, worlds: [world] });
      }
      // After the gate: a FluxInstance only a Kustomization that never builds applies pins nothing.
      world.flux = worldFlux(candidate, this.model.facts, (file) => (this.model.entries.get(file) ?? []).some((entry) => entry.role === 'resource' && entry.builder.world === world));
    });
    // A dependsOn problem is said once, naming the clusters where it holds when not all of them.
    for (const { problem, worlds } of gated.values()) {
      const where = worlds.length < roots.length && roots.length > 1 ? ` In ${worlds.map((world) => world.label).join(', ')}.` : '';
      this.model.report({ ...problem, message: problem.message + where });
    }
  }

  /** Breadth-first from the root: each Kustomization the world applies once, with the parents that build it. */
  private walk(world: World, candidate: RootCandidate): WalkNode[] {
    const found = new Map<FluxKustomization, WalkNode>();
    const visit = (k: FluxKustomization) => {
      let node = found.get(k);
      if (!node) found.set(k, (node = { builder: { kustomization: k, postBuild: null, vars: null, world }, parents: [], build: null }));
      return node;
    };
    visit(candidate.kustomization);
    const queue = [candidate.kustomization];
    while (queue.length > 0) {
      const k = queue.shift()!;
      const node = found.get(k)!;
      // A parent's patches may set the child's sourceRef: the source Flux builds is the patched one.
      const artifact = this.model.sources.artifactIn(patchedSource(k, node.parents), world);
      if (!artifact) continue; // another source: its files are not in this repository
      const build = (node.build = this.model.buildOf(k, artifact));
      for (const [file, built] of build.files) {
        for (const entry of built) push(this.model.entries, file, { ...entry, builder: node.builder });
        const resource = built.find((entry) => entry.role === 'resource');
        if (!resource) continue;
        for (const child of this.model.byFile.get(file) ?? []) {
          if (child === k) continue;
          const isNew = !found.has(child);
          visit(child).parents.push({ parent: k, patches: resource.patches, namespace: k.targetNamespace ?? resource.namespace ?? null });
          if (isNew) queue.push(child);
        }
      }
    }
    return [...found.values()];
  }

  /**
   * The dependsOn gate of a world: reports the problems of what Flux tries to build, keeps what
   * never builds out of the world (its files are not applied there), and returns the problems that
   * depend on the world (the gate's, literal paths: said once over all worlds by the caller).
   */
  private gateWorld(world: World, candidate: RootCandidate, nodes: WalkNode[]): GraphProblem[] {
    const builderOf = new Map(nodes.map((node) => [node.builder.kustomization, node.builder]));
    const extra = new Map<Builder, GraphProblem>();
    const bootstrapped = bootstrapBundle(candidate, nodes);
    const gateNodes = nodes.map((node): GateNode => {
      const k = node.builder.kustomization;
      const parents = node.parents.map((p) => builderOf.get(p.parent)!);
      const root = k === candidate.kustomization;
      const literal = root ? null : literalPath(node.builder, parents);
      if (literal) extra.set(node.builder, literal.problem);
      return {
        builder: node.builder,
        parents,
        namespace: node.parents[0]?.namespace ?? k.namespace,
        build: node.build,
        fails: node.build?.fails ?? literal?.why ?? null,
        root,
        bootstrapped: bootstrapped.has(k),
      };
    });
    const result = gate(world, gateNodes, this.model.facts, this.model.declaredNames);
    // A literal ${…} path depends on the parent of this world: said once, naming the clusters where it holds.
    const perWorld = [...result.problems];
    for (const node of nodes) {
      const literal = extra.get(node.builder);
      if (literal && result.attempted.has(node.builder)) perWorld.push(literal);
      const problems = [...(node.build?.problems ?? []), ...(literal ? [literal] : [])];
      const blocked = result.blocked.get(node.builder);
      if (blocked) {
        this.model.blocked.set(node.builder, { ...blocked, problems });
        for (const file of node.build?.files.keys() ?? []) {
          const kept = this.model.entries.get(file)!.filter((entry) => entry.builder !== node.builder);
          if (kept.length > 0) this.model.entries.set(file, kept);
          else this.model.entries.delete(file);
        }
      } else this.model.live.push(node.builder);
      // A contract root that names no folder is the contract check's finding (contract-file-missing).
      if (!result.attempted.has(node.builder) || (candidate.how === 'contract' && node.builder.kustomization === candidate.kustomization)) continue;
      for (const problem of node.build?.problems ?? []) this.model.report(problem);
    }
    return perWorld;
  }

  private detectedWebhooks(applied: (file: string) => boolean): SubstituteFromRef[] {
    const refs: SubstituteFromRef[] = [];
    for (const facts of this.model.facts.values()) for (const webhook of facts.webhooks) if (applied(webhook.file)) refs.push(...webhook.substituteFrom);
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
      external: this.model.config.variables,
      declared: this.model.config.declaredSources,
      namespace,
      candidates: (ref) => {
        // The same for every Kustomization of a folder and namespace in a world: computed once.
        let memo = this.candidateMemo.get(applied);
        if (!memo) this.candidateMemo.set(applied, (memo = new Map<string, VariableSource[]>()));
        const key = `${ref.kind}/${ref.name}|${namespace}|${dirnameOf(k.file)}`;
        let found = memo.get(key);
        if (!found) {
          const named = this.model.variablesByName.get(`${ref.kind}/${ref.name}`) ?? [];
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
        this.model.report({ kind: 'invalid-variable-name', file: located.file, span: located.span, message: `Flux fails every Kustomization that uses this variable: ${error}.` }),
    });
  }

  private readonly candidateMemo = new WeakMap<(file: string) => boolean, Map<string, VariableSource[]>>();
}

/**
 * What the bootstrap applies with a root that applies itself (`flux bootstrap`'s flux-system folder,
 * a `kubectl apply -k` folder): the Kustomizations declared in the folder of the root's own file,
 * as the root's build holds them. They exist before the root first builds, so a root may depend on them.
 */
function bootstrapBundle(candidate: RootCandidate, nodes: WalkNode[]): Set<FluxKustomization> {
  const bundle = new Set<FluxKustomization>();
  if (candidate.how !== 'bootstrap') return bundle;
  const folder = dirnameOf(candidate.kustomization.file);
  const root = nodes.find((node) => node.builder.kustomization === candidate.kustomization);
  for (const node of nodes) {
    const k = node.builder.kustomization;
    if (k !== candidate.kustomization && dirnameOf(k.file) === folder && root?.build?.files.has(k.file)) bundle.add(k);
  }
  return bundle;
}

/**
 * A `${VAR}` in spec.path that nothing substitutes here: the parents that apply the Kustomization
 * have no postBuild, so Flux looks for a folder named as written, and fails.
 */
function literalPath(builder: Builder, parents: Builder[]): { why: string; problem: GraphProblem } | null {
  const k = builder.kustomization;
  if (!k.pathAsWritten.includes('${') || parents.length === 0 || parents.some((parent) => parent.vars?.substitutes)) return null;
  const appliers = parents.map((parent) => `"${parent.kustomization.name}"`).join(', ');
  const why = `its spec.path ${JSON.stringify(k.pathAsWritten)} is used as written: Kustomization ${appliers}, which applies it, substitutes nothing`;
  return {
    why,
    problem: {
      kind: 'broken-reference',
      file: k.file,
      span: k.pathSpan ?? k.span,
      message: `spec.path ${JSON.stringify(k.pathAsWritten)} of Kustomization "${k.name}" keeps its \${…} as written: Kustomization ${appliers}, which applies it, has no postBuild, so Flux looks for a folder of that very name and the Kustomization fails to build (and what dependsOn it waits).`,
    },
  };
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

/**
 * The child as its source reads after its parents' patches (their `spec.patches`, and kustomize
 * `patches` on the way): each sourceRef field a patch sets wins, the last patch last. Flux applies
 * them before it resolves the source, so a placeholder sourceRef the parent fills is not foreign.
 */
function patchedSource(child: FluxKustomization, parents: Array<{ parent: FluxKustomization; patches: KustomizationPatch[] }>): FluxKustomization {
  let result = child;
  for (const { parent, patches } of parents) {
    for (const patch of [...patches, ...parent.patches]) {
      const ref = patch.sourceRef;
      if (!ref || !targets(patch, child)) continue;
      result = { ...result, sourceKind: ref.kind ?? result.sourceKind, sourceName: ref.name ?? result.sourceName, sourceNamespace: ref.namespace ?? result.sourceNamespace };
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

/** kustomize matches target names as anchored regular expressions (base/anchored-pattern.ts); one that is none matches as text. */
function nameMatches(pattern: string, name: string): boolean {
  return (anchoredPattern(pattern) ?? { test: (value: string) => value === pattern }).test(name);
}
