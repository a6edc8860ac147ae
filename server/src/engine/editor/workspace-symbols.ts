// Workspace symbols: the Jobs the tool checks (those Flux applies, or under
// jobs.include) and every Flux Kustomization. Kustomizations come from the
// index's facts; Jobs from a scan of the files where Job rules apply, kept per
// file until the index records that file's text again.
import type { Contract } from '../contract/model';
import type { RepoIndex } from '../pipeline/repo-index';
import { LineIndex } from '../yaml/line-index';
import type { Range } from '../base/types';
import { resourceRulesApply } from '../pipeline/scope';
import { ChunkCache, MAY_BE_JOB, resourcesIn } from './resource-facts';
import type { ReadText } from './variable-sites';

export interface WorkspaceSymbolItem {
  name: string;
  kind: 'Job' | 'Kustomization';
  file: string;
  /** [start, end) of the Job's name, of the Kustomization's `kind`. */
  span: [number, number];
  /** For people: what it is and what applies it. */
  container: string;
  /** The span as a range, when the scan that found it had the text at hand. */
  range?: Range;
}

type JobName = { name: string; span: [number, number]; range: Range };

/** At most this many symbols per request (an empty query lists everything). */
export const MAX_SYMBOLS = 500;

/** Case-insensitive: the query's characters appear in the name in order (editors filter again their own way). */
export function matchesQuery(name: string, query: string): boolean {
  const lower = name.toLowerCase();
  let at = 0;
  for (const char of query.toLowerCase()) {
    at = lower.indexOf(char, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

export function kustomizationSymbols(index: RepoIndex, query: string): WorkspaceSymbolItem[] {
  const graph = index.fluxGraph(true);
  const live = new Set(graph.liveBuilders().map((builder) => builder.kustomization));
  return graph.kustomizations
    .filter((k) => matchesQuery(k.name, query))
    .map((k) => ({ name: k.name, kind: 'Kustomization', file: k.file, span: k.span, container: `Flux Kustomization → ${k.pathAsWritten || '(no path)'}${live.has(k) ? '' : ' (not applied)'}` }));
}

/** The Jobs of each file, remembered with the index's recording of the file they were read from. */
export class JobSymbols {
  private readonly files = new Map<string, { recording: number; jobs: JobName[] }>();

  async find(index: RepoIndex, contract: Contract, query: string, read: ReadText): Promise<WorkspaceSymbolItem[]> {
    const found: WorkspaceSymbolItem[] = [];
    const graph = index.fluxGraph();
    for (const file of [...index.filePaths()].sort()) {
      if (!resourceRulesApply(contract, index, file)) continue;
      const jobs = await this.jobsOf(index, file, read);
      if (jobs.length === 0) continue;
      const applying = [
        ...new Set(
          graph
            .entriesOf(file)
            .filter((entry) => entry.role === 'resource')
            .map((entry) => entry.builder.kustomization.name),
        ),
      ];
      const container = `Job${applying.length > 0 ? ` ← Kustomization ${applying.join(', ')}` : ''}`;
      for (const job of jobs) if (matchesQuery(job.name, query)) found.push({ name: job.name, kind: 'Job', file, span: job.span, range: job.range, container });
    }
    for (const file of this.files.keys()) if (!index.hasFile(file)) this.files.delete(file);
    return found;
  }

  private async jobsOf(index: RepoIndex, file: string, read: ReadText): Promise<JobName[]> {
    const recording = index.recordingOf(file);
    const cached = this.files.get(file);
    if (cached && cached.recording === recording) return cached.jobs;
    const text = await read(file);
    const resources = text === undefined || !MAY_BE_JOB.test(text) ? [] : new ChunkCache(resourcesIn, (chunk) => MAY_BE_JOB.test(chunk)).of(text);
    const lines = resources.length > 0 ? new LineIndex(text!) : null;
    const jobs = resources.flatMap((resource) => (resource.job && resource.name ? [{ name: resource.name, span: resource.selectionSpan, range: lines!.range(...resource.selectionSpan) }] : []));
    this.files.set(file, { recording, jobs });
    return jobs;
  }
}
