// The contract checked against the manifests, in both directions: every entry
// must name an existing file, a Job in it, and still match it; no Job may be
// covered twice. The accounts and the Flux entries rot like the Job lists.
import type { JobRecord } from '../pipeline/analyze';
import { contractDuplicate } from '../rules/contract-duplicate';
import { contractFileMissing } from '../rules/contract-file-missing';
import { contractNoJob } from '../rules/contract-no-job';
import { contractStale } from '../rules/contract-stale';
import { makeFinding } from '../rules/finding';
import { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, RuleMeta } from '../base/types';
import { deleteLines } from '../yaml/edit';
import type { Contract, Span, TtlEntry } from './model';
import type { OutsideSource } from '../flux/model/outside-sources';
import { declares } from '../flux/model/variables';

/** What the repository holds at a path an entry names. */
export type FileJobs = { exists: false } | { exists: true; jobs: JobRecord[] };

/** Removing a list entry (its lines, dash included; comments around it stay): the fix of an entry that rotted. */
export function removeEntry(contract: Contract, lines: LineIndex, item: Span, what: string): Fix {
  const first = lines.position(item[0]).line;
  const last = lines.position(Math.max(item[0], item[1] - 1)).line;
  const edit = deleteLines(lines, first, last);
  return { title: `Remove the ${what}`, edits: [{ file: contract.path, range: lines.range(edit.start, edit.end), newText: edit.newText }] };
}

export function checkContractEntries(contract: Contract, jobsIn: (file: string) => FileJobs): Finding[] {
  const lines = new LineIndex(contract.text);
  const findings: Finding[] = [];
  const report = (meta: RuleMeta, entry: TtlEntry, span: Span | undefined, message: string, fixes: Fix[] = [removeEntry(contract, lines, entry.spans.item, `${entry.list} entry`)]) =>
    findings.push(makeFinding(meta, contract.path, lines, span ?? entry.spans.file, message, entry.job, fixes));
  const coveredBy = new Map<string, TtlEntry>();
  const entries = [...contract.noFinishTimeout, ...contract.otherFinishTimeout].sort((a, b) => a.spans.item[0] - b.spans.item[0]);

  for (const entry of entries) {
    const where = `${entry.list} entry ${entry.job === null ? `for ${entry.fileAsWritten}` : `"${entry.job}"`}`;
    const state = jobsIn(entry.file);
    if (!state.exists) {
      report(contractFileMissing.meta, entry, entry.spans.file, `The ${where} names ${entry.fileAsWritten}, which does not exist. Remove the entry, or correct the path.`);
      markCovered(coveredBy, entry, [`${entry.file}#${entry.job ?? '*'}`], report);
      continue;
    }
    const covered = state.jobs.filter((job) => entry.job === null || job.name === entry.job);
    if (covered.length === 0) {
      const message =
        entry.job === null || state.jobs.length === 0
          ? `The ${where} names ${entry.fileAsWritten}, which holds no Job resource. Remove the entry, or correct the path.`
          : `The ${where} names a Job that is not in ${entry.fileAsWritten} (it holds ${state.jobs.map((job) => `"${job.name}"`).join(', ')}). Remove the entry, or correct the name.`;
      report(contractNoJob.meta, entry, entry.job === null || state.jobs.length === 0 ? entry.spans.file : entry.spans.job, message);
      continue;
    }
    const stale = staleMessage(entry, covered);
    if (stale) {
      // A value every covered Job agrees on can be written into the entry instead.
      const values = [...new Set(covered.map((job) => job.ttl?.value))];
      const update =
        entry.list === 'otherFinishTimeout' && entry.spans.value && values.length === 1 && typeof values[0] === 'number'
          ? [{ title: `Update the value to ${values[0]}`, edits: [{ file: contract.path, range: lines.range(entry.spans.value[0], entry.spans.value[1]), newText: String(values[0]) }] }]
          : [];
      report(contractStale.meta, entry, entry.list === 'otherFinishTimeout' ? (entry.spans.value ?? entry.spans.job) : entry.spans.job, `The ${where} is stale: ${stale}`, [
        ...update,
        removeEntry(contract, lines, entry.spans.item, `${entry.list} entry`),
      ]);
    }
    markCovered(
      coveredBy,
      entry,
      covered.map((job) => `${entry.file}#${job.name}`),
      report,
    );
  }
  return findings;
}

function staleMessage(entry: TtlEntry, covered: JobRecord[]): string | null {
  const label = (job: JobRecord) => `Job "${job.name}"`;
  if (entry.list === 'noFinishTimeout') {
    const withTtl = covered.filter((job) => job.ttl !== null);
    return withTtl.length === 0 ? null : `${withTtl.map(label).join(', ')} now set${withTtl.length === 1 ? 's' : ''} ttlSecondsAfterFinished. Remove the TTL, or remove the entry.`;
  }
  const differing = covered.filter((job) => job.ttl?.value !== entry.value);
  if (differing.length === 0 || entry.value === null) return null;
  const described = differing.map((job) => `${label(job)} ${job.ttl === null ? 'sets no TTL' : job.ttl.value === null ? 'sets an invalid TTL' : `sets ${job.ttl.value}`}`);
  return `it allows ${entry.value}, but ${described.join(', ')}. Update the value, or remove the entry.`;
}

function markCovered(coveredBy: Map<string, TtlEntry>, entry: TtlEntry, keys: string[], report: (meta: RuleMeta, entry: TtlEntry, span: Span | undefined, message: string) => void): void {
  for (const key of keys) {
    const earlier = coveredBy.get(key);
    if (earlier) {
      const name = key.slice(key.indexOf('#') + 1);
      const job = name === '*' ? `the Jobs of ${entry.fileAsWritten}` : `Job "${name}"`;
      const where = earlier.list === entry.list ? `twice in ${entry.list}` : `by both noFinishTimeout and otherFinishTimeout`;
      report(contractDuplicate.meta, entry, entry.spans.job ?? entry.spans.file, `${job} is covered ${where}: keep one entry.`);
      return;
    }
  }
  for (const key of keys) coveredBy.set(key, entry);
}

/** `serviceAccounts.external` rots too: an account the repository now declares, or that no pod uses, is stale. */
export function checkExternalAccounts(
  contract: Contract,
  repository: { declaresServiceAccount(name: string, namespace: string | null): boolean; usesServiceAccount(name: string, namespace: string | null): boolean },
): Finding[] {
  const lines = new LineIndex(contract.text);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  contract.externalAccounts.forEach((account, index) => {
    const where = `serviceAccounts.external[${index}] ("${account.name}"${account.namespace ? ` in ${account.namespace}` : ''})`;
    const key = `${account.name}/${account.namespace ?? '*'}`;
    let problem: string | null = null;
    let meta = contractStale.meta;
    if (seen.has(key)) {
      meta = contractDuplicate.meta;
      problem = `${where} is listed twice: keep one entry.`;
    } else if (repository.declaresServiceAccount(account.name, account.namespace)) {
      problem = `${where} is stale: the repository now declares this ServiceAccount. Remove the entry.`;
    } else if (!repository.usesServiceAccount(account.name, account.namespace)) {
      problem = `${where} is stale: no pod in the repository runs as it. Remove the entry.`;
    }
    seen.add(key);
    if (problem) findings.push(makeFinding(meta, contract.path, lines, account.spans.name, problem, null, [removeEntry(contract, lines, account.spans.item, 'serviceAccounts.external entry')]));
  });
  return findings;
}

/** What the flux entries are checked against. */
export interface FluxFacts {
  hasFolder(path: string): boolean;
  /** Whether the repository declares (or a generator makes) a ConfigMap/Secret of that name. */
  declaresObject(kind: 'ConfigMap' | 'Secret', name: string): boolean;
  /** Whether some file uses `${name}` (without a default). */
  usesName(name: string): boolean;
  /** The outside sources live Kustomizations take, with the names used from each. */
  outsideSources(): readonly OutsideSource[];
  /** The objects live HelmReleases read that nothing of their world creates (kind, name, namespace). */
  helmOutside(): ReadonlyArray<{ kind: string; name: string; namespace: string | null }>;
}

/** `flux.roots`, `flux.sources`, `flux.substituteFrom` and `flux.variables` rot like the other lists. */
export function checkFluxEntries(contract: Contract, repository: FluxFacts): Finding[] {
  const lines = new LineIndex(contract.text);
  const findings: Finding[] = [];
  const report = (meta: RuleMeta, span: Span, message: string, item: Span = span) =>
    findings.push(makeFinding(meta, contract.path, lines, span, message, null, [removeEntry(contract, lines, item, 'entry')]));
  contract.flux.roots.forEach((root, index) => {
    if (!repository.hasFolder(root.path))
      report(contractFileMissing.meta, root.span, `flux.roots[${index}] names ${root.path}, which is not a folder of the repository. Remove the entry, or correct the path.`);
  });
  contract.flux.sources.forEach((source, index) => {
    if (!repository.hasFolder(source.path))
      report(
        contractFileMissing.meta,
        source.span,
        `flux.sources[${index}] (${source.kind} ${source.name}) names ${source.path}, which is not a folder of the repository. Remove the entry, or correct the path.`,
        source.item,
      );
  });
  contract.flux.substituteFrom.forEach((ref, index) => {
    if (!ref.optional && !repository.declaresObject(ref.kind, ref.name))
      report(
        contractStale.meta,
        ref.span,
        `flux.substituteFrom[${index}] names ${ref.kind} ${ref.name}, which nothing in the repository defines. Mark it optional: true if the cluster holds it, or remove the entry.`,
      );
  });
  (contract.flux.variables ?? []).forEach((variable, index) => {
    if (!repository.usesName(variable.name)) report(contractStale.meta, variable.span, `flux.variables[${index}] declares \${${variable.name}}, which no file uses. Remove the entry.`, variable.item);
  });
  for (const finding of checkDeclaredSources(contract, repository.outsideSources(), repository.helmOutside())) findings.push(finding);
  return findings;
}

/**
 * `flux.variables` items with `from` rot too: a source no live Kustomization takes from outside the
 * repository and no live HelmRelease reads from outside (none takes it, or the repository now
 * shows the object and its keys), and a name of `names` that no file built with that source uses
 * from it.
 */
function checkDeclaredSources(contract: Contract, sources: readonly OutsideSource[], helm: ReturnType<FluxFacts['helmOutside']>): Finding[] {
  const lines = new LineIndex(contract.text);
  const findings: Finding[] = [];
  for (const declared of contract.flux.declaredSources) {
    const label = `${declared.kind} ${declared.name}`;
    const taken = sources.filter((source) => source.takers.some((t) => declares(declared, t.entry.ref, t.entry.namespace)));
    const read = helm.some((ref) => ref.kind === declared.kind && declares(declared, { kind: declared.kind, name: ref.name, optional: false, file: '', span: [0, 0] }, ref.namespace));
    if (taken.length === 0 && !read) {
      const message = `The flux.variables item for ${label} is stale: no live Kustomization takes ${label} from outside the repository, and no live HelmRelease reads it (where the repository shows it, its keys are read there). Remove the item.`;
      findings.push(makeFinding(contractStale.meta, contract.path, lines, declared.span, message, null, [removeEntry(contract, lines, declared.item, 'flux.variables item')]));
      continue;
    }
    const used = new Set(taken.flatMap((source) => source.names));
    for (const { name, span } of declared.names ?? []) {
      if (used.has(name)) continue;
      const message = `${name} is stale in the names of ${label}: no file built with ${label} uses it. Remove it from the list.`;
      findings.push(makeFinding(contractStale.meta, contract.path, lines, span, message, null, [removeListItem(contract, lines, span, `name ${name} from the names of ${label}`)]));
    }
  }
  return findings;
}

/** Removing one scalar of a list: its line in a block list, the item and its comma in a flow list. */
function removeListItem(contract: Contract, lines: LineIndex, span: Span, what: string): Fix {
  const text = contract.text;
  const line = lines.position(span[0]).line;
  if (/^\s*-\s*$/.test(text.slice(lines.lineStart(line), span[0]))) return removeEntry(contract, lines, span, what);
  let start = span[0];
  let end = span[1];
  const after = /^\s*,\s*/.exec(text.slice(end));
  if (after) end += after[0].length;
  else {
    const before = /,\s*$/.exec(text.slice(0, start));
    if (before) start -= before[0].length;
  }
  return { title: `Remove the ${what}`, edits: [{ file: contract.path, range: lines.range(start, end), newText: '' }] };
}
