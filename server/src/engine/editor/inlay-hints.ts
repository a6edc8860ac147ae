// Inlay hints: after each `${…}` Flux substitutes, what Flux writes there
// (a Secret's value never: ••••), or that it blanks or fails it; after `$$`
// and `$${…}`, what is left for the shell. Only the documents in the range the
// editor asks for are parsed, so a hint request on a huge file stays cheap.
import { strictIn, type StrictSetting } from '../flux/model/flux-version';
import type { Contract } from '../contract/model';
import { envsubst } from '../flux/substitution/envsubst/template';
import { ExpressionOccurrence } from '../flux/substitution/envsubst/node';
import type { SubstitutedRegion } from '../flux/substitution/regions';
import type { Builder } from '../flux/model/world';
import type { SourceOccurrence } from '../flux/substitution/scalars';
import { fluxContextOf } from '../pipeline/repo-analysis';
import type { RepoIndex } from '../pipeline/repo-index';
import { substitutedRegions } from './substituted-text';
import { SECRET_MASK } from './substitution-info';
import { builderLabel, differsBy, oneLine } from './variable-display';

export interface InlayHintItem {
  /** Where the hint stands: right after the `}` (or the escape). */
  offset: number;
  label: string;
  /** Markdown: each substituting Kustomization's result. */
  tooltip: string;
}

export function inlayHints(index: RepoIndex, contract: Contract, path: string, text: string, from: number, to: number): InlayHintItem[] {
  const flux = fluxContextOf(index, contract, path);
  if (!flux || !text.includes('$')) return [];
  const hints: InlayHintItem[] = [];
  for (const region of substitutedRegions(flux, path, text, from, to)) {
    const { occurrences } = region;
    for (let i = 0; i < occurrences.length; i++) {
      const occurrence = occurrences[i];
      if (occurrence.span[1] < from || occurrence.span[0] > to) continue;
      const { occurrence: found } = occurrence;
      if (found.kind === 'expression') hints.push(expressionHint(occurrence, found, region, flux));
      else if (found.kind === 'escape') {
        // A run of escapes (`$$$$`, side by side in the file), with the `{…}` after it: one hint for what the shell gets.
        let last = i;
        while (occurrences[last + 1]?.occurrence.kind === 'escape' && occurrences[last + 1].span[0] === occurrences[last].span[1]) last++;
        const hint = escapeHint(occurrence, occurrences[last], region, text);
        if (hint) hints.push(hint);
        i = last;
      }
    }
  }
  // A YAML file a generator also reads has two regions over the same text: one hint per place.
  const seen = new Set<number>();
  return hints.filter((hint) => hint.offset >= from && hint.offset <= to && !seen.has(hint.offset) && Boolean(seen.add(hint.offset))).sort((a, b) => a.offset - b.offset);
}

interface Outcome {
  label: string;
  line: string;
}

function expressionHint(occurrence: SourceOccurrence, expression: ExpressionOccurrence, region: SubstitutedRegion, strictness: StrictSetting): InlayHintItem {
  const written = occurrence.value.slice(occurrence.valueStart, occurrence.valueEnd);
  const outcomes = region.substituting.map((builder) => outcome(written, expression, builder, strictIn(strictness, builder.world)));
  return {
    offset: occurrence.span[1],
    label: combined(
      outcomes.map((o) => o.label),
      region.substituting,
    ),
    tooltip: tooltip(written, outcomes, region.substituting),
  };
}

/** What one Kustomization makes of the expression. */
function outcome(written: string, expression: ExpressionOccurrence, builder: Builder, strict: boolean): Outcome {
  const evaluated = evaluate(written, builder, strict);
  const defined = builder.vars?.defined.has(expression.name ?? '') ?? false;
  let label: string;
  // A name an object outside the repository may define: neither blank nor a failure, as far as anyone here knows.
  if (!defined && !expression.hasDefault && (builder.vars?.unknown.length ?? 0) > 0) label = '(unknown: not in the repository)';
  else if (!evaluated.ok) label = evaluated.error.startsWith('variable not set') ? '(fails: strict)' : `(fails: ${evaluated.error})`;
  else if (evaluated.secret) label = `= ${SECRET_MASK}`;
  else if (!defined && !expression.hasDefault) label = '(unset)';
  else label = `= ${oneLine(evaluated.output)}${defined ? '' : ' (default)'}`;
  return { label, line: `- Kustomization \`${builderLabel(builder)}\`: ${label}` };
}

/** The text through Flux's substitution with one Kustomization's variables; `secret` when a secret's value took part. */
function evaluate(written: string, builder: Builder, strict: boolean): { ok: true; output: string; secret: boolean } | { ok: false; error: string } {
  let secret = false;
  const result = envsubst(
    written,
    (name) => {
      const defined = builder.vars?.defined.get(name);
      if (defined?.secret) secret = true;
      return defined?.value;
    },
    { strict },
  );
  return result.ok ? { ok: true, output: result.output, secret } : result;
}

/**
 * `$$` and `$${…}`: what Flux leaves for the shell (`$`, `${X}`). The hint stands after the
 * `{…}` that follows the escapes, when it closes on the same line.
 */
function escapeHint(first: SourceOccurrence, last: SourceOccurrence, region: SubstitutedRegion, text: string): InlayHintItem | null {
  const { value } = first;
  let end = last.valueEnd;
  if (value[end] === '{') {
    let depth = 0;
    for (let i = end; i < value.length && value[i] !== '\n'; i++) {
      if (value[i] === '{') depth++;
      else if (value[i] === '}' && --depth === 0) {
        end = i + 1;
        break;
      }
    }
  }
  const written = value.slice(first.valueStart, end);
  // File positions of the group: verbatim after the escapes (else the hint stays right after them).
  const fileEnd = first.span[0] + (end - first.valueStart);
  const offset = text.slice(first.span[0], fileEnd) === written ? fileEnd : last.span[1];
  const labels = region.substituting.map((builder) => {
    const evaluated = evaluate(written, builder, false);
    return !evaluated.ok ? '' : evaluated.secret ? `→ ${SECRET_MASK}` : `→ ${oneLine(evaluated.output)}`;
  });
  if (labels[0] === '') return null; // Flux fails on the text: its finding says why
  const receiver = first.shell ? 'the shell receives' : 'Flux writes';
  return { offset, label: combined(labels, region.substituting), tooltip: `\`${written}\`: ${receiver} \`${labels[0].slice(2)}\` (\`$$\` is Flux's escape for \`$\`).` };
}

/** The first Kustomization's label, marked when the others' differ. */
function combined(labels: string[], builders: Builder[]): string {
  const first = labels[0];
  return new Set(labels).size > 1 ? `${first} (${differsBy(builders)})` : first;
}

function tooltip(written: string, outcomes: Outcome[], builders: Builder[]): string {
  const head = `\`${written}\` as Flux substitutes it`;
  return builders.length > 1 ? [head + ':', ...outcomes.map((o) => o.line)].join('\n') : `${head}: ${outcomes[0].label}`;
}
