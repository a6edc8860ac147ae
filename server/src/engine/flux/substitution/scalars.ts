// Where Flux substitutes: the content of every scalar of a resource, keys
// included, never its comments (Flux substitutes the re-serialized resource,
// and re-serializing drops comments). Each scalar's value is scanned as Flux
// scans it and positions are mapped back onto the source text, whatever the
// scalar style (plain, quoted, literal or folded block).
import { isAlias, isMap, isPair, isScalar, isSeq, ParsedDocument } from '../../yaml/documents';
import { scanSubstitutions } from './envsubst/occurrences';
import { ExpressionOccurrence, Occurrence } from './envsubst/node';
import { CONTAINER_LISTS, containerMaps, ContainerVariables, KubeletText, markContainer, markPatchOperation, patchOperationTarget } from '../../k8s/container-env';

export interface SourceOccurrence {
  occurrence: Occurrence;
  /** [start, end) in the file. */
  span: [number, number];
  /** The scalar's value, and the occurrence's offsets inside it (for hover renderings). */
  value: string;
  valueStart: number;
  valueEnd: number;
  /** Whether a shell runs this text (container command/args, a `#!` script). */
  shell: boolean;
  /** The container's variables when the kubelet expands this text (a container's command, args or env value), else null. */
  kubelet: ContainerVariables | null;
  /** The scalar the occurrence is in (one object for all of its occurrences); null in text that is no YAML scalar (a generator's input). */
  field: ScalarField | null;
}

/** Where a scalar sits in its resource: what the type of its field depends on. */
export interface ScalarField {
  resource: { apiVersion: string | null; kind: string | null };
  /** Map keys and list indices from the document root. */
  path: (string | number)[];
  /** The scalar is a map key. */
  key: boolean;
  /** The scalar's value and its source range in the file. */
  value: string;
  start: number;
  end: number;
}

/** A node's place: its parent's place and its key or index (a path is built only for the scalars that need one). */
export interface PathLink {
  parent: PathLink | null;
  segment: string | number;
}

export function pathOf(link: PathLink | null): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = link; at; at = at.parent) path.push(at.segment);
  return path.reverse();
}

/** Visits one string scalar: its value, its [start, end) in the file, whether a shell runs it, its node, the kubelet's variables when it expands it, and its place (`key`: a map key). */
export type ScalarVisitor = (value: string, start: number, end: number, shell: boolean, node: unknown, kubelet: ContainerVariables | null, at: PathLink | null, key: boolean) => void;

/** `-c`, `-ec`, `-xc`, `-euc`: the shell flag after which the next argument is a script. */
const SHELL_FLAG = /^-[a-z]*c[a-z]*$/;

const SCRIPT_FILE = /\.(sh|bash|zsh|ksh)$/;

function isShellFlag(node: unknown): boolean {
  return isScalar(node) && typeof node.value === 'string' && SHELL_FLAG.test(node.value);
}

/** Where a map sits, for app-template's values: `controllers` holds controllers, whose `containers` map holds containers by name. */
const ANYWHERE = 0;
const CONTROLLERS = 1;
const CONTROLLER = 2;

interface Frame {
  node: unknown;
  shell: boolean;
  /** Set below a node the kubelet expands. */
  kubelet: ContainerVariables | null;
  place: number;
  at: PathLink | null;
  key: boolean;
}

/**
 * Calls `visit` for every string scalar (keys included) of a document, in
 * document order; `shell` tells whether a shell runs the text: a script after
 * `-c` in a container's `command` or `args` (or all of `args` when the
 * command ends in `sh -c`), or a script that starts with `#!`. Exec-form
 * arguments (`--dbnum=${N:=1}`) are not shell: nothing but Flux expands them.
 * `kubelet` is set on the text of a container's command, args and env values
 * (container-env.ts says which), found in the same walk.
 */
export function forEachStringScalar(parsed: ParsedDocument, visit: ScalarVisitor): void {
  const stack: Frame[] = [{ node: parsed.doc.contents, shell: false, kubelet: null, place: ANYWHERE, at: null, key: false }];
  let expanded: KubeletText | null = null;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node, shell } = frame;
    const kubelet = frame.kubelet ?? expanded?.get(node) ?? null;
    if (isMap(node)) {
      const command = node.items.find((pair) => isScalar(pair.key) && pair.key.value === 'command')?.value;
      const commandEndsInFlag = isSeq(command) && command.items.length > 0 && isShellFlag(command.items[command.items.length - 1]);
      const childPlace = frame.place === CONTROLLERS ? CONTROLLER : ANYWHERE;
      // A JSON 6902 operation whose value lands in a container (its `value` list is a command or args when the path says so).
      const patchTarget = patchOperationTarget(node);
      if (patchTarget !== null) markPatchOperation(node, patchTarget, (expanded ??= new Map<unknown, ContainerVariables>()));
      for (let i = node.items.length - 1; i >= 0; i--) {
        const pair = node.items[i];
        const key = isScalar(pair.key) ? pair.key.value : null;
        if (typeof key === 'string' && CONTAINER_LISTS.has(key)) {
          for (const container of containerMaps(key, pair.value, frame.place === CONTROLLER)) markContainer(container, (expanded ??= new Map<unknown, ContainerVariables>()));
        }
        const at: PathLink = { parent: frame.at, segment: typeof key === 'string' || typeof key === 'number' ? key : '?' };
        const keyFrame: Frame = { node: pair.key, shell, kubelet: null, place: ANYWHERE, at, key: true };
        if ((key === 'command' || key === 'args' || (key === 'value' && patchTarget === 'argv')) && isSeq(pair.value)) {
          const items = pair.value.items;
          const flag = items.findIndex(isShellFlag);
          const listKubelet = kubelet ?? expanded?.get(pair.value) ?? null;
          for (let j = items.length - 1; j >= 0; j--) {
            const script = shell || (flag !== -1 && j > flag) || (key === 'args' && commandEndsInFlag);
            stack.push({ node: items[j], shell: script, kubelet: listKubelet, place: ANYWHERE, at: { parent: at, segment: j }, key: false });
          }
          stack.push(keyFrame);
        } else {
          // `run.sh: |` in a ConfigMap is a script whatever its first line.
          const script = shell || (typeof key === 'string' && SCRIPT_FILE.test(key));
          const place = key === 'controllers' && isMap(pair.value) ? CONTROLLERS : childPlace;
          stack.push({ node: pair.value, shell: script, kubelet, place, at, key: false }, keyFrame);
        }
      }
    } else if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i], shell, kubelet, place: ANYWHERE, at: { parent: frame.at, segment: i }, key: false });
    } else if (isPair(node)) {
      stack.push({ node: node.value, shell, kubelet, place: ANYWHERE, at: frame.at, key: false }, { node: node.key, shell, kubelet: null, place: ANYWHERE, at: frame.at, key: true });
    } else if (isScalar(node) && !isAlias(node) && typeof node.value === 'string' && node.range) {
      visit(node.value, parsed.base + node.range[0], parsed.base + node.range[1], shell || node.value.startsWith('#!'), node, kubelet, frame.at, frame.key);
    }
  }
}

/** Every substitution occurrence in a document's scalars (or only in `only`), in source order. */
export function documentOccurrences(parsed: ParsedDocument, only?: ReadonlySet<unknown>): SourceOccurrence[] {
  const found: SourceOccurrence[] = [];
  let resource: ScalarField['resource'] | null = null;
  forEachStringScalar(parsed, (value, start, end, shell, node, kubelet, at, key) => {
    if (!value.includes('$') || (only && !only.has(node))) return;
    const map = offsetMap(parsed.source, start, end, value);
    resource ??= resourceOf(parsed);
    const field: ScalarField = { resource, path: pathOf(at), key, value, start, end };
    for (const occurrence of scanSubstitutions(value)) {
      found.push({ occurrence, span: [map(occurrence.start), map(occurrence.end - 1) + 1], value, valueStart: occurrence.start, valueEnd: occurrence.end, shell, kubelet, field });
    }
  });
  return found.sort((a, b) => a.span[0] - b.span[0]);
}

function resourceOf(parsed: ParsedDocument): ScalarField['resource'] {
  const root = parsed.doc.contents;
  const read = (name: string): string | null => {
    if (!isMap(root)) return null;
    const pair = root.items.find((p) => isScalar(p.key) && p.key.value === name);
    return pair && isScalar(pair.value) && typeof pair.value.value === 'string' ? pair.value.value : null;
  };
  return { apiVersion: read('apiVersion'), kind: read('kind') };
}

/** The occurrences of a text Flux substitutes as it is written (a generator input's bytes), at `offset` in `file`. */
export function rawOccurrences(value: string, offset: number, shell: boolean): SourceOccurrence[] {
  if (!value.includes('$')) return [];
  return scanSubstitutions(value).map((occurrence) => ({
    occurrence,
    span: [offset + occurrence.start, offset + occurrence.end] as [number, number],
    value,
    valueStart: occurrence.start,
    valueEnd: occurrence.end,
    shell,
    kubelet: null, // a generator's bytes become ConfigMap data: the kubelet never expands them
    field: null,
  }));
}

/** The names of the `${NAME}`s (nested ones too) that have no default: those an undefined name fails. */
export function namesWithoutDefault(occurrences: Iterable<Occurrence>): string[] {
  const names = new Set<string>();
  const stack: ExpressionOccurrence[] = [];
  for (const occurrence of occurrences) if (occurrence.kind === 'expression') stack.push(occurrence);
  while (stack.length > 0) {
    const expression = stack.pop()!;
    stack.push(...expression.nested);
    if (!expression.hasDefault && expression.name !== null) names.add(expression.name);
  }
  return [...names].sort();
}

/** The names without a default that a document's substituted scalars use (for the model's report of unknown names). */
export function documentNamesUsed(parsed: ParsedDocument): string[] {
  return namesWithoutDefault(documentOccurrences(parsed).map((found) => found.occurrence));
}

/**
 * Maps offsets in a scalar's value to offsets in its source. The value is the
 * source minus quoting, escapes, indentation and line folding; `$`, braces,
 * names and operators are always written verbatim, so aligning the two
 * character by character finds every position a finding needs.
 */
export function offsetMap(text: string, start: number, end: number, value: string): (valueOffset: number) => number {
  const positions = new Int32Array(value.length + 1);
  let s = start;
  // Skip the opening quote or block header (`|`, `>-`, ... up to the line end).
  const first = text[s];
  if (first === '"' || first === "'") s++;
  else if (first === '|' || first === '>') {
    const lineEnd = text.indexOf('\n', s);
    s = lineEnd === -1 ? end : lineEnd + 1;
  }
  for (let v = 0; v < value.length; v++) {
    const char = value[v];
    let probe = s;
    // Look ahead for the character; anything skipped is quoting, escapes, indentation or a fold.
    while (probe < end && text[probe] !== char && probe - s < 64) probe++;
    if (probe < end && text[probe] === char) {
      positions[v] = probe;
      s = probe + 1;
      if (char === "'" && first === "'" && text[s] === "'") s++; // '' is one quote
    } else {
      positions[v] = Math.min(s, end); // a produced character (an escape or a fold): stay in place
    }
  }
  positions[value.length] = Math.min(s, end);
  return (offset) => positions[Math.max(0, Math.min(offset, value.length))];
}
