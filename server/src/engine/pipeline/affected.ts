// Which files a change can affect (the CLI's `audit --changed-since`): the
// files that changed, every file of each Flux Kustomization whose definition,
// built files, variable sources or generator inputs changed (or whose place in
// the model did: its path, its variables, its dependsOn gate), and the Jobs
// whose contract entries changed. Worked out from the engine's own model of
// both revisions, so it cannot disagree with what the audit reports: the CLI
// runs the one full audit and keeps the findings of these files. Pure: the
// caller gives the model of each revision and the paths that differ.
import type { Contract } from '../contract/model';
import type { Finding } from '../base/types';
import type { Builder } from '../flux/model/world';
import type { RepoFs } from '../base/repo-fs';
import { parseYamlFile } from '../yaml/documents';
import { buildRepoIndex, namesOfText, readContract, type AuditOptions } from './audit';
import { fileResult, type EarlierResults } from './index-memo';
import { namesUsedIn, summarizeFile, type FileSummary } from './file-summary';
import { dataEqual } from '../base/data-equal';
import type { RepoIndex } from './repo-index';

/** One live Kustomization of one revision, in one world: what it reads, what it builds, and everything else that shapes its build. */
export interface BuilderView {
  /** The file that defines it. */
  definition: string;
  world: string;
  /** Every file its build takes in: resources, patches, kustomization files, generator inputs. */
  builds: string[];
  /** What its build reads besides: the files of its variable sources. */
  sources: string[];
  /** Whether Flux substitutes what it builds. */
  substitutes: boolean;
  /** The names its postBuild defines: findings in its siblings' files name them. */
  defines: string[];
  /** Everything the model says of it (definition, builds, variables, gate): any difference is a change. Made when asked (one model: never). */
  readonly signature: string;
}

/** What one revision's model says that decides which files a change reaches. */
export interface RevisionView {
  /** Live Kustomizations by world, file, namespace and name. */
  builders: Map<string, BuilderView>;
  /** The `${NAME}` names each file that uses one uses. */
  uses: Map<string, string[]>;
  /** ServiceAccount names each file declares, creates or runs pods as (pod-service-account-undeclared reads them across files). */
  accounts: Map<string, { declares: string[]; uses: string[] }>;
  /**
   * What the model says in each file (its problems, as JSON): said once where they live, they may
   * follow from anything in the model (an outside source's info names every Kustomization of every
   * world that takes it), so a file whose problems differ between the revisions is affected.
   */
  problems: Map<string, string>;
}

/** One revision as the engine models it: its contract (and the findings of reading it), its index, and the view of it. */
export interface RevisionModel {
  contract: Contract;
  loaded: Finding[];
  index: RepoIndex;
  view: RevisionView;
}

/**
 * The model of one revision, its index built as the language server builds it (the same reads on
 * both sides); `earlier` holds what files gave before (the memo shares it between the revisions;
 * results kept by earlier runs are for the files as they are now, never for another revision).
 */
export async function revisionModel(
  fs: RepoFs,
  files: string[],
  options: Pick<AuditOptions, 'contractPath' | 'settings'>,
  earlier: EarlierResults = {},
  made?: ReadonlyMap<string, FileSummary>,
): Promise<RevisionModel> {
  const { contract, findings: loaded } = await readContract(fs, options);
  const index = await buildRepoIndex(fs, files, contract, earlier, made);
  await readPlainNames(fs, index, earlier);
  return { contract, loaded, index, view: revisionView(index) };
}

/**
 * The model of the revision when the change cannot have altered it: the model now, as it is. That
 * holds when every changed file is a text on both sides (so both revisions list the same files), is
 * not the contract, is nothing the index reads whole (a generator input, a patch, an env file), and
 * tells the index the same on both sides (its summary, the names it uses included): the index of
 * the revision is then the index now, record for record, and the model is a function of the index.
 * A Job's TTL or command changed, a comment added: the common change of a pull request. Null
 * otherwise (the caller models the revision).
 */
export async function unchangedModel(now: RevisionModel, current: RepoFs, then: RepoFs, changed: ReadonlySet<string>): Promise<RevisionModel | null> {
  const model = { contractPath: now.contract.path, readsWhole: (path: string) => now.index.readsWhole(path) || now.index.isGeneratorInput(path) };
  return (await changesTellNothing(model, current, then, changed)) ? now : null;
}

/**
 * Whether no changed file tells the model anything new (unchangedModel): `model` says which file
 * is the contract and which files the index reads whole (generator inputs included), of the model
 * on either side (a file that is text on both sides and tells the same is one of those on both or neither).
 */
export async function changesTellNothing(model: { contractPath: string; readsWhole: (path: string) => boolean }, current: RepoFs, then: RepoFs, changed: ReadonlySet<string>): Promise<boolean> {
  for (const path of changed) {
    if (path === model.contractPath || model.readsWhole(path)) return false;
    const [after, before] = [await current.read(path), await then.read(path)];
    if (after.kind !== 'text' || before.kind !== 'text') return false;
    if (!tellsTheSame(path, before.text, after.text)) return false;
  }
  return true;
}

/**
 * Whether two texts of one file give the index the same records: the summary and the names used
 * (which the index may read apart from it). Where the documents start and end is left out, as the
 * index leaves it out (RepoIndex.recordDocs): it places kustomize's verdicts on the file's own
 * documents only, and the Kustomizations that build the file are affected by its change anyway.
 */
function tellsTheSame(path: string, before: string, after: string): boolean {
  const records = (text: string) => {
    const { docs, ...rest } = summarizeFile(path, text);
    const names = text.includes('${') ? namesUsedIn(parseYamlFile(text)) : [];
    return { ...rest, names, headers: docs?.map(({ span: _span, error, ...header }) => ({ ...header, error: error?.message ?? null })) };
  };
  return dataEqual(records(before), records(after));
}

/**
 * The index reads the names a file uses only where an outside source needs them; the view also
 * needs those of the files built without substitution (a sibling's new name reaches them).
 */
async function readPlainNames(fs: RepoFs, index: RepoIndex, earlier: EarlierResults): Promise<void> {
  for (const [path, entries] of index.fluxGraph().allEntries()) {
    if (entries.every((entry) => entry.builder.vars?.substitutes)) continue;
    if (index.namesUsedBy(path).length > 0) continue;
    // A file the index holds has names to read only where its summary left them (its text has `${`):
    // the others would be read for nothing (most of a repository's files).
    if (index.hasFile(path) && !index.namesPending(path)) continue;
    const names = await fileResult(fs, path, 'names', earlier, namesOfText, (text) => text.includes('${'));
    if (names) index.setUses(path, names);
  }
}

/** The view of one revision's repository index. */
export function revisionView(index: RepoIndex): RevisionView {
  const graph = index.fluxGraph();
  const builds = new Map<Builder, Map<string, unknown[]>>();
  for (const [file, entries] of graph.allEntries()) {
    for (const { builder, ...entry } of entries) {
      let files = builds.get(builder);
      if (!files) builds.set(builder, (files = new Map<string, unknown[]>()));
      files.set(file, [...(files.get(file) ?? []), entry]);
    }
  }
  const builders = new Map<string, BuilderView>();
  for (const builder of graph.liveBuilders()) {
    const built = builds.get(builder) ?? new Map<string, unknown[]>();
    const k = builder.kustomization;
    let signature: string | undefined;
    builders.set(builderKey(builder), {
      definition: k.file,
      world: builder.world.label,
      builds: [...built.keys()].sort(),
      sources: (builder.vars?.sources ?? []).map((source) => source.file),
      substitutes: builder.vars?.substitutes ?? false,
      defines: [...(builder.vars?.defined.keys() ?? [])].sort(),
      get signature() {
        return (signature ??= JSON.stringify({ k, postBuild: builder.postBuild, vars: builder.vars, built: [...built].sort(byKey), gate: graph.neverBuilds().get(builder) ?? null }, mapsAsEntries));
      },
    });
  }
  const accounts = new Map<string, { declares: string[]; uses: string[] }>();
  for (const file of index.filePaths()) {
    const facts = index.factsOf(file);
    if (!facts) continue;
    const declares = [...facts.serviceAccounts.map((sa) => sa.name), ...facts.accountCreators.flatMap((creator) => creator.names)];
    const uses = facts.serviceAccountUses.map((sa) => sa.name);
    if (declares.length > 0 || uses.length > 0) accounts.set(file, { declares, uses });
  }
  const uses = new Map<string, string[]>();
  for (const file of index.filePaths()) {
    const names = index.namesUsedBy(file);
    if (names.length > 0) uses.set(file, names);
  }
  const problems = new Map<string, string>();
  for (const problem of index.graphProblems()) if (!problems.has(problem.file)) problems.set(problem.file, JSON.stringify(index.graphProblemsIn(problem.file)));
  return { builders, uses, accounts, problems };
}

function builderKey(builder: Builder): string {
  const k = builder.kustomization;
  return JSON.stringify([builder.world.label, k.file, k.namespace, k.name]);
}

/** Orders [key, value] entries by their keys (code units, as a plain sort orders strings). */
export function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON of the model's data: Maps as their entries (a signature must see what they hold). */
function mapsAsEntries(_key: string, value: unknown): unknown {
  return value instanceof Map ? [...value.entries()] : value;
}

/** How the contract changed: `everything` when a setting every file depends on did (rules, include, ttl.required, flux.*, ...). */
export interface ContractChange {
  everything: boolean;
  /** The files named by an entry of noFinishTimeout or otherFinishTimeout that was added, removed or changed. */
  entryFiles: string[];
}

/** Keys that say where something is written, not what: moving a line of the contract changes no finding elsewhere. */
const POSITION_KEYS = new Set(['text', 'span', 'spans', 'item', 'includeSpan', 'nameSpan', 'range', 'line', 'fileAsWritten']);

function withoutPositions(_key: string, value: unknown): unknown {
  if (value instanceof Map) return [...value.entries()];
  if (value && typeof value === 'object' && !Array.isArray(value)) return Object.fromEntries(Object.entries(value).filter(([key]) => !POSITION_KEYS.has(key)));
  return value;
}

export function contractChange(before: Contract, after: Contract): ContractChange {
  const rest = (contract: Contract) => JSON.stringify({ ...contract, noFinishTimeout: [], otherFinishTimeout: [] }, withoutPositions);
  const entries = (contract: Contract) => new Map([...contract.noFinishTimeout, ...contract.otherFinishTimeout].map((entry) => [JSON.stringify(entry, withoutPositions), entry.file]));
  const [old, now] = [entries(before), entries(after)];
  const entryFiles = new Set<string>();
  for (const [key, file] of old) if (!now.has(key)) entryFiles.add(file);
  for (const [key, file] of now) if (!old.has(key)) entryFiles.add(file);
  return { everything: rest(before) !== rest(after), entryFiles: [...entryFiles].sort() };
}

export interface Change {
  /** Paths that differ between the revisions (added, deleted, modified; both sides of a rename). */
  files: ReadonlySet<string>;
  before: RevisionView;
  after: RevisionView;
  contract: { before: Contract; after: Contract };
}

/** The files whose findings the change can alter; null: every file (a setting of the contract that every file depends on changed). */
export function affectedFiles(change: Change): Set<string> | null {
  const contract = contractChange(change.contract.before, change.contract.after);
  if (contract.everything) return null;
  const affected = new Set([...change.files, ...contract.entryFiles]);
  // One view on both sides (the kept or the unchanged model): each is walked once.
  const views = viewsOf(change);
  /** Per world, the names some Kustomization of it now defines or no longer does (or substitutes or no longer does). */
  const redefined = new Map<string, Set<string>>();
  for (const key of views.length === 1 ? views[0].builders.keys() : new Set([...change.before.builders.keys(), ...change.after.builders.keys()])) {
    const [old, now] = [change.before.builders.get(key), change.after.builders.get(key)];
    if (!touches(change.files, old, now)) continue;
    for (const view of [old, now]) if (view) for (const file of [view.definition, ...view.builds]) affected.add(file);
    const names = redefinedNames(old, now);
    if (names.length > 0) redefined.set((old ?? now)!.world, new Set([...(redefined.get((old ?? now)!.world) ?? []), ...names]));
  }
  // A file built without substitution is told which sibling Kustomization of its world defines a
  // name it writes (flux-substitution-no-postbuild, the undefined-name hints): a change to what the
  // siblings define reaches the files that write those names.
  if (redefined.size > 0)
    for (const view of views)
      for (const builder of view.builders.values()) {
        const names = redefined.get(builder.world);
        if (!names || builder.substitutes) continue;
        for (const file of builder.builds) if ((view.uses.get(file) ?? []).some((name) => names.has(name))) affected.add(file);
      }
  for (const file of accountDependents(change)) affected.add(file);
  for (const file of new Set([...change.before.problems.keys(), ...change.after.problems.keys()])) if (change.before.problems.get(file) !== change.after.problems.get(file)) affected.add(file);
  if (contractFileAffected(change, affected)) affected.add(change.contract.after.path);
  return affected;
}

/** A Kustomization is touched when it is new or gone, when the model says anything else of it, or when a file it reads changed. */
function touches(files: ReadonlySet<string>, old: BuilderView | undefined, now: BuilderView | undefined): boolean {
  if (!old || !now) return true;
  // One view on both sides (the change left the model as it was, unchangedModel): nothing else to compare.
  if (old !== now && old.signature !== now.signature) return true;
  return readsAny(old, files) || (old !== now && readsAny(now, files));
}

/** Whether a Kustomization is defined in, builds, or reads the variables of any of `files`. */
function readsAny(view: BuilderView, files: ReadonlySet<string>): boolean {
  return files.has(view.definition) || view.builds.some((file) => files.has(file)) || view.sources.some((file) => files.has(file));
}

/** The change's two views, or its one where both sides are one. */
function viewsOf(change: Change): RevisionView[] {
  return change.before === change.after ? [change.before] : [change.before, change.after];
}

/** The names one Kustomization defines in one revision and not the other (all of them where it starts or stops substituting). */
function redefinedNames(old: BuilderView | undefined, now: BuilderView | undefined): string[] {
  const defined = (view: BuilderView | undefined) => new Set(view?.substitutes ? view.defines : []);
  const [before, after] = [defined(old), defined(now)];
  return [...[...before].filter((name) => !after.has(name)), ...[...after].filter((name) => !before.has(name))];
}

/** The files whose pods run as a ServiceAccount a changed file declares (or creates), in either revision. */
function accountDependents(change: Change): string[] {
  const names = new Set<string>();
  for (const view of viewsOf(change)) for (const file of change.files) for (const name of view.accounts.get(file)?.declares ?? []) names.add(name);
  if (names.size === 0) return [];
  const out: string[] = [];
  for (const view of viewsOf(change)) for (const [file, { uses }] of view.accounts) if (uses.some((name) => names.has(name))) out.push(file);
  return out;
}

/**
 * The contract file's findings check its entries against the files they name, and its lists against
 * the whole repository (folders, names used, objects and ServiceAccounts declared): it is affected
 * when it changed, when an affected file is named by an entry, and when a changed file tells the
 * model something (in either revision).
 */
function contractFileAffected(change: Change, affected: ReadonlySet<string>): boolean {
  const { before, after } = change.contract;
  if (change.files.has(after.path) || change.files.has(before.path)) return true;
  if ([...before.noFinishTimeout, ...before.otherFinishTimeout, ...after.noFinishTimeout, ...after.otherFinishTimeout].some((entry) => affected.has(entry.file))) return true;
  const shapesModel = (view: RevisionView) => [...view.builders.values()].some((builder) => change.files.has(builder.definition) || builder.sources.some((file) => change.files.has(file)));
  return viewsOf(change).some(shapesModel) || [...change.files].some((file) => change.before.accounts.has(file) || change.after.accounts.has(file));
}
