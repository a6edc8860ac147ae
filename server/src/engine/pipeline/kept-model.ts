// The model a changed-only run built, kept for the next one (the CLI's --cache): what the audit
// of any one file reads of it (file-model.ts), the view that says which files a change reaches
// (affected.ts), and the Jobs the summary counts in each file. The index behind it is a graph of
// class instances that outlives nothing, so what is kept is its answers, as data.
//
// It is the model of one state of the repository: every listed file and the key of its text
// (stateDigest). A later run whose revision is that state (the files git says did not change,
// and the revision's text of those that did) has this model as the revision's; where no changed
// file tells the model anything new (tellsTheSame, as unchangedModel decides it), it is the
// model now too, and the run audits the files the change reaches without building any model.
//
// The builders (live Kustomizations, with their variables) are shared by the files they build:
// each is kept once and named by a number in the files' contexts, and made again once per run,
// so two files built by one Kustomization still share one object, as in the live model.
import type { ReadResult, RepoFs } from '../base/repo-fs';
import type { OutsideSource } from '../flux/model/outside-sources';
import type { BuildEntry, Builder, World } from '../flux/model/world';
import type { FluxFileContext } from '../flux/substitution/regions';
import type { JobRecord } from './analyze';
import type { Finding } from '../base/types';
import type { BuilderView, RevisionModel, RevisionView } from './affected';
import { fileModelOf, type AuditModel, type FileModel } from './file-model';
import type { AccountList } from './repo-index';

/** A builder as kept: its world by number (the core's worlds). */
export type KeptBuilder = Omit<Builder, 'world'> & { world: number };

/** A build entry as kept: its builder by number. */
type KeptEntry = Omit<BuildEntry, 'builder'> & { builder: number };

/** A file's model as kept: the builders of its context by number. */
export type KeptFile = Omit<FileModel, 'context'> & {
  context: (Omit<NonNullable<FileModel['context']>, 'flux'> & { flux: KeptFlux | undefined }) | undefined;
};

type KeptFlux = Omit<FluxFileContext, 'entries' | 'definers'> & {
  entries: KeptEntry[];
  /** The worlds whose definers the context holds (the same for every file of a world: kept once, in the core). */
  definers?: number[];
};

/** What is read whole at the start of a run that may use the model. */
export interface KeptCore {
  /** The files the index reads whole, and the generator inputs: a change to one may change the model. */
  wholeReads: string[];
  generatorInputs: string[];
  /** The view of the model, without the builders' signatures (compared only between two models). */
  view: Omit<RevisionView, 'builders'> & { builders: Map<string, Omit<BuilderView, 'signature'>> };
  accounts: AccountList;
  worlds: World[];
  /** By world index, the live Kustomizations (builder ids) whose postBuild defines each name (FluxGraph.definersIn). */
  definers: Map<number, Map<string, number[]>>;
  /** What differs between the states the model is kept for (by their digests). */
  states: Map<string, KeptCounts>;
}

/** What a state of the repository counts beyond its model. */
export interface KeptCounts {
  /** The Jobs the summary counts, by file (files that count none left out). */
  jobs: Array<[string, JobRecord[]]>;
  /** The contract file's findings, and whether the repository had no Job (contract-no-jobs); undefined: not kept. */
  contractFile: { findings: Finding[]; noJobs: boolean } | undefined;
}

/** A model to keep: its states and settings, the core, the outside sources, each builder, and each listed file's model. */
export interface KeptModelData {
  setting: string;
  core: KeptCore;
  /** Read only where a finding may be declared in one (they name every Kustomization that takes them: large). */
  outside: readonly OutsideSource[];
  builders: KeptBuilder[];
  files: Map<string, KeptFile>;
}

/** A kept model as a store gives it back: the core read, builders and files read when asked (undefined: not kept, or unreadable). */
export interface KeptModelSource {
  /** The digests of the states it is the model of. */
  states: readonly string[];
  core(): KeptCore | undefined;
  outside(): readonly OutsideSource[] | undefined;
  builder(id: number): KeptBuilder | undefined;
  file(path: string): KeptFile | undefined;
}

/** Where a changed-only run keeps its model for the next (the CLI's --cache), and how it keys texts. */
export interface ModelStore {
  keyOf: (text: string) => string;
  /** The key of a file's text known without reading it (git's blob id of a file it says is unchanged). */
  presumedKey(path: string): string | undefined;
  /** The model an earlier run kept with these settings; undefined: none. */
  keptModel(setting: string): KeptModelSource | undefined;
  keepModel(model: KeptModelData): void;
}

/** Thrown where the kept model lacks what the audit asks (the run then builds the model). */
export class NotKept extends Error {}

/** The options a model depends on besides the files: another contract path or settings is another model. */
export function settingOf(options: { contractPath?: string; settings?: unknown }): string {
  return JSON.stringify([options.contractPath ?? null, options.settings ?? null]);
}

/**
 * The digest of a state of the repository: every listed file and the key of its text, in order.
 * Where `known` gives the key (git's blob id of a file it says is unchanged), the file is not read;
 * else it is read (`fs`) and keyed (`keyOf`, which also makes the digest of the whole list).
 */
export async function stateDigest(fs: RepoFs, files: readonly string[], known: (path: string) => string | undefined, keyOf: (text: string) => string): Promise<string> {
  const sorted = files.every((path, i) => i === 0 || files[i - 1] < path) ? files : [...files].sort();
  const lines: string[] = [];
  for (const path of sorted) lines.push(`${path}\0${known(path) ?? readKey(await fs.read(path), keyOf)}\n`);
  return keyOf(lines.join(''));
}

/** A read's key in a state: its text's, or what it is where it is not a text (a file too large, binary, ...). */
function readKey(read: ReadResult, keyOf: (text: string) => string): string {
  return read.kind === 'text' ? keyOf(read.text) : read.kind === 'skipped' ? `skipped\0${read.reason}\0${read.notYaml}` : read.kind;
}

/** The model to keep of `model` (the files as they are now), for the states `states` (of which it is the model) with what each counts. */
export function keptModelOf(model: RevisionModel, files: readonly string[], states: Map<string, KeptCounts>, setting: string): KeptModelData {
  const { index, contract, view } = model;
  const builderIds = new Map<Builder, number>();
  const worldIds = new Map<World, number>();
  const builders: KeptBuilder[] = [];
  const worlds: World[] = [];
  const worldId = (world: World) => {
    let id = worldIds.get(world);
    if (id === undefined) worldIds.set(world, (id = worlds.push(world) - 1));
    return id;
  };
  const builderId = (builder: Builder) => {
    let id = builderIds.get(builder);
    if (id === undefined) {
      builderIds.set(builder, (id = builders.length));
      builders.push({ ...builder, world: worldId(builder.world) });
    }
    return id;
  };
  for (const world of index.fluxGraph().worlds) worldId(world);
  const definers = new Map<number, Map<string, number[]>>();
  const worldDefiners = (world: number, byName: ReadonlyMap<string, readonly Builder[]>) => {
    if (!definers.has(world)) definers.set(world, new Map([...byName].map(([name, builders]) => [name, builders.map(builderId)])));
    return world;
  };
  const kept = new Map<string, KeptFile>();
  for (const path of files) kept.set(path, keptFile(fileModelOf(index, contract, path), builderId, worldDefiners));
  const plainBuilders = new Map([...view.builders].map(([key, { definition, world, builds, sources, substitutes, defines }]) => [key, { definition, world, builds, sources, substitutes, defines }]));
  const core: KeptCore = {
    wholeReads: files.filter((path) => index.readsWhole(path)),
    generatorInputs: files.filter((path) => index.isGeneratorInput(path)),
    view: { ...view, builders: plainBuilders },
    accounts: index.declaredAccounts(),
    worlds,
    definers,
    states,
  };
  return { setting, core, outside: index.outsideSources(), builders, files: kept };
}

function keptFile(file: FileModel, builderId: (builder: Builder) => number, worldDefiners: (world: number, byName: ReadonlyMap<string, readonly Builder[]>) => number): KeptFile {
  const flux = file.context?.flux;
  if (!file.context) return { ...file, context: undefined };
  const keptFlux: KeptFlux | undefined = flux && {
    ...flux,
    entries: flux.entries.map((entry) => ({ ...entry, builder: builderId(entry.builder) })),
    definers: flux.definers && [...flux.definers].map(([world, byName]) => worldDefiners(world, byName)),
  };
  return { ...file, context: { ...file.context, flux: keptFlux } };
}

/** A kept model as the audit of one file reads it; its parts are read when asked, and NotKept is thrown where one is missing. */
export function keptAuditModel(source: KeptModelSource, core: KeptCore): AuditModel {
  const builders = new Map<number, Builder>();
  const definers = new Map<number, ReadonlyMap<string, readonly Builder[]>>();
  const files = new Map<string, FileModel>();
  const builderOf = (id: number): Builder => {
    let builder = builders.get(id);
    if (!builder) {
      const kept = source.builder(id);
      const world = kept && core.worlds[kept.world];
      if (!kept || !world) throw new NotKept(`builder ${id}`);
      builders.set(id, (builder = { ...kept, world }));
    }
    return builder;
  };
  const definersOf = (world: number): ReadonlyMap<string, readonly Builder[]> => {
    let byName = definers.get(world);
    if (!byName) {
      const kept = core.definers.get(world);
      if (!kept) throw new NotKept(`the definers of world ${world}`);
      definers.set(world, (byName = new Map([...kept].map(([name, ids]) => [name, ids.map(builderOf)]))));
    }
    return byName;
  };
  let outside: readonly OutsideSource[] | undefined;
  const fileOf = (path: string): FileModel => {
    const kept = source.file(path);
    if (!kept) throw new NotKept(path);
    const flux = kept.context?.flux;
    if (!kept.context) return { ...kept, context: undefined };
    const entries = flux?.entries.map((entry) => ({ ...entry, builder: builderOf(entry.builder) }));
    const worldDefiners = flux?.definers && new Map(flux.definers.map((world) => [world, definersOf(world)]));
    return { ...kept, context: { ...kept.context, flux: flux && { ...flux, entries: entries!, definers: worldDefiners } } };
  };
  return {
    file: (path) => {
      let file = files.get(path);
      if (!file) files.set(path, (file = fileOf(path)));
      return file;
    },
    declaredAccounts: () => core.accounts,
    outsideSources: () => {
      outside ??= source.outside();
      if (!outside) throw new NotKept('the outside sources');
      return outside;
    },
  };
}

/** The view kept in the core, as affectedFiles reads it: one view on both sides, so no signature is ever asked. */
export function keptView(core: KeptCore): RevisionView {
  // The kept builders are this run's own objects: each takes a signature that says it has none.
  for (const builder of core.view.builders.values()) Object.setPrototypeOf(builder, NO_SIGNATURE);
  return core.view as RevisionView;
}

const NO_SIGNATURE = {
  get signature(): string {
    throw new NotKept('a kept view has no signatures: it is compared only with itself');
  },
};
