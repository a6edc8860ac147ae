// Which contract entries cover one Job: the `noFinishTimeout` and
// `otherFinishTimeout` entries that name its file and its name (or the whole
// file). The TTL rules, the summary and the Job lens all ask here.
import type { Contract, TtlEntry } from './model';

export interface JobCoverage {
  noFinishTimeout: TtlEntry[];
  otherFinishTimeout: TtlEntry[];
}

export function coverageOf(contract: Contract, file: string, name: string | null): JobCoverage {
  const covers = (entry: TtlEntry) => entry.file === file && (entry.job === null || entry.job === name);
  return { noFinishTimeout: contract.noFinishTimeout.filter(covers), otherFinishTimeout: contract.otherFinishTimeout.filter(covers) };
}
