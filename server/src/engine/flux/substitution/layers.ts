// The layers a text passes before its consumer (a shell after `-c`, a `#!`
// script, psql, a dashboard) receives it: Flux's post-build substitution, when
// a live Kustomization substitutes the text; then the kubelet, when the text
// is a container's command, args or env value. Each layer turns `$$` into `$`,
// so the `$` a consumer needs doubles per layer. The rules ask this module
// what reaches the consumer, not what the file says.
import { containerLookup, type ContainerVariables } from '../../k8s/container-env';
import { kubeletExpand, kubeletExpandTraced, type TracedText } from '../../k8s/kubelet-expansion';
import { scanSubstitutions } from './envsubst/occurrences';
import { envsubst } from './envsubst/template';
import type { SourceOccurrence } from './scalars';

export type { TracedText } from '../../k8s/kubelet-expansion';

/** Flux's substitution of the text: with a Kustomization's variables, or (no lookup) only its `$$` arithmetic, `${…}` left as written. */
export interface FluxLayer {
  lookup?: (name: string) => string | undefined;
  strict?: boolean;
}

/** The layers that apply to one text: either may be absent. */
export interface Layers {
  flux?: FluxLayer;
  kubelet?: ContainerVariables;
}

/** What each layer makes of a text: the file, after Flux, after the kubelet (what the consumer receives). */
export type Delivery = { ok: true; file: string; afterFlux: string; output: string } | { ok: false; file: string; error: string };

/**
 * The layers of an occurrence's text: Flux when the region's Kustomizations substitute it (with
 * `flux`: a Kustomization's variables; without, only the `$$` arithmetic), the kubelet when the
 * text is a container's command, args or env value.
 */
export function layersOf(occurrence: SourceOccurrence, substituted: boolean, flux: FluxLayer = {}): Layers {
  const layers: Layers = {};
  if (substituted) layers.flux = flux;
  if (occurrence.kubelet) layers.kubelet = occurrence.kubelet;
  return layers;
}

/** The text as its consumer receives it, through Flux's substitution (when it applies) and then the kubelet's expansion (when it applies). */
export function deliver(text: string, layers: Layers): Delivery {
  let afterFlux = text;
  if (layers.flux?.lookup) {
    const result = envsubst(text, layers.flux.lookup, { strict: layers.flux.strict ?? false });
    if (!result.ok) return { ok: false, file: text, error: result.error };
    afterFlux = result.output;
  } else if (layers.flux) afterFlux = fluxTraced(text, layers.flux, 'as-written').text;
  const output = layers.kubelet ? kubeletExpand(afterFlux, containerLookup(layers.kubelet)) : afterFlux;
  return { ok: true, file: text, afterFlux, output };
}

/**
 * A stand-in for the value of a `${…}` in a traced delivery without variables: one character that
 * is neither `$` nor a parenthesis, so the kubelet cannot pair a `$` before the expression with it.
 */
export const VALUE_STAND_IN = '\uE000';

/** What a `${…}` becomes in a traced Flux layer: its value, a stand-in, or the expression as written. */
type ExpressionStep = 'value' | 'stand-in' | 'as-written';

/**
 * Flux's substitution with each output character's origin in `text`: `$$` writes one `$`, a lone
 * `$` stays, a `${…}` becomes its value (origin -1), a stand-in or itself; a syntax error stays as
 * written (Flux fails the build: nothing is delivered, but the rules still read the text).
 */
function fluxTraced(text: string, layer: FluxLayer, expressions: ExpressionStep): TracedText {
  const parts: string[] = [];
  const origin: number[] = [];
  let at = 0;
  const copy = (to: number) => {
    parts.push(text.slice(at, to));
    for (let i = at; i < to; i++) origin.push(i);
    at = to;
  };
  for (const occurrence of scanSubstitutions(text)) {
    if (occurrence.kind === 'syntax-error') continue;
    copy(occurrence.start);
    at = occurrence.end;
    if (occurrence.kind === 'escape' || occurrence.kind === 'bare-dollar') {
      parts.push('$');
      origin.push(occurrence.start);
    } else if (expressions === 'as-written') {
      at = occurrence.start;
      copy(occurrence.end);
    } else if (expressions === 'stand-in') {
      parts.push(VALUE_STAND_IN);
      origin.push(occurrence.start);
    } else {
      const evaluated = envsubst(text.slice(occurrence.start, occurrence.end), layer.lookup!, { strict: false });
      const value = evaluated.ok ? evaluated.output : '';
      parts.push(value);
      for (let i = 0; i < value.length; i++) origin.push(-1);
    }
  }
  copy(text.length);
  return { text: parts.join(''), origin };
}

/**
 * The delivery of `text` with the origin of every character the consumer receives, for the `$`
 * arithmetic of the rules. Without variables each `${…}` is a stand-in, so no layer pairs a `$`
 * with the expression's own.
 */
export function deliverTraced(text: string, layers: Layers): TracedText {
  const traced = layers.flux ? fluxTraced(text, layers.flux, layers.flux.lookup ? 'value' : 'stand-in') : { text, origin: Array.from({ length: text.length }, (_, i) => i) };
  return layers.kubelet ? kubeletExpandTraced(traced, containerLookup(layers.kubelet)) : traced;
}

/** How many `$` the consumer receives from `text[from, to)`. */
export function dollarsReaching(traced: TracedText, from: number, to: number): number {
  let count = 0;
  for (let i = 0; i < traced.text.length; i++) if (traced.text[i] === '$' && traced.origin[i] >= from && traced.origin[i] < to) count++;
  return count;
}

/** The run of `$` around `offset` in `text`: [start, end). */
export function dollarRun(text: string, offset: number): [number, number] {
  let start = offset;
  let end = offset;
  while (start > 0 && text[start - 1] === '$') start--;
  while (end < text.length && text[end] === '$') end++;
  return [start, end];
}

/**
 * How many `$` to write in place of the run `text[from, to)` so that the consumer receives `want`:
 * `want` doubled once per layer that turns `$$` into `$` there (8 for `$$` under Flux and the
 * kubelet, 4 under either, 2 under neither). Null when no such spelling delivers `want`.
 */
export function dollarsToWrite(text: string, from: number, to: number, want: number, layers: Layers): number | null {
  for (const written of [want, want * 2, want * 4]) {
    const candidate = text.slice(0, from) + '$'.repeat(written) + text.slice(to);
    if (dollarsReaching(deliverTraced(candidate, layers), from, from + written) === want) return written;
  }
  return null;
}
