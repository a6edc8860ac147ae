// The hover on `ttlSecondsAfterFinished`: the cycle this Job is in. The TTL
// controller deletes the finished Job; the Flux Kustomization that builds it
// re-creates it at its next reconcile; so the Job runs again about every
// TTL (rounded up to the interval).
import { requiredTtlPhrase, type Contract } from '../contract/model';
import { isJobDocument, jobFacts } from '../k8s/jobs';
import type { RepoIndex } from '../pipeline/repo-index';
import { parseYamlFile } from '../yaml/documents';
import { parseGoDuration } from '../base/duration';
import { describeRerun, rerunPeriod } from '../k8s/ttl-cycle';
import type { Link } from './link';
import { ttlConvergenceNote } from '../rules/ttl-convergence-note';
import { ttlShorterThanInterval } from '../rules/ttl-shorter-than-interval';
import { ttlUnexpectedValue } from '../rules/ttl-unexpected-value';
import { LineIndex } from '../yaml/line-index';
import { convergenceNote, type NoteState } from '../rules/support/convergence-note';

export interface TtlCycle {
  span: [number, number];
  ttl: number | null;
  kustomizations: Array<{ name: string; file: string; line: number; interval: string | null; prune: boolean; rerunSeconds: number | null }>;
  /** Whether the TTL has its `# converges:` comment. */
  note: NoteState;
  /** Whether the repository writes any Flux Kustomization (else something outside Flux applies its Jobs). */
  flux: boolean;
}

/** Rules whose message under the cursor already says how often the Job runs again. */
const STATES_RERUN = new Set([ttlConvergenceNote.meta.id, ttlShorterThanInterval.meta.id]);
/** Rules whose message already says which value is required. */
const STATES_REQUIRED = new Set([ttlUnexpectedValue.meta.id]);

export function ttlAt(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): TtlCycle | null {
  for (const parsed of parseYamlFile(text)) {
    if (offset < parsed.base || offset > parsed.end || parsed.errors.length > 0 || !isJobDocument(parsed)) continue;
    const job = jobFacts(parsed);
    if (!job.ttl || offset < job.ttl.keySpan[0] || offset > job.ttl.valueSpan[1]) return null;
    const ttl = job.ttl.value;
    const kustomizations = index
      .fluxGraph(true)
      .buildersOf(path)
      .map(({ kustomization }) => {
        const interval = kustomization.interval === null ? null : parseGoDuration(kustomization.interval);
        return {
          name: kustomization.name,
          file: kustomization.file,
          line: kustomization.line,
          interval: kustomization.interval,
          prune: kustomization.prune,
          rerunSeconds: ttl === null ? null : rerunPeriod(ttl, interval),
        };
      });
    const note = convergenceNote(new LineIndex(text), job.ttl.keySpan[0], job.ttl.valueSpan[1], contract.convergenceNote);
    return { span: [job.ttl.keySpan[0], job.ttl.valueSpan[1]], ttl, kustomizations, note, flux: index.writesFluxKustomizations() };
  }
  return null;
}

/**
 * `shown`: the rules of the diagnostics under the cursor. What their messages say is not said again
 * (VS Code shows them above the hover): the hover adds the Kustomizations, their links and schedule.
 */
export function describeTtlCycle(cycle: TtlCycle, contract: Contract, link: Link, shown: ReadonlySet<string> = new Set()): string {
  const says = (rules: ReadonlySet<string>) => [...rules].some((rule) => shown.has(rule));
  const required = says(STATES_REQUIRED) ? '' : ` (${requiredTtlPhrase(contract)})`;
  const lines = [`**ttlSecondsAfterFinished: ${cycle.ttl ?? 'invalid'}**${required}`];
  if (cycle.kustomizations.length === 0) {
    lines.push(
      cycle.flux
        ? 'No Flux Kustomization in this repository applies this Job: nothing re-creates it after the TTL controller deletes it.'
        : 'No Flux Kustomization is written in this repository: the TTL controller deletes the finished Job, and whatever applies it (kubectl, Argo CD, a script) decides whether it is created again.',
    );
    return lines.join('\n\n');
  }
  // Kustomizations with the same schedule share one line (a Job built in several clusters, say).
  const groups = new Map<string, TtlCycle['kustomizations']>();
  for (const k of cycle.kustomizations) {
    const key = `${k.interval}|${k.prune}|${k.rerunSeconds}`;
    groups.set(key, [...(groups.get(key) ?? []), k]);
  }
  for (const group of groups.values()) {
    const first = group[0];
    const names =
      group
        .slice(0, 3)
        .map((k) => `\`${k.name}\` (${link(k.file, { line: k.line })})`)
        .join(', ') + (group.length > 3 ? `, and ${group.length - 3} more` : '');
    lines.push(`Applied by Flux Kustomization${group.length > 1 ? 's' : ''} ${names}, interval ${first.interval ?? 'unset'}, prune ${first.prune}.`);
    if (first.rerunSeconds !== null && !says(STATES_RERUN)) lines.push(`${describeRerun(first.rerunSeconds)}.`);
  }
  // The advice only where it is still to follow, and not when the diagnostic gives it.
  if (cycle.note !== 'present' && !shown.has(ttlConvergenceNote.meta.id)) lines.push(`A re-run must converge: say why in the \`# ${contract.convergenceNote}\` comment.`);
  return lines.join('\n\n');
}
