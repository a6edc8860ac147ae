// The apply stage's walk: from each root, breadth first, every Kustomization
// its world applies (each once, with the parents that build it), the files each
// builds, and the variables each substitutes with (its own postBuild, what its
// parents patch in, what a webhook adds). One world per root.
import { push } from '../../base/collections';
import { dirnameOf } from '../../base/paths';
import type { FileFacts, FluxKustomization, KustomizationPatch, KustomizeConfig, PostBuild, SubstituteFromRef, VariableSource } from '../facts/model';
import { matchesSelector } from '../facts/label-selector';
import type { ArtifactIndex } from './artifact';
import type { Build, GraphProblem } from './build';
import type { FluxConfig, RootCandidate } from './roots';
import type { Sources } from './sources';
import { byCloseness, resolveVars } from './variables';
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
}

export class Walk {
  constructor(private readonly model: WalkInput) {}

  apply(roots: RootCandidate[]): void {
    const webhookRefs = this.model.config.substituteFrom;
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
      this.model.worlds.push(world);
      const builders = this.walk(world, candidate);
      const applied = (file: string) => (this.model.entries.get(file) ?? []).some((entry) => entry.builder.world === world);
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
      const artifact = this.model.sources.artifactIn(k, world);
      if (!artifact) continue; // another source: its files are not in this repository
      const build = this.model.buildOf(k, artifact);
      // A contract root that names no folder is the contract check's finding (contract-file-missing).
      for (const problem of build.problems) if (!(candidate.how === 'contract' && k === candidate.kustomization)) this.model.report(problem);
      for (const [file, built] of build.files) {
        for (const entry of built) push(this.model.entries, file, { ...entry, builder });
        const resource = built.find((entry) => entry.role === 'resource');
        if (!resource) continue;
        for (const child of this.model.byFile.get(file) ?? []) {
          if (child === k) continue;
          const isNew = !found.has(child);
          visit(child).parents.push({ parent: k, patches: resource.patches });
          if (isNew) queue.push(child);
        }
      }
    }
    this.model.live.push(...[...found.values()].map((node) => node.builder));
    return [...found.values()];
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
