// The references of the HelmReleases a world applies, as helm-controller
// resolves them before it installs: each `spec.valuesFrom` entry (a ConfigMap
// or Secret of the release's namespace), `spec.chartRef` and
// `spec.chart.spec.sourceRef` (a source, namespace defaulting to the
// release's). An object counts when the world creates it: a live Kustomization
// of that world applies it (by its name as kustomize outputs it: a generated
// ConfigMap with its hash suffix, which kustomize writes into no valuesFrom
// unless a `configurations:` nameReference says so), a producer makes it (an
// ExternalSecret's Secret), or Flux's bootstrap did (the root's source). What
// the model cannot see exactly is taken to exist: a name with a variable
// nobody here fills, a build kustomize's model does not answer, a release a
// patch may change, a name another repository built in the same world may
// create. A ConfigMap or Secret the contract's `flux.variables` declares (a
// `from` item) comes from outside. Pure over the graph's stages.
import { push } from '../../base/collections';
import { isClose, nearest } from '../../base/words';
import type { BuiltResource, Unmodelled } from '../../kustomize/build';
import type { FileFacts, HelmObjectRef, HelmReleaseDecl } from '../facts/model';
import { mayWriteHelmRefs, valuesFromRewrites } from '../facts/helm-refs';
import { operatorOutputs } from '../facts/producers';
import type { ArtifactIndex } from './artifact';
import type { GraphProblem } from './build';
import type { KustomizeView } from './kustomize-view';
import { Index, renderName } from './names';
import type { FluxConfig } from './roots';
import { byCloseness, declares } from './variables';
import type { BuildEntry, Builder, World } from './world';

/** What the check reads of the graph. */
export interface HelmRefInput {
  worlds: readonly World[];
  live: readonly Builder[];
  facts: ReadonlyMap<string, FileFacts>;
  entries: ReadonlyMap<string, readonly BuildEntry[]>;
  artifactOf(builder: Builder): ArtifactIndex | null;
  /** The URL of the source a Kustomization builds from, where the repository declares it. */
  sourceUrl(builder: Builder): string | null;
  view: KustomizeView | null;
  config: FluxConfig;
}

/** A reference no object of its world answers, before the contract's word on it. */
export interface HelmOutsideRef {
  kind: string;
  name: string;
  /** Where helm-controller looks for it (null: the files do not say). */
  namespace: string | null;
  release: HelmReleaseDecl;
  /** The release's name as Flux applies it (its variables filled where the files tell). */
  releaseName: string;
  ref: HelmObjectRef;
  world: World;
  /** The contract's `flux.variables` item that declares it (a ConfigMap or Secret from outside). */
  declared: boolean;
}

export interface HelmRefs {
  problems: GraphProblem[];
  /** Every reference no object of its world answers, declared or not (the contract's checks read it). */
  outside: HelmOutsideRef[];
}

/** The kinds each field may name that the model knows how to find (another kind is not checked). */
const KINDS: Record<HelmObjectRef['field'], readonly string[]> = {
  valuesFrom: ['ConfigMap', 'Secret'],
  chartRef: ['OCIRepository', 'HelmChart'],
  sourceRef: ['HelmRepository', 'GitRepository', 'Bucket'],
};

/** The artifact of Flux's own install manifests. */
const FLUX_MANIFESTS = /^oci:\/\/ghcr\.io\/fluxcd\/flux-manifests(:|@|$)/;

/** Fields of a kustomization the model leaves out that can make or rename objects (plugins). */
const RENAMING = new Set(['generators', 'transformers']);

/** An object a world creates: its name and namespace as Flux applies them, and what made it. */
interface Created {
  name: string | RegExp;
  namespace: string | null;
  /** A generated object named with its hash suffix: the generator's name, and where it is written. */
  hashed?: { unhashed: string; file: string };
  /** What a release's chart may make: never what that release itself reads before it installs. */
  chartOf?: HelmReleaseDecl;
}

/** One HelmRelease as a live Kustomization applies it. */
interface ReleaseInstance {
  decl: HelmReleaseDecl;
  builder: Builder;
  namespace: string | null;
  /** What the patches that reach it may write. */
  writtenBy: readonly string[];
}

export function helmRefs(input: HelmRefInput): HelmRefs {
  const outside: HelmOutsideRef[] = [];
  // Most repositories hold no release that references anything: nothing to index.
  if (![...input.facts.values()].some((facts) => facts.helmReleases.some((release) => release.refs.length > 0))) return { problems: [], outside };
  const said = new Map<string, { problem: GraphProblem; worlds: World[] }>();
  const files = filesByBuilder(input.entries);
  const declared = declarations(input.facts);
  const perWorld = input.worlds.map((world) => new WorldObjects(input, world, files, declared));
  for (const objects of perWorld) {
    for (const found of objects.check()) {
      outside.push(found);
      if (found.declared) continue;
      const problem = objects.problem(found);
      const key = `${problem.file}:${problem.span[0]}:${problem.message}`;
      const seen = said.get(key);
      if (seen) seen.worlds.push(objects.world);
      else said.set(key, { problem, worlds: [objects.world] });
    }
  }
  const problems: GraphProblem[] = [];
  for (const { problem, worlds } of said.values()) {
    const count = worlds[0].count;
    const where = count > 1 && worlds.length < count ? ` In ${worlds.map((world) => world.label).join(', ')}.` : '';
    problems.push({ ...problem, message: problem.message + where });
  }
  return { problems, outside };
}

/** What one world creates, by kind, and the HelmReleases it applies. */
class WorldObjects {
  private readonly created = new Map<string, Created[]>();
  private readonly releases: ReleaseInstance[] = [];
  private readonly indexes = new Map<string, Index<Created>>();
  /** Some live Kustomization builds another repository: what it applies is not known here. */
  private foreign = false;
  /** Namespaces a template the model cannot read may make anything in (null: any). */
  private readonly opaque: Array<string | null> = [];

  constructor(
    private readonly input: HelmRefInput,
    readonly world: World,
    private readonly files: ReadonlyMap<Builder, Map<string, BuildEntry>>,
    /** Where the repository writes each object (`kind/name`), applied or not. */
    private readonly declared: ReadonlyMap<string, readonly Declaration[]>,
  ) {
    for (const builder of input.live) if (builder.world === world) this.read(builder);
    // Flux's bootstrap objects, and the sources the root and a FluxInstance sync start from.
    for (const kind of ['GitRepository', 'OCIRepository']) this.add(kind, { name: 'flux-system', namespace: 'flux-system' });
    this.add(world.source.kind, { name: world.source.name, namespace: world.source.namespace });
    for (const facts of input.facts.values()) for (const sync of facts.syncs) this.add(sync.kind, { name: sync.name, namespace: sync.namespace });
    for (const source of input.config.sources) this.add(source.kind, { name: source.name, namespace: source.namespace });
  }

  private add(kind: string, object: Created): void {
    push(this.created, kind, object);
  }

  private index(kind: string): Index<Created> {
    let index = this.indexes.get(kind);
    if (!index) this.indexes.set(kind, (index = new Index(this.created.get(kind) ?? [], (object) => object)));
    return index;
  }

  /** What one live Kustomization applies: kustomize's output where the model has it, else the documents as written. */
  private read(builder: Builder): void {
    const k = builder.kustomization;
    const artifact = this.input.artifactOf(builder);
    if (!artifact) {
      // Flux's own manifests (the controllers' install) make nothing a release reads.
      if (k !== this.world.root && !FLUX_MANIFESTS.test(this.input.sourceUrl(builder) ?? '')) this.foreign = true;
      return;
    }
    const output = this.input.view?.output(k, artifact) ?? null;
    const renames = output?.unmodelled.some((field) => RENAMING.has(field.field)) ?? true;
    const rewrites = output ? this.rewrites(output.unmodelled) : new Set<string>();
    const files = this.files.get(builder) ?? new Map<string, BuildEntry>();
    if (output && !renames) {
      for (const res of output.resources) this.addBuilt(res, builder, rewrites);
      this.releasesOf(builder, output.resources, files);
    } else this.readAsWritten(builder, files);
    // What producers make (an ExternalSecret's Secret), what a ResourceSet's template makes, what a release's chart may make:
    // in the namespace written and the one the build gives.
    for (const [file, entry] of files) {
      if (entry.role !== 'resource') continue;
      const facts = this.input.facts.get(file);
      const both = (namespace: string | null) => new Set([rendered(namespace, builder), rendered(placed(builder, entry, namespace), builder)]);
      for (const source of facts?.variableSources ?? []) {
        if (!source.producer) continue;
        for (const namespace of both(source.namespace)) this.add('Secret', { name: renderName(source.name, [builder]), namespace });
      }
      for (const object of [...(facts?.templated ?? []), ...(facts?.sources ?? [])]) {
        for (const namespace of both(object.namespace)) {
          if (object.kind === '*') this.opaque.push(namespace);
          const name = renderName(object.name, [builder]);
          this.operatorMade('apiVersion' in object ? (object.apiVersion ?? '') : '', object.kind, name, namespace);
          this.add(object.kind, { name, namespace });
        }
      }
      for (const release of facts?.helmReleases ?? []) this.chartMade(release, builder, both(release.namespace));
    }
  }

  /**
   * What a release's chart may make, that the repository cannot show: Secrets and ConfigMaps named
   * after the release, where it installs (another release may read them); the HelmChart
   * helm-controller makes for a `chart.spec` (`<namespace>-<name>`, in its source's namespace).
   */
  private chartMade(release: HelmReleaseDecl, builder: Builder, namespaces: Set<string | null>): void {
    const name = renderName(release.name, [builder]);
    if (typeof name !== 'string') return;
    const pattern = namedAfter(name);
    for (const namespace of namespaces) {
      for (const installs of new Set([namespace, rendered(release.targetNamespace, builder) ?? namespace])) {
        for (const made of ['Secret', 'ConfigMap']) this.add(made, { name: pattern, namespace: installs, chartOf: release });
      }
      const source = release.refs.find((ref) => ref.field === 'sourceRef');
      if (source && namespace !== null) this.add('HelmChart', { name: `${namespace}-${name}`, namespace: rendered(source.namespace, builder) ?? namespace });
    }
  }

  /** The kinds whose generated names the build's nameReference configs write into valuesFrom (`*`: a config the model cannot read). */
  private rewrites(unmodelled: readonly Unmodelled[]): Set<string> {
    const kinds = new Set<string>();
    for (const { file, field } of unmodelled) {
      if (field !== 'configurations') continue;
      for (const path of this.input.facts.get(file)?.kustomize?.configurations ?? ['']) {
        const text = this.input.view?.text(path);
        const found = text === undefined ? null : valuesFromRewrites(text);
        for (const kind of found ?? ['*']) kinds.add(kind);
      }
    }
    return kinds;
  }

  private addBuilt(res: BuiltResource, builder: Builder, rewrites: ReadonlySet<string>): void {
    const namespace = rendered(res.namespace, builder);
    const name = renderName(res.name, [builder]);
    this.operatorMade(res.apiVersion, res.kind, name, namespace);
    if (res.unhashedName === undefined) return this.add(res.kind, { name, namespace });
    // A nameReference configuration may rewrite references to the generator's name: either name answers.
    if (rewrites.has(res.kind) || rewrites.has('*')) this.add(res.kind, { name: renderName(res.unhashedName, [builder]), namespace });
    this.add(res.kind, { name, namespace, hashed: { unhashed: res.unhashedName, file: res.origin.file } });
  }

  /** What the operator of a custom resource makes: Secrets and ConfigMaps named after it (an ObjectBucketClaim's, a CloudNativePG Cluster's). */
  private operatorMade(apiVersion: string, kind: string, name: string | RegExp, namespace: string | null): void {
    if (typeof name !== 'string') return;
    for (const made of operatorOutputs(apiVersion, kind, name)) this.add(made.kind, { name: made.pattern, namespace });
  }

  /** The HelmReleases of kustomize's output, with the namespace it gives them and what patched them. */
  private releasesOf(builder: Builder, resources: readonly BuiltResource[], files: Map<string, BuildEntry>): void {
    const nested = this.nestedPatches(builder);
    for (const res of resources) {
      if (res.kind !== 'HelmRelease' || res.origin.kind !== 'file') continue;
      const { file, span } = res.origin;
      if (!files.has(file)) continue;
      const decl = this.input.facts.get(file)?.helmReleases.find((release) => release.span[0] >= span[0] && release.span[0] < span[1]);
      if (!decl || nested) continue;
      this.releases.push({ decl, builder, namespace: rendered(res.namespace, builder), writtenBy: res.writtenBy });
    }
  }

  /** Whether a parent's patch of this Kustomization nests a HelmRelease patch that may change references (the model does not apply those). */
  private nestedPatches(builder: Builder): boolean {
    const k = builder.kustomization;
    return (this.input.entries.get(k.file) ?? []).some(
      (entry) => entry.builder.world === this.world && (entry.patches.some((p) => p.writesHelmRefs) || entry.builder.kustomization.patches.some((p) => p.writesHelmRefs)),
    );
  }

  /** Without kustomize's output: every document of the files it applies, as written, in the namespace the build gives it; generators by their own name. */
  private readAsWritten(builder: Builder, files: Map<string, BuildEntry>): void {
    for (const [file, entry] of files) {
      if (entry.role === 'inline') {
        for (const generator of this.input.facts.get(file)?.kustomize?.generators ?? []) this.add(generator.kind, { name: renderName(generator.name, [builder]), namespace: null });
        continue;
      }
      if (entry.role !== 'resource') continue;
      for (const doc of this.input.view?.docs(file) ?? []) {
        if (doc.kind === '' || doc.name === '') continue;
        const name = renderName(doc.name, [builder]);
        const namespace = placed(builder, entry, doc.namespace || null);
        this.operatorMade(doc.apiVersion, doc.kind, name, namespace);
        this.add(doc.kind, { name, namespace });
      }
      for (const source of this.input.facts.get(file)?.variableSources ?? []) if (!source.producer) this.add(source.kind, { name: renderName(source.name, [builder]), namespace: null });
    }
  }

  /** The references of every release the world applies that no object answers. */
  check(): HelmOutsideRef[] {
    const out: HelmOutsideRef[] = [];
    const seen = new Set<string>();
    for (const release of this.releases) {
      if (release.decl.suspended) continue;
      for (const ref of release.decl.refs) {
        if (ref.optional || !KINDS[ref.field].includes(ref.kind)) continue;
        if (release.writtenBy.some((text) => mayWriteHelmRefs(text, ref.field))) continue;
        const name = renderName(ref.name, [release.builder]);
        if (typeof name !== 'string') continue;
        const namespace = ref.namespace === null ? release.namespace : rendered(ref.namespace, release.builder);
        if (this.index(ref.kind).some((object) => object.chartOf !== release.decl, name, namespace)) continue;
        if (this.opaque.some((ns) => ns === null || namespace === null || ns === namespace)) continue;
        // Another repository this world builds may create it, unless this one writes it (then it is meant to be here).
        if (this.foreign && !this.declared.has(`${ref.kind}/${name}`)) continue;
        const key = `${release.decl.file}:${ref.nameSpan[0]}:${name}:${namespace}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const declared =
          (ref.kind === 'ConfigMap' || ref.kind === 'Secret') &&
          this.input.config.declaredSources.some((d) => declares(d, { kind: ref.kind as 'ConfigMap' | 'Secret', name, optional: false, file: '', span: [0, 0] }, namespace));
        const written = renderName(release.decl.name, [release.builder]);
        const releaseName = typeof written === 'string' ? written : release.decl.name;
        out.push({ kind: ref.kind, name, namespace, release: release.decl, releaseName, ref, world: this.world, declared });
      }
    }
    return out;
  }

  /** The problem of a reference: what helm-controller cannot do, and what the world has instead. */
  problem(found: HelmOutsideRef): GraphProblem {
    const { kind, name, namespace, release, releaseName, ref } = found;
    const target = `${kind} "${name}"${namespace ? ` (namespace ${namespace})` : ''}`;
    const what = ref.field === 'valuesFrom' ? `takes values from ${target}` : `takes its chart from ${target}`;
    const cannot = ref.field === 'valuesFrom' ? 'helm-controller cannot compose its values' : 'helm-controller cannot get the chart';
    const hint = this.hint(kind, name, namespace, release.file);
    const outsideHint =
      (kind === 'Secret' || kind === 'ConfigMap') && !hint.text
        ? ` If something outside the repository creates it (by hand, a bootstrap script, another repository), declare it in the contract's flux.variables (from: { kind: ${kind}, name: ${name}${namespace ? `, namespace: ${namespace}` : ''} }).`
        : '';
    const problem: GraphProblem = {
      kind: 'helm-ref-missing',
      file: release.file,
      span: ref.nameSpan,
      message: `HelmRelease "${releaseName}" ${what}, which nothing in this world creates: ${cannot}, so it never installs or upgrades "${releaseName}".${hint.text}${outsideHint}`,
    };
    if (hint.replace) problem.replace = { title: `Replace with "${hint.replace}"`, span: ref.nameSpan, newText: hint.replace };
    if (outsideHint) problem.declare = { kind: kind as 'ConfigMap' | 'Secret', name, namespace, names: [] };
    return problem;
  }

  /** What the world has instead: the generated object with its hash suffix, the name in another namespace, the nearest name. */
  private hint(kind: string, name: string, namespace: string | null, near: string): { text: string; replace?: string } {
    const objects = this.created.get(kind) ?? [];
    const hashed = objects.find((object) => object.hashed?.unhashed === name && (namespace === null || object.namespace === null || object.namespace === namespace));
    if (hashed?.hashed) {
      return {
        text:
          ` The generator of ${hashed.hashed.file} makes it as "${String(hashed.name)}": kustomize adds a hash suffix to the name and rewrites no valuesFrom (HelmRelease is no kind it knows) unless a \`configurations:\` nameReference tells it to.` +
          ` Set \`options.disableNameSuffixHash: true\` on the generator, or add that configuration.`,
      };
    }
    const elsewhere = objects.filter((object) => object.name === name && object.namespace !== null && object.namespace !== namespace).map((object) => object.namespace!);
    if (elsewhere.length > 0) return { text: ` This world applies ${kind} "${name}" in namespace ${[...new Set(elsewhere)].sort().join(', ')}.` };
    const unapplied = (this.declared.get(`${kind}/${name}`) ?? []).filter((d) => !(this.input.entries.get(d.file) ?? []).some((e) => e.role === 'resource' && e.builder.world === this.world));
    // The copy nearest the release (several clusters each keep one).
    if (unapplied.length > 0) return { text: ` ${byCloseness(near, unapplied)[0].file} declares it, but no Kustomization of this world applies that file.` };
    const candidates = objects.filter((object) => typeof object.name === 'string' && (namespace === null || object.namespace === null || object.namespace === namespace));
    const nearby = nearest(name, new Set(candidates.map((object) => object.name as string)));
    return nearby && isClose(name, nearby.distance) ? { text: ` The nearest ${kind} name there is "${nearby.candidate}".`, replace: nearby.candidate } : { text: '' };
  }
}

/** Where the repository writes an object. */
interface Declaration {
  file: string;
  namespace: string | null;
}

/** Every object a file of the repository writes that a release may name (ConfigMaps, Secrets and what makes them, sources), by `kind/name`. */
function declarations(facts: ReadonlyMap<string, FileFacts>): Map<string, Declaration[]> {
  const out = new Map<string, Declaration[]>();
  for (const fileFacts of facts.values()) {
    for (const source of fileFacts.variableSources) if (!source.mention) push(out, `${source.kind}/${source.name}`, { file: source.file, namespace: source.namespace });
    for (const source of [...fileFacts.sources, ...fileFacts.chartSources]) push(out, `${source.kind}/${source.name}`, { file: source.file, namespace: source.namespace });
    for (const generator of fileFacts.kustomize?.generators ?? []) push(out, `${generator.kind}/${generator.name}`, { file: fileFacts.kustomize!.file, namespace: generator.namespace });
  }
  return out;
}

/** The files each builder builds, each with its entry (a resource entry first). */
function filesByBuilder(entries: ReadonlyMap<string, readonly BuildEntry[]>): Map<Builder, Map<string, BuildEntry>> {
  const out = new Map<Builder, Map<string, BuildEntry>>();
  for (const [file, list] of entries) {
    for (const entry of list) {
      let files = out.get(entry.builder);
      if (!files) out.set(entry.builder, (files = new Map<string, BuildEntry>()));
      const had = files.get(file);
      if (!had || (had.role !== 'resource' && entry.role === 'resource')) files.set(file, entry);
    }
  }
  return out;
}

/** `<name>` or `<name>-…`: what an operator (or a chart) names after the object it serves. */
function namedAfter(name: string): RegExp {
  return new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(-.+)?$`);
}

/** The namespace a document lands in: the Kustomization's targetNamespace, else the outermost kustomization's, else its own. */
function placed(builder: Builder, entry: BuildEntry, own: string | null): string | null {
  return builder.kustomization.targetNamespace ?? entry.namespace ?? own;
}

/** A namespace as Flux applies it (one with a variable nobody here fills: any). */
function rendered(namespace: string | null, builder: Builder): string | null {
  if (namespace === null) return null;
  const name = renderName(namespace, [builder]);
  return typeof name === 'string' ? name : null;
}
