// The vocabulary of the facts one file contributes to the Flux model: Flux
// Kustomizations, kustomize configs and their generators, variable sources,
// sources and syncs, ServiceAccounts. Only types and the names that identify
// them: the readers (extract.ts, kustomize-config.ts, postbuild.ts, start.ts)
// all write these, and the model stages read them.
import { basenameOf } from '../../base/paths';
import type { Range } from '../../base/types';
import type { Requirement } from './label-selector';
import type { AccountCreator } from '../../k8s/account-creators';

export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(basenameOf(path));
}

export const FLUX_KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io/';

/** A value and where it is written, for hover and go-to-definition. */
export interface Located<T> {
  value: T;
  file: string;
  span: [number, number];
}

export interface SubstituteFromRef {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  optional: boolean;
  /** Where the reference is written. */
  file: string;
  span: [number, number];
}

export interface PostBuild {
  substitute: Map<string, Located<string>>;
  substituteFrom: SubstituteFromRef[];
  /** `substituteStrategy: Always` substitutes even when no variable resolves. */
  always: boolean;
  /** A JSON6902 `add` to `/spec/postBuild/substituteFrom/-`: appends instead of replacing. */
  appendsSubstituteFrom?: boolean;
}

export interface KustomizationPatch {
  /** Target selectors (kind, name, labelSelector). */
  targetKind: string | null;
  targetName: string | null;
  /** Parsed `labelSelector`; null without one (a malformed selector matches nothing). */
  targetLabels: Requirement[] | null;
  /** The postBuild the patch adds, when it adds one. */
  postBuild: PostBuild | null;
  /** What the patch writes into `spec.sourceRef` (each field it sets), null when it leaves it alone. */
  sourceRef?: SourceRefPatch | null;
  /** It nests a patch of HelmReleases that may change what they reference (valuesFrom, chartRef, sourceRef). */
  writesHelmRefs?: boolean;
}

/** The fields of `spec.sourceRef` a patch sets (a field it leaves out keeps the child's own). */
export interface SourceRefPatch {
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface PathRef {
  /** Repository-relative, null when it leaves the repository. */
  path: string | null;
  written: string;
  span: [number, number] | null;
}

/**
 * An edit of another file, prepared where that file is read (its ranges need its text): `newText`
 * holds NAME_PLACEHOLDER where the name a fix defines goes.
 */
export interface EditTemplate {
  range: Range;
  newText: string;
}

export const NAME_PLACEHOLDER = 'FLUX_JOB_GUARD_NAME';

/**
 * One `spec.dependsOn` entry of a Flux Kustomization or HelmRelease: Flux waits until the object
 * it names (of the same kind) is Ready. The namespace defaults to the dependent's.
 */
export interface DependsOnRef {
  name: string;
  namespace: string | null;
  /** The entry (its list item), and its `name` value (what a fix replaces). */
  span: [number, number];
  nameSpan: [number, number];
  /** The entry's `readyExpr` (Flux 2.7): Ready is then decided by that expression. */
  readyExpr: boolean;
}

export interface FluxKustomization {
  file: string;
  name: string;
  /** Where `metadata.name`'s value is written (quotes included), what a rename edits; null for one the model makes. */
  nameSpan: [number, number] | null;
  namespace: string | null;
  labels: Record<string, string>;
  /** Offset of the document's `kind` (where findings about it point), its 0-based line, and its range (for related locations). */
  span: [number, number];
  line: number;
  range: Range;
  /** Defining a name in its `spec.postBuild.substitute` (where it has a postBuild), as a quick fix elsewhere writes it. */
  define: EditTemplate | null;
  /** spec.path normalized (source-relative), null when it leaves the source. */
  path: string | null;
  pathAsWritten: string;
  pathSpan: [number, number] | null;
  components: PathRef[];
  postBuild: PostBuild | null;
  /** Where `spec.postBuild` is written (for fixes that add to it), null without one. */
  postBuildSpan: [number, number] | null;
  patches: KustomizationPatch[];
  interval: string | null;
  timeout: string | null;
  wait: boolean;
  force: boolean;
  prune: boolean;
  targetNamespace: string | null;
  /** What else Flux writes into the kustomization it builds `spec.path` with (null: nothing beyond targetNamespace and components). */
  kustomizeLayer: FluxKustomizeLayer | null;
  /** `spec.sourceRef` (kind defaults to GitRepository, namespace to the Kustomization's). */
  sourceKind: string;
  sourceName: string | null;
  sourceNamespace: string | null;
  /** Made by a Flux Operator ResourceSet from its template (`<< inputs.x >>` filled in, or left when the inputs come from outside). */
  template?: string;
  /** `spec.dependsOn`: the Kustomizations Flux waits for before it builds this one. */
  dependsOn: DependsOnRef[];
  /** Adding `spec.postBuild` where the Kustomization has none: `newText` holds NAME_PLACEHOLDER where its body goes. */
  addPostBuild: EditTemplate | null;
}

/** A Flux HelmRelease, as the dependsOn gate and the check of its references see it. */
export interface HelmReleaseDecl {
  file: string;
  name: string;
  /** Where `metadata.name`'s value is written (quotes included). */
  nameSpan: [number, number] | null;
  namespace: string | null;
  span: [number, number];
  range: Range;
  dependsOn: DependsOnRef[];
  /** What helm-controller needs before it installs: its `valuesFrom` objects, its chart's source. */
  refs: HelmObjectRef[];
  /** `spec.suspend: true`: helm-controller leaves it alone. */
  suspended: boolean;
  /** `spec.targetNamespace`: where its chart's objects go (null: the release's namespace). */
  targetNamespace: string | null;
}

/**
 * A HelmRelease's reference to an object helm-controller reads before it installs: a
 * `spec.valuesFrom` entry (a ConfigMap or Secret of the release's namespace), `spec.chartRef`
 * (an OCIRepository or HelmChart) or `spec.chart.spec.sourceRef` (a HelmRepository, GitRepository
 * or Bucket); the namespace defaults to the release's.
 */
export interface HelmObjectRef {
  field: 'valuesFrom' | 'chartRef' | 'sourceRef';
  kind: string;
  name: string;
  /** As written (chartRef, sourceRef); null: the release's own. */
  namespace: string | null;
  /** `optional: true` (valuesFrom): helm-controller goes on without it. */
  optional: boolean;
  /** The entry (a valuesFrom item, the chartRef or sourceRef mapping), and its `name` value. */
  span: [number, number];
  nameSpan: [number, number];
}

/**
 * What of a Flux Kustomization kustomize-controller writes into the
 * kustomization file of `spec.path` before it builds (fluxcd/pkg/kustomize's
 * generator) beyond targetNamespace and components: its `patches`. They are
 * part of the build, so they can add the substitution opt-out or make the
 * build fail.
 */
export interface FluxKustomizeLayer {
  /** `spec.patches`: each inline patch with its target selector, and where the entry is written. */
  patches: Array<{ patch: string; target: Record<string, string> | null; span: [number, number] }>;
}

export interface KustomizeConfig {
  file: string;
  /** Repository-relative, null for references that leave the repository; remote URLs are dropped. */
  resources: PathRef[];
  components: PathRef[];
  /** Files listed under patches, patchesStrategicMerge or patchesJson6902. */
  patches: string[];
  /** Inline `patches` that target Flux Kustomizations (they can add postBuild to them). */
  kustomizationPatches: KustomizationPatch[];
  namespace: string | null;
  generators: Generator[];
  /** Other files kustomize reads to build the folder (`replacements` and `configurations` files): the kustomize model needs their text. */
  reads?: string[];
  /** The `configurations` files (transformer configs: a nameReference may rewrite a HelmRelease's valuesFrom). */
  configurations?: string[];
}

/**
 * The longest value a rule reads (flux-substitution-type): the audit keeps values up to one
 * character more (a longer one is cut there, so a rule still sees that it is too long) and drops
 * the rest of them, which on a repository of thousands of ConfigMaps were a third of its memory.
 */
export const RULE_VALUE_MAX = 256;

/** A key a source defines; `origin` says where in a producer it is written (`data[2].secretKey`), for the hover. */
export interface SourceEntry extends Located<string> {
  origin?: string;
}

export interface VariableSource {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string | null;
  file: string;
  /** Keys of `data` (Secret values base64-decoded) and `stringData`, or the keys a producer writes. */
  entries: Map<string, SourceEntry>;
  /** Values that live outside the repository (an ExternalSecret's store, SOPS): never shown. */
  secret: boolean;
  /** The object that makes it, when that is not the Secret itself: `ExternalSecret cluster-secrets`. */
  producer?: string;
  /** Why its names cannot be known from the repository (an ExternalSecret with dataFrom), when they cannot. */
  unknownKeys?: string;
  /** Where the producer makes them unknowable (its `dataFrom` key), for the finding that says so. */
  unknownSpan?: [number, number];
  /** Only named by a custom resource that may make it (producers.ts): taken only where nothing else is. */
  mention?: boolean;
  /** Adding a key to its `data` (a ConfigMap written in the repository), as a quick fix elsewhere writes it. */
  define?: EditTemplate | null;
}

export interface ServiceAccountDecl {
  name: string;
  namespace: string | null;
  file: string;
}

export interface FileFacts {
  kustomizations: FluxKustomization[];
  kustomize: KustomizeConfig | null;
  variableSources: VariableSource[];
  serviceAccounts: ServiceAccountDecl[];
  /** ServiceAccounts that pods in this file run as. */
  serviceAccountUses: ServiceAccountDecl[];
  /** HelmReleases and custom resources that may create ServiceAccounts. */
  accountCreators: AccountCreator[];
  sources: SourceDecl[];
  syncs: SyncDecl[];
  webhooks: WebhookDecl[];
  /** ExternalArtifacts an ArtifactGenerator makes. */
  artifacts: ArtifactDecl[];
  helmReleases: HelmReleaseDecl[];
  /** HelmRepositories and HelmCharts (the sources a HelmRelease's chart may name). */
  chartSources: ObjectDecl[];
  /** The other objects a Flux Operator ResourceSet's template makes (its Kustomizations and sources are above). */
  templated: ObjectDecl[];
}

/** An object by kind, name and namespace, and the file that writes it. */
export interface ObjectDecl {
  /** `*`: a template the reader cannot follow, which may make anything in the namespace. */
  kind: string;
  name: string;
  namespace: string | null;
  file: string;
  apiVersion?: string;
}

export function emptyFacts(): FileFacts {
  return {
    kustomizations: [],
    kustomize: null,
    variableSources: [],
    serviceAccounts: [],
    serviceAccountUses: [],
    accountCreators: [],
    sources: [],
    syncs: [],
    webhooks: [],
    artifacts: [],
    helmReleases: [],
    chartSources: [],
    templated: [],
  };
}

export type SourceKind = 'GitRepository' | 'OCIRepository' | 'Bucket';

export const SOURCE_KINDS: readonly string[] = ['GitRepository', 'OCIRepository', 'Bucket'];

export interface SourceDecl {
  kind: SourceKind;
  name: string;
  namespace: string | null;
  url: string | null;
  /** `spec.ignore`: gitignore lines, read after `.sourceignore` files (so they win). */
  ignore: string | null;
  file: string;
  span: [number, number];
}

/** A FluxInstance `spec.sync`: the operator creates a source and a Kustomization, both named after the namespace. */
export interface SyncDecl {
  kind: SourceKind;
  /** The source's and the Kustomization's name. */
  name: string;
  namespace: string;
  url: string | null;
  pathAsWritten: string;
  file: string;
  span: [number, number];
  /** How it was written: `FluxInstance`, `HelmRelease values`, `chart values`. */
  via: string;
  /** `distribution.version` as written (`2.x`, `2.7.3`), null when the instance does not pin it. */
  version: string | null;
}

/** An admission webhook that adds `postBuild.substituteFrom` to every Flux Kustomization. */
export interface WebhookDecl {
  substituteFrom: SubstituteFromRef[];
  file: string;
  span: [number, number];
  via: string;
}

/**
 * One artifact of a Flux ArtifactGenerator (source-watcher): an ExternalArtifact
 * named `name`, made of folders copied from sources. Only copies that keep
 * their path (`@repo/apps/x/` to `@artifact/apps/x/`) can be followed.
 */
export interface ArtifactDecl {
  name: string;
  namespace: string | null;
  copies: Array<{ kind: string; sourceName: string; sourceNamespace: string | null; from: string; to: string }>;
  file: string;
}

export interface GeneratorInput {
  /** Repository-relative path of the file read, null when it leaves the repository. */
  path: string | null;
  written: string;
  /** `files:` entries become one key each (`key=path`, else the file name); `envs:` files give one key per line. */
  kind: 'file' | 'env';
  key: string | null;
  span: [number, number] | null;
}

export interface GeneratorLiteral {
  key: string;
  value: string;
  span: [number, number];
}

export interface Generator {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string | null;
  inputs: GeneratorInput[];
  literals: GeneratorLiteral[];
  /**
   * Whether Flux substitutes what it makes: a ConfigMap's data (a Secret's is
   * base64, where `${` never appears), unless the generator's options (or the
   * kustomization's generatorOptions) carry the opt-out annotation or label.
   */
  substituted: boolean;
  /** The generator item's span. */
  span: [number, number];
  index: number;
  /** The edit that opts the generator out of substitution (its own `options.annotations`), where one can be written. */
  optOut: { range: Range; newText: string } | null;
}

/** What a generator input file holds for the model: its KEY=VALUE lines, and the `${NAME}`s its text uses. */
export interface InputFacts {
  env: Map<string, Located<string>>;
  /** Names without a default in the whole text (a `files:` input), and in the values of its KEY=VALUE lines (an `envs:` input). */
  uses: string[];
  envUses: string[];
}
