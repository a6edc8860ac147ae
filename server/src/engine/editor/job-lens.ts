// The lens over every Job: its cycle in words. A Job with a TTL is deleted
// after it finishes and re-created by the Flux Kustomization that applies it
// at its next reconcile; a Job without one keeps its completion and runs again
// only under a new name; a Job nothing applies is not re-created at all.
// Clicking the lens shows the long explanation (the TTL hover's, where there is a TTL).
// A lens stays short: beyond NAMED Kustomizations it counts them, and clicking it
// lists them all (their places, as a references lens does).
import { coverageOf } from '../contract/coverage';
import type { Contract } from '../contract/model';
import type { Range } from '../base/types';
import type { FluxKustomization } from '../flux/facts/model';
import type { Builder } from '../flux/model/world';
import type { RepoIndex } from '../pipeline/repo-index';
import { humanDuration, parseGoDuration } from '../base/duration';
import { kustomizationList } from './hover';
import { Link } from './link';
import type { ResourceFacts } from './resource-facts';
import { describeTtlCycle, ttlAt } from './ttl-info';
import { rerunPeriod } from '../k8s/ttl-cycle';

export interface JobLens {
  /** The Job's document (the lens stands on its first line). */
  span: [number, number];
  name: string | null;
  title: string;
  /** Where the TTL key is written (the hover there explains the cycle), null without one. */
  ttlKeySpan: [number, number] | null;
  /** When the title counts the Kustomizations instead of naming them: where each is written, to list them. */
  listed: Array<{ file: string; range: Range }> | null;
}

/** How many Kustomizations a title names; more are counted. */
const NAMED = 3;

export const NOT_APPLIED = 'no Flux Kustomization applies this Job';
/** In a repository without Flux: what applies the Job is not shown here. */
export const NO_FLUX = 'no Flux here: whatever applies it decides whether it runs again';
const ONCE = 'runs once per new name';

/** The Kustomizations that apply the file as a resource (once each, whatever the world). */
function applying(index: RepoIndex, path: string): Builder[] {
  const found: Builder[] = [];
  for (const entry of index.fluxGraph(true).entriesOf(path)) if (entry.role === 'resource' && !found.some((b) => b.kustomization === entry.builder.kustomization)) found.push(entry.builder);
  return found;
}

export function jobLenses(index: RepoIndex, contract: Contract, path: string, resources: ResourceFacts[]): JobLens[] {
  const kustomizations = applying(index, path).map((builder) => builder.kustomization);
  return resources.flatMap((resource) => {
    if (!resource.job) return [];
    const { title, counts } = cycleTitle(contract, path, resource, kustomizations, index.writesFluxKustomizations());
    const listed = counts ? kustomizations.map((k) => ({ file: k.file, range: k.range })).sort(byPlace) : null;
    return [{ span: resource.span, name: resource.name, title, ttlKeySpan: resource.job.ttl?.keySpan ?? null, listed }];
  });
}

/** By file, then line: the order a references list shows, whatever order the index found them in. */
function byPlace(a: { file: string; range: Range }, b: { file: string; range: Range }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.range.start.line - b.range.start.line;
}

/** The Kustomizations as a title says them: each name with its interval, or (beyond NAMED) how many, and their interval when they share one. */
function who(kustomizations: FluxKustomization[]): string {
  if (kustomizations.length > NAMED) return counted(kustomizations);
  return `Kustomization${kustomizations.length > 1 ? 's' : ''} ${kustomizations.map((k) => `${k.name}, every ${k.interval ?? '(interval unset)'}`).join('; ')}`;
}

function counted(kustomizations: FluxKustomization[]): string {
  const intervals = new Set(kustomizations.map((k) => k.interval ?? '(interval unset)'));
  return `${kustomizations.length} Kustomizations${intervals.size === 1 ? `, every ${[...intervals][0]}` : ''}`;
}

/** The lens's title; `counts`: it counts the Kustomizations rather than naming them. */
function cycleTitle(contract: Contract, path: string, job: ResourceFacts, kustomizations: FluxKustomization[], fluxHere: boolean): { title: string; counts: boolean } {
  const coverage = coverageOf(contract, path, job.name);
  const ttl = job.job!.ttl;
  const only = (title: string) => ({ title, counts: false });
  // With Flux in the repository, a Job none of its Kustomizations applies is dead; without, something else applies it.
  if (kustomizations.length === 0 && fluxHere) return only(NOT_APPLIED);
  if (coverage.noFinishTimeout.length > 0) return only(`keeps its completion: noFinishTimeout — ${ONCE}`);
  if (!ttl) return only(`keeps its completion (no ttlSecondsAfterFinished) — ${ONCE}`);
  if (ttl.value === null) return only('ttlSecondsAfterFinished is not a number of seconds: Kubernetes rejects the Job');
  if (kustomizations.length === 0) return only(`deleted ${humanDuration(ttl.value)} after it finishes — ${NO_FLUX}`);
  const periods = [...new Set(kustomizations.map((k) => humanDuration(rerunPeriod(ttl.value!, intervalOf(k)))))];
  const listed = coverage.otherFinishTimeout.length > 0 ? ' (otherFinishTimeout)' : '';
  return { title: `re-created about ${periods.join(' or ')} after it finishes${listed} — ${who(kustomizations)}`, counts: kustomizations.length > NAMED };
}

function intervalOf(k: FluxKustomization): number | null {
  return k.interval === null ? null : parseGoDuration(k.interval);
}

/** The lens's explanation (Markdown): the TTL hover's text, or why the Job is not re-created. */
export function jobCycleExplanation(index: RepoIndex, contract: Contract, path: string, text: string, lens: JobLens, link: Link): string {
  if (lens.ttlKeySpan) {
    // The hover's own text, computed on the Job's document alone.
    const cycle = ttlAt(index, contract, path, text.slice(lens.span[0], lens.span[1]), lens.ttlKeySpan[0] - lens.span[0]);
    if (cycle) return describeTtlCycle(cycle, contract, link);
  }
  const builders = applying(index, path);
  const job = `**Job ${lens.name ?? '(no name)'}**: ${lens.title}.`;
  if (builders.length === 0 && !index.writesFluxKustomizations()) {
    return `${job}\n\nNo Flux Kustomization is written in this repository: whatever applies ${path} (kubectl, Argo CD, a script) decides whether the Job is created again.`;
  }
  if (builders.length === 0) return `${job}\n\nNo live Flux Kustomization in this repository applies ${path}: nothing creates this Job, nor re-creates it.`;
  const entry = coverageOf(contract, path, lens.name).noFinishTimeout[0];
  const why = entry ? `The contract lists it in noFinishTimeout: ${entry.reason || '(no reason written)'}` : 'It sets no ttlSecondsAfterFinished.';
  return `${job}\n\n${why} The finished Job stays, with its completion, and Flux does not run it again while its name stays the same; a new run needs a new name (a changed pod template under the same name fails: \`field is immutable\`).\n\nApplied by ${kustomizationList(builders, link)}, interval ${[...new Set(builders.map((b) => b.kustomization.interval ?? 'unset'))].join(' or ')}.`;
}
