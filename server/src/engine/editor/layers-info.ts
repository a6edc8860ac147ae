// What the hover says about a `$$`, a `${…}` or a `$(NAME)` in text that
// meets more than its consumer: the line in the file, after Flux (when a
// Kustomization substitutes it), after the kubelet (when it is a container's
// command, args or env value). A `$(NAME)` that names one of the container's
// variables is the kubelet's: it is replaced before the shell runs.
import { strictIn } from '../flux/model/flux-version';
import type { Contract } from '../contract/model';
import { variableNamed } from '../k8s/container-env';
import { deliver, type Layers } from '../flux/substitution/layers';
import { documentRegions } from '../flux/substitution/regions';
import { documentOccurrences, type SourceOccurrence } from '../flux/substitution/scalars';
import type { Builder } from '../flux/model/world';
import { fluxContextOf } from '../pipeline/repo-analysis';
import type { RepoIndex } from '../pipeline/repo-index';
import { isYamlPath } from '../base/paths';
import { parseYamlFile } from '../yaml/documents';
import { documentAt, shownValue } from './substitution-info';

export interface LayersView {
  /** [start, end) in the file of what the hover is about. */
  span: [number, number];
  /** Markdown saying what it is; null for a `${NAME}` (the variable's hover says it). */
  about: string | null;
  /** The line, then what each layer that applies makes of it. */
  steps: Array<{ label: string; line: string }>;
  /** Whether the kubelet expands the text. */
  kubelet: boolean;
}

export function layersAt(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): LayersView | null {
  if (!isYamlPath(path)) return null;
  const parsed = documentAt(parseYamlFile(text), offset);
  if (!parsed || !parsed.source.slice(parsed.base, parsed.end).includes('$')) return null;
  const flux = fluxContextOf(index, contract, path);
  const region = flux ? documentRegions(parsed, flux).find((candidate) => candidate.substituting.length > 0) : undefined;
  const occurrences = region?.occurrences ?? documentOccurrences(parsed);
  const substituting = region?.substituting ?? [];
  const found = occurrenceAt(occurrences, offset);
  if (!found || (!found.occurrence.kubelet && substituting.length === 0)) return null;
  const { occurrence, span } = found;
  const kind = occurrence.occurrence.kind;
  // Under Flux alone, a `${…}` has the variable's hover, and a lone `$` nothing to say.
  if (!occurrence.kubelet && kind !== 'escape') return null;
  const about = kind === 'escape' ? describeRun(occurrence, substituting.length > 0) : kind === 'bare-dollar' ? describeReference(occurrence) : null;
  if (kind === 'bare-dollar' && about === null) return null;
  return { span, about, steps: steps(occurrence, substituting[0], flux !== undefined && substituting[0] !== undefined && strictIn(flux, substituting[0].world)), kubelet: occurrence.kubelet !== null };
}

/** The occurrence under the cursor, with its span: a whole run of `$`, or a whole `$(NAME)` of the kubelet's. */
function occurrenceAt(occurrences: SourceOccurrence[], offset: number): { occurrence: SourceOccurrence; span: [number, number] } | null {
  for (const occurrence of occurrences) {
    const shift = occurrence.span[0] - occurrence.valueStart;
    const reference = occurrence.occurrence.kind === 'bare-dollar' && occurrence.kubelet ? referenceEnd(occurrence) : -1;
    const end = reference !== -1 ? reference + shift : occurrence.span[1];
    if (offset >= occurrence.span[0] && offset <= end) {
      if (occurrence.occurrence.kind !== 'escape') return { occurrence, span: [occurrence.span[0], end] };
      let [from, to] = [occurrence.valueStart, occurrence.valueEnd];
      while (from > 0 && occurrence.value[from - 1] === '$') from--;
      while (to < occurrence.value.length && occurrence.value[to] === '$') to++;
      return { occurrence, span: [from + shift, to + shift] };
    }
  }
  return null;
}

/** Just after the `)` of the `$(…)` a lone `$` starts, in the scalar's value; -1 when it starts none. */
function referenceEnd({ value, valueEnd }: SourceOccurrence): number {
  if (value[valueEnd] !== '(') return -1;
  const close = value.indexOf(')', valueEnd);
  return close === -1 ? -1 : close + 1;
}

function describeRun(occurrence: SourceOccurrence, substituted: boolean): string {
  const who = [substituted ? 'Flux' : null, occurrence.kubelet ? "the kubelet (a container's command, args or env)" : null].filter(Boolean).join(', then ');
  return `\`$$\` is an escape: ${who} turn${substituted && occurrence.kubelet ? '' : 's'} each \`$$\` into \`$\`.`;
}

function describeReference(occurrence: SourceOccurrence): string | null {
  const end = referenceEnd(occurrence);
  if (end === -1 || !occurrence.kubelet) return null;
  const name = occurrence.value.slice(occurrence.valueEnd + 1, end - 1);
  const written = `**\`$(${name})\`**`;
  const variable = variableNamed(occurrence.kubelet, name);
  if (variable) {
    const value = variable.value === null ? 'its valueFrom, known at run time' : `\`${variable.value}\``;
    return `${written} is the kubelet's: it replaces it with the container's variable \`${name}\` (= ${value}) before the process starts, so no shell sees \`$(${name})\`.`;
  }
  const unless = occurrence.kubelet.open ? ' unless an envFrom source defines it' : '';
  const shell = occurrence.shell ? ', and the shell runs it as a command substitution' : '';
  return `${written} names none of the container's variables: the kubelet leaves it as written${unless}${shell}.`;
}

/** The occurrence's line in the file, after Flux (the first substituting Kustomization's variables), after the kubelet. */
function steps(occurrence: SourceOccurrence, builder: Builder | undefined, strict: boolean): LayersView['steps'] {
  const { value, valueStart } = occurrence;
  const lineStart = value.lastIndexOf('\n', valueStart - 1) + 1;
  const lineEnd = value.indexOf('\n', valueStart);
  const line = value.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const layers: Layers = {};
  if (builder) layers.flux = { lookup: shownValue(builder), strict };
  if (occurrence.kubelet) layers.kubelet = occurrence.kubelet;
  const delivered = deliver(line, layers);
  const out = [{ label: 'in the file', line }];
  if (!delivered.ok) return [...out, { label: `after Flux (Kustomization "${builder!.kustomization.name}")`, line: `fails: ${delivered.error}` }];
  if (builder) out.push({ label: `after Flux (Kustomization "${builder.kustomization.name}")`, line: delivered.afterFlux });
  if (occurrence.kubelet) out.push({ label: 'after the kubelet (what the process receives)', line: delivered.output });
  return out;
}

/** The hover's Markdown: what it is, then the line through each layer. */
export function describeLayers(view: LayersView): string {
  const width = Math.max(...view.steps.map((step) => step.label.length)) + 1;
  const block = view.steps.map((step) => `${`${step.label}:`.padEnd(width + 1)}${step.line.trim()}`).join('\n');
  return [view.about, `\`\`\`text\n${block}\n\`\`\``].filter((part) => part !== null).join('\n\n');
}
