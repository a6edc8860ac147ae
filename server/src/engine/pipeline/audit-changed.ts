// The audit of what a change can affect (`audit --changed-since REV`, `audit --staged`): the
// engine models the repository now and at REV (the files that did not change are read and
// summarised once for both, index-memo.ts; where no changed file tells the index anything new, the
// model now is the model at REV, unchangedModel in affected.ts), works out which files the change
// can reach (affected.ts), and audits only those, each as the whole audit would (audit-one.ts). So its
// findings are the whole audit's on those files, at the cost of the index and the affected files
// rather than of every file's parse and rules.
//
// The summary stays the whole repository's, as the whole audit counts it: the Jobs of every file
// that may hold one (its text says `Job`) are counted, and contract-no-jobs follows that count.
import type { ReadResult, RepoFs } from '../base/repo-fs';
import type { Finding } from '../base/types';
import { countFindings, MENTIONS_JOB, readContract, sortFindings, summarize, type AuditOptions, type AuditResult } from './audit';
import type { FileSummary } from './file-summary';
import { mayBeIndexed } from './scope';
import { affectedFiles, revisionModel, unchangedModel } from './affected';
import { auditContractFile, auditOneFile, type FileAudit } from './audit-one';
import { IndexMemo } from './index-memo';

/** One revision's files: how to read them, and their list. */
export interface RevisionFiles {
  fs: RepoFs;
  files: string[];
}

/** The audit of what a change can affect, and which files those are. */
export type ChangedAudit = AuditResult & { affected: ReadonlySet<string> };

/** The summaries of the files that did not change, copied: the index of the revision keeps its own. */
function unchangedCopies(made: ReadonlyMap<string, FileSummary>, changed: ReadonlySet<string>): Map<string, FileSummary> {
  return new Map([...made].filter(([path]) => !changed.has(path)).map(([path, summary]) => [path, structuredClone(summary)]));
}

/**
 * The audit of the files the change to `now` can affect (`changed`: the paths that differ from the
 * revision `before` gives, over the files as they are now); null where a setting every file
 * depends on changed (then every file is affected: the caller runs the whole audit).
 */
export async function auditChanged(now: RevisionFiles, changed: ReadonlySet<string>, before: (current: RepoFs) => Promise<RevisionFiles>, options: AuditOptions = {}): Promise<ChangedAudit | null> {
  const memo = new IndexMemo();
  const jobFiles = new Set<string>();
  const note = (path: string, read: ReadResult) => {
    if (read.kind === 'text' && MENTIONS_JOB.test(read.text)) jobFiles.add(path);
  };
  // Each file is read once: the revision reads the files that did not change from here.
  const reads = new Map<string, Promise<ReadResult>>();
  const current: RepoFs = {
    listFiles: () => now.fs.listFiles(),
    read: (path) => {
      let read = reads.get(path);
      if (!read) reads.set(path, (read = now.fs.read(path).then((result) => (note(path, result), result))));
      return read;
    },
  };
  // Read and summarised ahead where an executor spreads the work (the CLI's audit workers): the
  // texts stay there; each index takes the summaries (the revision's, of the files that did not change).
  let made: Map<string, FileSummary> | undefined;
  if (options.executor) {
    const executor = options.executor((await readContract(now.fs, options)).contract);
    try {
      made = new Map();
      for (const { path, summary, mentionsJob } of await executor.summarize(now.files.filter(mayBeIndexed))) {
        made.set(path, summary);
        if (mentionsJob) jobFiles.add(path);
      }
    } finally {
      executor.close();
    }
  }
  const after = await revisionModel(current, now.files, options, memo, made);
  const then = await before(current);
  // Most changes tell the model nothing new (a Job's TTL, a command): the revision's model is then this one.
  const prior = (await unchangedModel(after, current, then.fs, changed)) ?? (await revisionModel(then.fs, then.files, options, memo, made && unchangedCopies(made, changed)));
  const affected = affectedFiles({ files: changed, before: prior.view, after: after.view, contract: { before: prior.contract, after: after.contract } });
  if (affected === null) return null;

  const { contract, index } = after;
  const audited = new Map<string, FileAudit>();
  const auditOne = async (path: string) => {
    if (!audited.has(path)) audited.set(path, await auditOneFile(current, contract, index, path, options.head));
  };
  for (const path of [...jobFiles].sort()) await auditOne(path);
  for (const path of [...affected].sort()) if (path !== contract.path) await auditOne(path);

  const jobs = [...audited].filter(([, file]) => file.jobs.length > 0).map(([path, file]): [string, FileAudit['jobs']] => [path, file.jobs]);
  const summary = summarize(
    contract,
    jobs.map(([path, records]) => ({ path, jobs: records })),
  );
  const findings: Finding[] = [...affected].flatMap((path) => audited.get(path)?.findings ?? []);
  if (affected.has(contract.path)) findings.push(...(await auditContractFile({ fs: current, contract, loaded: after.loaded, index, jobs: summary.jobs, head: options.head })));
  const sorted = sortFindings(findings);
  return { contract, findings: sorted, summary: countFindings(summary, sorted), jobs, affected };
}
