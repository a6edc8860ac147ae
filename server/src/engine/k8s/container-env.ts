// Which text of a document the kubelet expands, and with which variables: the
// `command`, `args` and `env[].value` of every container. Containers are found
// by shape, not by kind, so every workload, CronJob `jobTemplate`, custom
// resource that embeds a pod template and strategic-merge patch counts: the
// items of a `containers`, `initContainers` or `ephemeralContainers` list.
// Helm values that the bjw-s app-template chart renders into containers are
// containers too (`controllers.<c>.containers|initContainers.<n>`, a map by
// name), and so is the `value` of a JSON 6902 patch operation whose `path`
// lands in a container.
import { isMap, isScalar, isSeq, YAMLMap } from '../yaml/documents';
import type { KubeletLookup } from './kubelet-expansion';

/** One `env` entry: its name, and its value as written (null: `valueFrom`, known only at run time). */
export interface EnvEntry {
  name: string;
  value: string | null;
}

/** The variables a text of a container sees when the kubelet expands it. */
export interface ContainerVariables {
  /** The container's `env`, in the order the kubelet defines them. */
  entries: readonly EnvEntry[];
  /** How many of `entries` the text sees: all for command and args; for `env[i].value`, those before it. */
  visible: number;
  /** Names the repository cannot list (an `envFrom` source, or a patch that does not show the container). */
  open: boolean;
}

export const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** The keys under which app-template's controllers hold their containers (a map by name). */
const APP_TEMPLATE_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers']);

function stringOf(node: unknown): string | null {
  if (!isScalar(node)) return null;
  const { value } = node;
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? (node.source ?? String(value)) : null;
}

function pairValue(map: YAMLMap, key: string): unknown {
  for (const pair of map.items) if (isScalar(pair.key) && pair.key.value === key) return pair.value;
  return undefined;
}

/**
 * The container maps a pair holds: the map items of a container list, or (under an app-template
 * controller) the map values of its `containers` / `initContainers` map.
 */
export function containerMaps(key: string, value: unknown, inController: boolean): YAMLMap[] {
  if (!CONTAINER_LISTS.has(key)) return [];
  if (isSeq(value)) return value.items.filter(isMap);
  if (inController && APP_TEMPLATE_LISTS.has(key) && isMap(value)) return value.items.map((pair) => pair.value).filter(isMap);
  return [];
}

/** One `env` entry with the node of its value (the scalar the kubelet expands; absent for `valueFrom`). */
export interface EnvSlot {
  name: string;
  valueNode: unknown;
  value: string | null;
}

/**
 * A container's `env` in the kubelet's order: a list as written; app-template's map (`NAME: value`,
 * `NAME: {value: …}`, `NAME: {valueFrom: …}`) in the order Helm renders it, sorted by name.
 */
export function envSlots(env: unknown): EnvSlot[] {
  const slots: EnvSlot[] = [];
  if (isSeq(env)) {
    for (const item of env.items) {
      if (!isMap(item)) continue;
      const name = stringOf(pairValue(item, 'name'));
      const valueNode = pairValue(item, 'value');
      if (name !== null) slots.push({ name, valueNode, value: stringOf(valueNode) });
    }
  } else if (isMap(env)) {
    for (const pair of env.items) {
      const name = stringOf(pair.key);
      if (name === null) continue;
      const valueNode = isMap(pair.value) ? pairValue(pair.value, 'value') : pair.value;
      slots.push({ name, valueNode, value: stringOf(valueNode) });
    }
    slots.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return slots;
}

/** The variables of a container: its `env` entries; open when an `envFrom` adds names nothing here lists. */
function variablesOf(slots: EnvSlot[], open: boolean): ContainerVariables {
  const entries = slots.map(({ name, value }) => ({ name, value }));
  return { entries, visible: entries.length, open };
}

function hasEnvFrom(container: YAMLMap): boolean {
  const envFrom = pairValue(container, 'envFrom');
  return envFrom !== undefined && envFrom !== null && !(isScalar(envFrom) && envFrom.value === null);
}

/** Variables of a container a patch does not show: no name is known to be defined or not. */
export const UNKNOWN_CONTAINER: ContainerVariables = { entries: [], visible: 0, open: true };

/** The entry a text sees under `name` (the last one defined before it: a later entry of the same name wins). */
export function variableNamed(variables: ContainerVariables, name: string): EnvEntry | undefined {
  for (let i = variables.visible - 1; i >= 0; i--) if (variables.entries[i].name === name) return variables.entries[i];
  return undefined;
}

/** The kubelet's lookup for a text of the container: a value known only at run time reads `‹NAME›`. */
export function containerLookup(variables: ContainerVariables): KubeletLookup {
  return (name) => {
    const entry = variableNamed(variables, name);
    return entry === undefined ? undefined : (entry.value ?? `‹${name}›`);
  };
}

const JSON_PATCH_TARGET = /\/(containers|initContainers|ephemeralContainers)(?:\/(\d+|-)(?:\/(command|args|env)(?:\/(\d+|-)(?:\/(value))?)?)?)?$/;

/** What the `value` of a JSON 6902 patch operation is, by its `path`: a container list, a container, or a part of one. */
export type PatchTarget = 'containers' | 'container' | 'argv' | 'argv-item' | 'env' | 'env-item' | 'env-value' | null;

export function jsonPatchTarget(path: string): PatchTarget {
  const match = JSON_PATCH_TARGET.exec(path);
  if (!match) return null;
  const [, , index, field, item, value] = match;
  if (index === undefined) return 'containers';
  if (field === undefined) return 'container';
  if (field === 'env') return value !== undefined ? 'env-value' : item !== undefined ? 'env-item' : 'env';
  // `command` and `args` alike: a list of words, or one word.
  return item !== undefined ? 'argv-item' : 'argv';
}

/** What the kubelet expands, by node: each node of a container's command, args and env values, with the variables it sees. */
export type KubeletText = Map<unknown, ContainerVariables>;

/** Records the nodes of a container that the kubelet expands: its `command`, `args` and each `env` value. */
export function markContainer(container: YAMLMap, into: KubeletText, open = false): void {
  const slots = envSlots(pairValue(container, 'env'));
  const variables = variablesOf(slots, open || hasEnvFrom(container));
  for (const key of ['command', 'args']) {
    const node = pairValue(container, key);
    if (node !== undefined && node !== null) into.set(node, variables);
  }
  markEnv(slots, variables, into);
}

/** Each env value sees the entries before it (and whatever envFrom adds). */
function markEnv(slots: EnvSlot[], variables: ContainerVariables, into: KubeletText): void {
  slots.forEach((slot, i) => {
    if (slot.valueNode !== undefined && slot.valueNode !== null) into.set(slot.valueNode, { ...variables, visible: i });
  });
}

/** What a map that reads as a JSON 6902 operation (`op`, `path`, `value`) puts into a container, else null. */
export function patchOperationTarget(map: YAMLMap): PatchTarget {
  if (map.items.length > 4 || pairValue(map, 'op') === undefined) return null;
  const path = stringOf(pairValue(map, 'path'));
  return path === null ? null : jsonPatchTarget(path);
}

/**
 * Records what a JSON 6902 operation puts into a container (`target`: what its path lands on): the
 * operation does not show the rest of the container, so its variables are open.
 */
export function markPatchOperation(operation: YAMLMap, target: PatchTarget, into: KubeletText): void {
  const value = pairValue(operation, 'value');
  if (value === undefined || value === null) return;
  if (target === 'containers') for (const container of containerMaps('containers', value, false)) markContainer(container, into, true);
  else if (target === 'container' && isMap(value)) markContainer(value, into, true);
  else if (target === 'argv' || target === 'argv-item' || target === 'env-value') into.set(value, UNKNOWN_CONTAINER);
  else if (target === 'env') {
    const slots = envSlots(value);
    markEnv(slots, variablesOf(slots, true), into);
  } else if (target === 'env-item' && isMap(value)) {
    const node = pairValue(value, 'value');
    if (node !== undefined && node !== null) into.set(node, UNKNOWN_CONTAINER);
  }
}
