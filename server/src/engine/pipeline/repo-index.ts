// The small, whole-repository facts a single file's analysis depends on: the
// file list, which files kustomize uses as patches, where Helm charts are,
// `.sourceignore` files, what generator inputs hold, and the Flux model built
// from them. Each file contributes facts found by a text prefilter, so most
// files are never parsed for it; the model is rebuilt lazily, and only when
// the facts that shape it change.
import { FileFacts, isKustomizationFile, InputFacts } from '../flux/facts/model';
import { basenameOf, dirnameOf } from '../base/paths';
import { chunkKey } from '../yaml/line-index';
import { FluxGraph } from '../flux/model/graph';
import { NO_FLUX_CONFIG, FluxConfig } from '../flux/model/roots';
import { inputFacts } from '../flux/facts/generator-inputs';
import { outsideSourceProblems } from '../flux/model/outside-findings';
import { OutsideSource, outsideSources } from '../flux/model/outside-sources';
import type { GraphProblem } from '../flux/model/build';
import type { AccountCreator } from '../k8s/account-creators';
import type { ResourceDoc } from '../kustomize/resource-docs';
import { resourceListing, type ResourceListing } from '../kustomize/listing';
import type { BuildEntry, World } from '../flux/model/world';
import { entriesWithOptOuts } from './opt-outs';
import { detached, FileSummary, SOURCE_IGNORE, summarizeFile } from './file-summary';

/** How a file takes part in the repository: applied as a resource, used as a kustomize patch, or a Helm chart's template. */
export type FileRole = 'resource' | 'patch' | 'chart-template';

export class RepoIndex {
  private readonly files = new Set<string>();
  private readonly facts = new Map<string, FileFacts>();
  /** Each file's facts without positions: a change of shape means a new graph. */
  private readonly shapes = new Map<string, string>();
  private readonly chartDirs = new Set<string>();
  private readonly ignoreFiles = new Map<string, string>();
  private readonly inputs = new Map<string, InputFacts>();
  private readonly inputShapes = new Map<string, string>();
  /** What the kustomize model reads: each YAML file's document headers, and the texts of the files it reads whole. */
  private readonly docs = new Map<string, ResourceDoc[]>();
  private readonly texts = new Map<string, string>();
  /** The `${NAME}` names each file uses (for the per-Kustomization report of unknown names). */
  private readonly uses = new Map<string, string[]>();
  /** Files whose names were not read yet (namesWanted says which of them matter). */
  private readonly usesPending = new Set<string>();
  private config: FluxConfig = NO_FLUX_CONFIG;
  private configShape = '';
  private graph: FluxGraph | null = null;
  private graphHasStalePositions = false;
  private patchFiles: Set<string> | null = null;
  private inputPaths: Set<string> | null = null;
  private unknownNames: GraphProblem[] | null = null;
  private outside: OutsideSource[] | null = null;
  /** Bumped whenever the index changes in a way other files' analyses can see. */
  version = 0;
  /** Bumped when the names some file uses change (the report of unknown names may change). */
  usesVersion = 0;
  /**
   * Bumped when a file's facts keep their shape but not their positions (lines moved): the graph
   * is not rebuilt for that, but other files' findings may point there (related locations).
   */
  positionsVersion = 0;
  /** How often each file's text has been recorded: a key for caches of per-file results kept outside the index. */
  private readonly recordings = new Map<string, number>();

  setFiles(paths: Iterable<string>): void {
    this.files.clear();
    this.chartDirs.clear();
    for (const path of paths) {
      this.files.add(path);
      if (name(path) === 'Chart.yaml') this.chartDirs.add(dirnameOf(path));
    }
    this.invalidate();
  }

  /** What the contract tells the model (roots, sources, webhook variables); a change rebuilds it. */
  setFluxConfig(config: FluxConfig): boolean {
    const shape = JSON.stringify(config);
    if (shape === this.configShape) return false;
    this.config = config;
    this.configShape = shape;
    this.invalidate();
    return true;
  }

  /** Records a file's new text (undefined: the file is gone). Returns true when other files' analyses may change. */
  update(path: string, text: string | undefined): boolean {
    if (text === undefined) return this.record(path, undefined);
    let changed = this.record(path, detached(summarizeFile(path, text)));
    if (this.readsWhole(path)) changed = this.recordText(path, text) || changed;
    return this.isGeneratorInput(path) ? this.recordInput(path, detached(inputFacts(path, text))) || changed : changed;
  }

  /**
   * Records what one file contributes (`summary` undefined: the file is gone). Returns true when
   * the change can alter other files' analyses.
   */
  record(path: string, summary: FileSummary | undefined): boolean {
    this.recordings.set(path, (this.recordings.get(path) ?? 0) + 1);
    const ignoreText = summary?.ignore;
    let changed = false;
    if (summary === undefined ? this.files.delete(path) : !this.files.has(path)) {
      if (summary !== undefined) this.files.add(path);
      changed = true;
    }
    if (name(path) === 'Chart.yaml') {
      changed = (summary === undefined ? this.chartDirs.delete(dirnameOf(path)) : !this.chartDirs.has(dirnameOf(path))) || changed;
      if (summary !== undefined) this.chartDirs.add(dirnameOf(path));
    }
    if (name(path) === SOURCE_IGNORE) {
      changed = (ignoreText === undefined ? this.ignoreFiles.delete(path) : this.ignoreFiles.get(path) !== ignoreText) || changed;
      if (ignoreText !== undefined) this.ignoreFiles.set(path, ignoreText);
    }
    if (summary === undefined && this.inputs.has(path)) changed = this.recordInput(path, undefined) || changed;
    if (summary === undefined || summary.kustomizeText !== undefined) changed = this.recordText(path, summary?.kustomizeText) || changed;
    changed = this.recordDocs(path, summary?.docs) || changed;
    this.setUses(path, summary?.uses ?? []);
    if (summary?.usesPending) this.usesPending.add(path);
    const facts = summary?.facts ?? null;
    const before = this.facts.get(path);
    if (!facts || !before) {
      // A shape only compares two facts of one file (an edit): the audit records each file once, with none.
      if (facts || before) changed = true;
      this.shapes.delete(path);
    } else {
      const shape = shapeOf(facts);
      if (shape !== (this.shapes.get(path) ?? shapeOf(before))) changed = true;
      else {
        this.graphHasStalePositions = true;
        if (!samePositions(facts, before)) this.positionsVersion++;
      }
      this.shapes.set(path, shape);
    }
    if (facts) this.facts.set(path, facts);
    else this.facts.delete(path);
    if (changed) this.invalidate();
    return changed;
  }

  /** The names of the `${NAME}`s a file uses (scalars of YAML resources, or a generator input's text). */
  setUses(path: string, names: string[]): void {
    const before = this.uses.get(path);
    this.usesPending.delete(path);
    if (names.length === 0 ? before === undefined : before !== undefined && before.join() === names.join()) return;
    this.usesVersion++;
    if (names.length === 0) this.uses.delete(path);
    else this.uses.set(path, names);
    // the outside sources count the names their Kustomizations' files use
    this.outside = null;
    this.unknownNames = null;
  }

  /** Records the text of a file the kustomize model reads whole (undefined: forget it). Returns true when it changed. */
  recordText(path: string, text: string | undefined): boolean {
    if (this.texts.get(path) === text) return false;
    if (text === undefined) this.texts.delete(path);
    else this.texts.set(path, text);
    this.invalidate();
    return true;
  }

  /** A file's document headers: a change beyond their positions can change what kustomize builds. */
  private recordDocs(path: string, docs: ResourceDoc[] | undefined): boolean {
    const before = this.docs.get(path);
    if (!docs || docs.length === 0) return this.docs.delete(path);
    this.docs.set(path, docs);
    return !before || !sameHeaders(docs, before);
  }

  /** Files the kustomize model reads whole that the index does not hold yet (patch, replacements and env files): the caller reads them and calls recordText(). */
  unreadKustomizeTexts(): string[] {
    return [...this.kustomizeReads()].filter((path) => this.files.has(path) && !this.texts.has(path));
  }

  /** Whether the kustomize model reads the file whole (a patch, replacements or env file). */
  readsWhole(path: string): boolean {
    return this.kustomizeReads().has(path);
  }

  private kustomizeReads(): Set<string> {
    if (!this.readPaths) {
      this.readPaths = new Set();
      for (const facts of this.facts.values()) {
        const config = facts.kustomize;
        if (!config) continue;
        for (const path of [...config.patches, ...(config.reads ?? [])]) this.readPaths.add(path);
        for (const generator of config.generators) for (const input of generator.inputs) if (input.kind === 'env' && input.path) this.readPaths.add(input.path);
      }
    }
    return this.readPaths;
  }

  private readPaths: Set<string> | null = null;

  /** Records what a generator input holds (undefined: it is gone). */
  recordInput(path: string, facts: InputFacts | undefined): boolean {
    const shape = facts ? hashed(JSON.stringify([...facts.env.keys()])) : undefined;
    if (facts) this.inputs.set(path, facts);
    else this.inputs.delete(path);
    this.unknownNames = null;
    this.outside = null;
    const changed = shape !== this.inputShapes.get(path);
    if (shape === undefined) this.inputShapes.delete(path);
    else this.inputShapes.set(path, shape);
    if (changed) this.invalidate();
    return changed;
  }

  /** Generator inputs the kustomization files name that the index has not read yet: the caller reads them and calls update(). */
  unreadInputs(): string[] {
    return [...this.inputPathSet()].filter((path) => this.files.has(path) && !this.inputs.has(path));
  }

  isGeneratorInput(path: string): boolean {
    return this.inputPathSet().has(path);
  }

  private inputPathSet(): Set<string> {
    if (!this.inputPaths) {
      this.inputPaths = new Set();
      for (const facts of this.facts.values()) for (const generator of facts.kustomize?.generators ?? []) for (const input of generator.inputs) if (input.path) this.inputPaths.add(input.path);
    }
    return this.inputPaths;
  }

  /** The Flux model; `withFreshPositions` rebuilds it when only positions moved (for hover and definitions). */
  /** Whether the repository writes any Flux Kustomization (else whatever applies its files is outside Flux). */
  writesFluxKustomizations(): boolean {
    return this.fluxGraph().kustomizations.length > 0;
  }

  fluxGraph(withFreshPositions = false): FluxGraph {
    if (!this.graph || (withFreshPositions && this.graphHasStalePositions)) {
      this.graph = new FluxGraph({
        files: this.files,
        facts: this.facts,
        ignoreFiles: this.ignoreFiles,
        inputs: this.inputs,
        config: this.config,
        kustomize: { text: (path) => this.texts.get(path), docs: (path) => this.docs.get(path) },
      });
      this.graphHasStalePositions = false;
      this.unknownNames = null;
      this.outside = null;
    }
    return this.graph;
  }

  /** Everything that builds `file`, with kustomize's verdict on what each build outputs of it (opt-outs.ts). */
  fluxEntriesOf(file: string): BuildEntry[] {
    return entriesWithOptOuts(this.fluxGraph(), file, this.docs.get(file), this.facts.get(file)?.kustomize ?? undefined);
  }

  /**
   * Files whose names the model of outside sources needs and that were not read yet: those a
   * Kustomization that takes an outside source builds. The caller reads them and calls setUses().
   */
  namesWanted(): string[] {
    if (this.usesPending.size === 0) return [];
    const graph = this.fluxGraph();
    return [...this.usesPending].filter((file) => graph.entriesOf(file).some((entry) => (entry.builder.vars?.outside.length ?? 0) > 0));
  }

  /** Every outside source, modelled once (flux/outside-sources.ts), with the names the repository uses from it. */
  outsideSources(): OutsideSource[] {
    const graph = this.fluxGraph();
    this.outside ??= outsideSources(graph, { yaml: (file) => this.uses.get(file) ?? [], inputs: this.inputs });
    return this.outside;
  }

  /** The objects live HelmReleases read that nothing of their world creates (the contract's `from` items may declare them). */
  helmOutside(): ReadonlyArray<{ kind: string; name: string; namespace: string | null }> {
    return this.fluxGraph().helmOutside();
  }

  /** The model's problems: references, invalid names, missing roots, and outside sources whose names cannot be known. */
  graphProblems(): GraphProblem[] {
    const graph = this.fluxGraph();
    if (!this.unknownNames) {
      this.unknownNames = outsideSourceProblems(this.outsideSources());
      this.problemsByFile = null;
    }
    return this.unknownNames.length === 0 ? graph.problems : [...graph.problems, ...this.unknownNames];
  }

  /** A hash of every model problem (what the model says in files, wherever the cause is): equal stamps, equal problems. */
  problemsStamp(): string {
    return hashed(JSON.stringify(this.graphProblems()));
  }

  /** The model's problems that live in one file. */
  graphProblemsIn(file: string): GraphProblem[] {
    const all = this.graphProblems();
    if (!this.problemsByFile) {
      this.problemsByFile = new Map();
      for (const problem of all) this.problemsByFile.set(problem.file, [...(this.problemsByFile.get(problem.file) ?? []), problem]);
    }
    return this.problemsByFile.get(file) ?? [];
  }

  private problemsByFile: Map<string, GraphProblem[]> | null = null;

  /** Whether a ServiceAccount document declares `name` (in `namespace`, when both sides know it). */
  declaresServiceAccount(name: string, namespace: string | null): boolean {
    return matchesAccount(this.accounts().declared.get(name), namespace);
  }

  /** The declared ServiceAccounts as data (what an audit worker needs of the index for the pod rules). */
  declaredAccounts(): AccountList {
    return [...this.accounts().declared];
  }

  /** Whether any pod in the repository runs as `name` (in `namespace`, when both sides know it). */
  usesServiceAccount(name: string, namespace: string | null): boolean {
    return matchesAccount(this.accounts().used.get(name), namespace);
  }

  /**
   * What may create the ServiceAccounts the pods of `path` run as: HelmReleases and custom resources
   * applied in a world that applies `path` (anywhere, where Flux applies neither), each name with the
   * namespace it lands in (the applying Kustomization's targetNamespace wins, a release's own stays).
   */
  accountCreatorsFor(path: string): ServiceAccountCreator[] {
    const uses = this.facts.get(path)?.serviceAccountUses ?? [];
    if (uses.length === 0) return [];
    const graph = this.fluxGraph();
    const worlds = new Set(graph.buildersOf(path).map((b) => b.world));
    // Where the pods can land (pod-service-account-undeclared: an applying Kustomization's
    // targetNamespace, else the pod's own): a creator elsewhere is never asked about.
    const landing = new Set([
      ...graph.entriesOf(path).flatMap((e) => (e.role === 'resource' && e.builder.kustomization.targetNamespace ? [e.builder.kustomization.targetNamespace] : [])),
      ...uses.map((use) => use.namespace),
    ]);
    const mayMeet = (namespace: string | null) => namespace === null || landing.has(null) || landing.has(namespace);
    const { creators, charts } = this.accounts();
    const out = new Set<ServiceAccountCreator>();
    const applies = (placement: Placement) => (placement.worlds === null ? worlds.size === 0 : worlds.size === 0 || [...placement.worlds].some((world) => worlds.has(world)));
    const place = (name: string | null, creator: AccountCreator, certain: boolean): void => {
      for (const placement of this.placementsOf(creator, name, certain)) if (applies(placement) && mayMeet(placement.creator.namespace)) out.add(placement.creator);
    };
    for (const name of new Set(uses.map((use) => use.name))) for (const creator of creators.get(name) ?? []) place(name, creator, true);
    // After the releases that name them: a chart whose templates may create any account of its namespace,
    // once for all names (per name, a file naming ten accounts beside a thousand releases carried 16,000).
    for (const chart of charts) place(null, chart, false);
    return [...out];
  }

  /**
   * Where a creator places an account: per namespace it lands in, the one object that says so (each
   * appears once in a file's list, and an audit sends it to a worker once) and the worlds that apply
   * the creator there (null: nothing applies it). Made once per creator and name, not per file.
   */
  private placementsOf(creator: AccountCreator, name: string | null, certain: boolean): Placement[] {
    const { placements } = this.accounts();
    let byName = placements.get(creator);
    if (!byName) placements.set(creator, (byName = new Map<string | null, Placement[]>()));
    let list = byName.get(name);
    if (!list) {
      const builders = this.fluxGraph().buildersOf(creator.file);
      const byNamespace = new Map<string | null, Placement>();
      const at = (namespace: string | null): Placement => {
        let placement = byNamespace.get(namespace);
        if (!placement) byNamespace.set(namespace, (placement = { creator: { name, namespace, by: creator.by, certain, file: creator.file }, worlds: builders.length === 0 ? null : new Set() }));
        return placement;
      };
      if (builders.length === 0) at(creator.namespace);
      // The applying Kustomization's targetNamespace wins, a release's own stays.
      for (const b of builders) at(creator.fixedNamespace ? creator.namespace : (b.kustomization.targetNamespace ?? creator.namespace)).worlds!.add(b.world);
      byName.set(name, (list = [...byNamespace.values()]));
    }
    return list;
  }

  /** ServiceAccounts declared and used, by name (rebuilt when facts change: a pod's lookup is not a scan). */
  private accounts(): AccountIndex {
    if (!this.accountIndex) {
      const declared = new Map<string, Array<string | null>>();
      const used = new Map<string, Array<string | null>>();
      const creators = new Map<string, AccountCreator[]>();
      const charts: AccountCreator[] = [];
      for (const facts of this.facts.values()) {
        for (const sa of facts.serviceAccounts) declared.set(sa.name, [...(declared.get(sa.name) ?? []), sa.namespace]);
        for (const sa of facts.serviceAccountUses) used.set(sa.name, [...(used.get(sa.name) ?? []), sa.namespace]);
        for (const creator of facts.accountCreators) {
          for (const name of creator.names) creators.set(name, [...(creators.get(name) ?? []), creator]);
          if (creator.mayCreateOthers) charts.push(creator);
        }
      }
      this.accountIndex = { declared, used, creators, charts, placements: new Map() };
    }
    return this.accountIndex;
  }

  private accountIndex: AccountIndex | null = null;

  /** What the contract's flux entries are checked against. */
  hasFolder(path: string): boolean {
    return this.fluxGraph().hasDir(path);
  }

  declaresObject(kind: 'ConfigMap' | 'Secret', name: string): boolean {
    return this.fluxGraph().declaresObject(kind, name);
  }

  usesName(name: string): boolean {
    for (const names of this.uses.values()) if (names.includes(name)) return true;
    for (const input of this.inputs.values()) if (input.uses.includes(name) || input.envUses.includes(name)) return true;
    return false;
  }

  /** The `${NAME}` names a file uses: its YAML's, or a generator input's text and env lines. */
  namesUsedBy(path: string): string[] {
    const input = this.inputs.get(path);
    return [...(this.uses.get(path) ?? []), ...(input?.uses ?? []), ...(input?.envUses ?? [])];
  }

  /** Whether the file holds `${` and its names were not read yet (its summary left them for later: FileSummary.usesPending). */
  namesPending(path: string): boolean {
    return this.usesPending.has(path);
  }

  /** What one file tells the model (null: nothing, or no such file). */
  factsOf(path: string): FileFacts | null {
    return this.facts.get(path) ?? null;
  }

  allFacts(): IterableIterator<FileFacts> {
    return this.facts.values();
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  filePaths(): IterableIterator<string> {
    return this.files.values();
  }

  /** Changes whenever the file's text is recorded again (0: never recorded). */
  recordingOf(path: string): number {
    return this.recordings.get(path) ?? 0;
  }

  /**
   * The kustomization file beside `path` that lists it nowhere, as no other kustomization does
   * (kustomize/listing.ts): kustomize never applies it. Null where one lists it, or where its
   * folder holds no kustomization that loads. Built once per change of the index.
   */
  unlistedBy(path: string): string | null {
    this.listing ??= resourceListing(
      { isFile: (file) => this.files.has(file), isDir: (dir) => this.fluxGraph().hasDir(dir), read: (file) => this.texts.get(file) },
      [...this.files].filter(isKustomizationFile),
    );
    return this.listing.unlistedBy(path);
  }

  private listing: ResourceListing | null = null;

  roleOf(path: string): FileRole {
    if (this.isChartTemplate(path)) return 'chart-template';
    this.patchFiles ??= new Set([...this.facts.values()].flatMap((facts) => facts.kustomize?.patches ?? []));
    return this.patchFiles.has(path) ? 'patch' : 'resource';
  }

  private invalidate(): void {
    this.graph = null;
    this.accountIndex = null;
    this.problemsByFile = null;
    this.patchFiles = null;
    this.listing = null;
    this.inputPaths = null;
    this.readPaths = null;
    this.unknownNames = null;
    this.outside = null;
    this.version++;
  }

  /**
   * A file of a Helm chart folder that Helm never parses: not Chart.yaml, requirements.yaml or a
   * values file, not under templates/, crds/ or charts/ (a `values.schema.yaml` a tool turns into
   * the JSON schema Helm reads, CI values, docs). Nothing Flux or Helm does reads it as YAML.
   */
  isChartFileHelmSkips(path: string): boolean {
    const parts = path.split('/');
    for (let i = parts.length - 1; i >= 1; i--) {
      if (!this.chartDirs.has(parts.slice(0, i).join('/'))) continue;
      const inside = parts.slice(i);
      if (inside.length > 1) return !HELM_FOLDERS.has(inside[0]);
      return !HELM_FILES.test(inside[0]);
    }
    return false;
  }

  private isChartTemplate(path: string): boolean {
    const parts = path.split('/');
    for (let i = parts.length - 2; i >= 0; i--) {
      if (parts[i] === 'templates' && this.chartDirs.has(parts.slice(0, i).join('/'))) return true;
    }
    return false;
  }
}

/** The folders of a chart whose files Helm loads as YAML, and the files at its top it parses (values files are passed with `-f`/valuesFiles). */
const HELM_FOLDERS = new Set(['templates', 'crds', 'charts']);
const HELM_FILES = /^(Chart|requirements)\.ya?ml$|^(?!.*schema).*values.*\.ya?ml$/;

interface AccountIndex {
  declared: Map<string, Array<string | null>>;
  used: Map<string, Array<string | null>>;
  creators: Map<string, AccountCreator[]>;
  /** HelmReleases whose charts may create accounts their values do not name. */
  charts: AccountCreator[];
  /** placementsOf's answers, by creator and name. */
  placements: Map<AccountCreator, Map<string | null, Placement[]>>;
}

/** Where a creator places an account (ServiceAccountCreator), and the worlds that apply it there (null: nothing applies the creator). */
interface Placement {
  creator: ServiceAccountCreator;
  worlds: Set<World> | null;
}

/** An account a pod of a file runs as, and what probably creates it there (as data: it travels to audit workers). */
export interface ServiceAccountCreator {
  /** null: a chart that may create any account of its namespace. */
  name: string | null;
  namespace: string | null;
  by: string;
  /** It names the account (values, release name, custom resource), rather than being a chart that may make any. */
  certain: boolean;
  /** Where the creator is written (the nearest chart is named first). */
  file: string;
}

/** ServiceAccount names with the namespaces that declare them (null: a namespace the file does not say). */
export type AccountList = Array<[string, Array<string | null>]>;

/** `declaresServiceAccount` over a snapshot of the declared accounts. */
export function accountLookup(accounts: AccountList): (name: string, namespace: string | null) => boolean {
  const declared = new Map(accounts);
  return (name, namespace) => matchesAccount(declared.get(name), namespace);
}

function matchesAccount(namespaces: Array<string | null> | undefined, namespace: string | null): boolean {
  return namespaces !== undefined && (namespace === null || namespaces.some((ns) => ns === null || ns === namespace));
}

function name(path: string): string {
  return basenameOf(path);
}

/**
 * The facts without positions, as a 53-bit hash of their JSON plus its length:
 * the JSON itself would keep a second copy of every file's facts alive (170 MB
 * on the 16,000-Kustomization benchmark); a collision, which would keep a stale
 * graph for one edit, is about 2^-53 per change.
 */
function shapeOf(facts: FileFacts): string {
  return hashed(
    JSON.stringify(facts, (key, value: unknown) => {
      if (key === 'span' || key.endsWith('Span') || key === 'line' || key === 'range' || key === 'optOut' || key === 'define') return undefined;
      return value instanceof Map ? [...value.entries()] : value;
    }),
  );
}

/**
 * Whether two recordings of a file's resource headers are the same but for their spans, which only
 * place kustomize's verdicts on the file's own documents (no other file's finding points there).
 * Compared field by field: on every keystroke in a file of thousands of documents.
 */
function sameHeaders(a: readonly ResourceDoc[], b: readonly ResourceDoc[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.apiVersion !== y.apiVersion || x.kind !== y.kind || x.name !== y.name || x.namespace !== y.namespace) return false;
    if (x.error?.message !== y.error?.message || !sameEntries(x.labels, y.labels) || !sameEntries(x.annotations, y.annotations)) return false;
  }
  return true;
}

/** Two maps with the same entries in the same order (null: no map). */
function sameEntries(a: ReadonlyMap<string, string> | null, b: ReadonlyMap<string, string> | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.size !== b.size) return false;
  const others = b.entries();
  for (const [key, value] of a) {
    const [otherKey, otherValue] = others.next().value as [string, string];
    if (key !== otherKey || value !== otherValue) return false;
  }
  return true;
}

/** Whether two facts of the same shape (shapeOf) are equal with their positions too. */
function samePositions(a: unknown, b: unknown): boolean {
  const json = (value: unknown) => JSON.stringify(value, (_key, inner: unknown) => (inner instanceof Map ? [...inner.entries()] : inner));
  return json(a) === json(b);
}

function hashed(json: string): string {
  return chunkKey(json, 0, json.length);
}
