// A run of `$` in a scalar, as the `$$` rules read it: how many are written,
// how many reach the consumer through the layers (Flux, the kubelet), what
// follows, and the fix that writes the count the layers need.
import { dollarRun, dollarsReaching, dollarsToWrite, type Layers, VALUE_STAND_IN } from '../../flux/substitution/layers';
import type { SourceOccurrence } from '../../flux/substitution/scalars';
import type { Fix } from '../../base/types';
import type { SubstitutionContext } from '../rule';
import { inShellComment } from './shell-comments';

export interface DollarRun {
  /** [from, to) of the run in the scalar's value. */
  from: number;
  to: number;
  /** How many `$` the consumer receives from it. */
  reaching: number;
  /** The character after the run ('' at the end of the text). */
  next: string;
  layers: Layers;
}

/**
 * The run of `$` an escape (`$$`) starts, read once per run: null for the other occurrences of
 * the run, and for anything but an escape.
 */
export function runStartedBy(occurrence: SourceOccurrence, context: SubstitutionContext): DollarRun | null {
  if (occurrence.occurrence.kind !== 'escape') return null;
  const { value, valueStart } = occurrence;
  if (valueStart > 0 && value[valueStart - 1] === '$') return null;
  const [from, to] = dollarRun(value, valueStart);
  const next = to < value.length ? String.fromCodePoint(value.codePointAt(to)!) : '';
  return { from, to, reaching: dollarsReaching(context.delivered(occurrence), from, to), next, layers: context.layersOf(occurrence) };
}

/** Where `value[from, to)` of the occurrence's scalar sits in the file (`$` are always written as they read). */
export function fileSpan(occurrence: SourceOccurrence, from: number, to: number): [number, number] {
  const shift = occurrence.span[0] - occurrence.valueStart;
  return [from + shift, to + shift];
}

/** The `$` to write in place of the run so that the consumer receives `want` of them (null: no spelling does). */
export function spelling(occurrence: SourceOccurrence, run: DollarRun, want: number): string | null {
  const written = dollarsToWrite(occurrence.value, run.from, run.to, want, run.layers);
  return written === null ? null : '$'.repeat(written);
}

/**
 * The fix that writes `written` in place of the run: it inserts (or removes) only the `$` it must,
 * at the start of the run. Null when the file does not hold the run as written there.
 */
export function respellFix(occurrence: SourceOccurrence, run: DollarRun, written: string, context: SubstitutionContext, title: string): Fix | null {
  const [start, end] = fileSpan(occurrence, run.from, run.to);
  const count = run.to - run.from;
  if (context.text.slice(start, end) !== '$'.repeat(count)) return null;
  const edit = written.length >= count ? { start, end: start, newText: '$'.repeat(written.length - count) } : { start, end: start + count - written.length, newText: '' };
  return context.fix(title, [edit], true);
}

/** Who turns `$$` into `$` on the way, for messages: "Flux", "the kubelet", "Flux and the kubelet". */
export function reducers(layers: Layers): string {
  return [layers.flux ? 'Flux' : null, layers.kubelet ? 'the kubelet' : null].filter((who) => who !== null).join(' and ');
}

/** A few words of the line the consumer receives around the run, for messages. */
export function receivedLine(context: SubstitutionContext, occurrence: SourceOccurrence, run: DollarRun): string {
  const traced = context.delivered(occurrence);
  let at = traced.origin.findIndex((origin) => origin >= run.from);
  if (at === -1) at = traced.text.length;
  const lineStart = traced.text.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = traced.text.indexOf('\n', at);
  // A `${…}` is a stand-in in the trace: show it as an expression.
  const line = traced.text
    .slice(lineStart, lineEnd === -1 ? undefined : lineEnd)
    .replaceAll(VALUE_STAND_IN, '${…}')
    .trim();
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

/** Whether a shell reads the occurrence: shell text, outside the script's comments (`# $$ escapes Flux`). */
export function shellReads(occurrence: SourceOccurrence): boolean {
  return occurrence.shell && !inShellComment(occurrence.value, occurrence.valueStart);
}

/** What a `$` may start in shell after `$$` (a name, a digit, `{`, `(`, a special parameter, `$'…'` quoting): then `$$` is not a PID. */
export const STARTS_SOMETHING = /^[\p{L}\p{Nd}_{($?#@*!'-]$/u;

/** A `$$` meant as a PID (or a PL/pgSQL quote) that reaches the shell as a lone `$`, with the spelling that delivers it. */
export interface LoneDollar {
  run: DollarRun;
  /** How many `$` the shell should receive. */
  want: number;
  /** The `$` to write for that (null: no spelling the layers allow). */
  written: string | null;
  /** The last `$$` of the run, where the finding stands. */
  span: [number, number];
  fix: Fix | null;
}

/**
 * A run of `$` in shell text, followed by a character that starts nothing in shell, of which the
 * layers leave an odd number: the last `$` reaches the shell alone.
 */
export function loneDollar(occurrence: SourceOccurrence, context: SubstitutionContext): LoneDollar | null {
  if (!shellReads(occurrence)) return null; // only a shell reads $$ as its PID
  const run = runStartedBy(occurrence, context);
  // An even count arrives as PIDs ($$); an odd one leaves the last $ alone.
  if (!run || STARTS_SOMETHING.test(run.next) || run.reaching % 2 === 0) return null;
  const want = run.reaching + 1;
  const written = spelling(occurrence, run, want);
  const who = reducers(run.layers);
  const fix = written === null ? null : respellFix(occurrence, run, written, context, `Write ${written} (${who} ${who.includes(' and ') ? 'turn' : 'turns'} it into ${'$'.repeat(want)})`);
  return { run, want, written, span: fileSpan(occurrence, run.to - 2, run.to), fix };
}

/** The message of a lone `$`: what turns `$$` into `$`, what the shell receives, what to write. */
export function loneDollarMessage(steps: string, found: LoneDollar, occurrence: SourceOccurrence, context: SubstitutionContext): string {
  const { run, want, written } = found;
  const write = written === null ? '' : ` Write ${written} to keep ${'$'.repeat(want)} (or $$ before a name for a shell variable).`;
  return `${steps}: a shell PID (or a $$ quote, as in PL/pgSQL) written ${'$'.repeat(run.to - run.from)} arrives as ${'$'.repeat(run.reaching)}; the shell receives "${receivedLine(context, occurrence, run)}".${write}`;
}
