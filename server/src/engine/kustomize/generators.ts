// What configMapGenerator and secretGenerator make (api/kv and the generator
// plugins): one ConfigMap or Secret per item, its data from `envs` files,
// `literals` and `files`, its labels and annotations from the options, a
// name hash unless disableNameSuffixHash. `behavior: merge` or `replace`
// folds it into the object of the same id that a base made.
import { basenameOf } from '../base/paths';
import { KustomizeFiles, resolveIn, unreadable } from './files';
import type { GeneratorSpec, Kustomization } from './kustomization';
import type { Res } from './resource';
import { fail } from './types';

/** The object a generator item makes, before it is absorbed into the build; throws a BuildError where kustomize fails. */
export function generate(files: KustomizeFiles, k: Kustomization, spec: GeneratorSpec): Res {
  const what = spec.kind === 'ConfigMap' ? 'configmap' : 'secret';
  const failed: (message: string, span?: [number, number], missing?: string | null) => never = (message, span = spec.span, missing) => fail('generator', message, k.file, span, missing);
  if (spec.name === '') failed(`a ${what} must have a name`);
  const data = new Map<string, string>();
  const binaryData = new Map<string, string>();
  const inputs: string[] = [];
  let bytesUnread = false;
  const put = (key: string, value: string, binary: boolean, span: [number, number]) => {
    if (data.has(key) || binaryData.has(key)) failed(`${what} ${spec.name} illegally repeats the key \`${key}\``, span);
    if (spec.kind === 'Secret') data.set(key, base64(value));
    else if (binary) binaryData.set(key, value);
    else data.set(key, value);
  };
  for (const env of spec.envs) {
    const path = resolveIn(k.dir, env.value);
    const text = path === null ? undefined : files.read(path);
    if (path === null || text === undefined) failed(`loading KV pairs: env source files: [${env.value}]: ${unreadable(env.value, path)}`, env.span, path);
    inputs.push(path);
    for (const [key, value] of envPairs(text)) put(key, value, false, env.span);
  }
  for (const literal of spec.literals) {
    const eq = literal.value.indexOf('=');
    if (eq <= 0) failed(`loading KV pairs: literal sources [${literal.value}]: invalid literal source ${literal.value}, expected key=value`, literal.span);
    put(literal.value.slice(0, eq), unquote(literal.value.slice(eq + 1)), false, literal.span);
  }
  for (const source of spec.files) {
    const [key, written] = fileSource(source.value, (message) => failed(`loading KV pairs: file sources: [${source.value}]: ${message}`, source.span));
    const path = resolveIn(k.dir, written);
    if (path === null || !files.isFile(path)) failed(`loading KV pairs: file sources: [${source.value}]: ${unreadable(written, path)}`, source.span, path);
    inputs.push(path);
    const text = files.read(path);
    // A file that is not UTF-8 text goes to binaryData; the model does not read its bytes, so the hash is unknown.
    if (text === undefined) bytesUnread = true;
    put(key, text ?? '', text === undefined, source.span);
  }
  const annotations = new Map(spec.options.annotations);
  return {
    apiVersion: 'v1',
    kind: spec.kind,
    name: spec.name,
    namespace: spec.namespace,
    labels: spec.options.labels.size > 0 ? new Map(spec.options.labels) : null,
    annotations,
    previous: [],
    origin: { kind: 'generator', file: k.file, span: spec.span, inputs },
    generated: {
      behavior: spec.behavior,
      needsHash: !spec.options.disableNameSuffixHash,
      data,
      binaryData,
      type: spec.kind === 'Secret' ? spec.type || 'Opaque' : '',
      hashKnown: !bytesUnread,
    },
  };
}

/** kv.ParseFileSource: `key=path` or a path whose base name is the key. */
function fileSource(source: string, failed: (message: string) => never): [string, string] {
  const separators = source.split('=').length - 1;
  if (separators === 0) return [basenameOf(source.replace(/\\/g, '/')), source];
  if (separators > 1) failed("key names or file paths cannot contain '='");
  const [key, path] = source.split('=');
  if (key === '') failed(`missing key name for file path "${path}" in source "${source}"`);
  if (path === '') failed(`missing file path for key name "${key}" in source "${source}"`);
  return [key, path];
}

/** kv.keyValuesFromLines: `KEY=value` lines; blank lines and `#` comments skipped; leading white space trimmed (kustomize v5.5 checks no key). */
function envPairs(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '').replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const key = eq === -1 ? line : line.slice(0, eq);
    // No `=`: kustomize takes the value from its own environment, empty in a controller.
    pairs.push([key, eq === -1 ? '' : line.slice(eq + 1)]);
  }
  return pairs;
}

/** kv.removeQuotes: one pair of matching quotes around a literal's value. */
function unquote(value: string): string {
  return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value[value.length - 1] === value[0] ? value.slice(1, -1) : value;
}

/** kyaml's encodeBase64: a Secret's value in lines of 70 characters, each ended by a line break once there are two or more. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const encoded = btoa(binary);
  const lineLength = 70;
  if (Math.floor(encoded.length / lineLength) + 1 === 1) return encoded;
  let out = '';
  for (let i = 0; i < encoded.length; i += lineLength) out += encoded.slice(i, i + lineLength) + '\n';
  return out;
}

/**
 * resWrangler.appendReplaceOrMerge for a generated object that matches `old`:
 * labels and annotations merged (the new ones win), name and namespace kept
 * from the old one; `merge` also merges the data. The object keeps a hash
 * suffix only if both wanted one.
 */
export function mergeGenerated(res: Res, old: Res): Res {
  const merged: Res = {
    ...res,
    name: old.name,
    namespace: old.namespace,
    labels: res.labels || old.labels ? new Map([...(old.labels ?? []), ...(res.labels ?? [])]) : null,
    annotations: new Map([...old.annotations, ...res.annotations]),
    previous: [...old.previous],
  };
  if (merged.generated) {
    const generated = { ...merged.generated };
    if (generated.behavior === 'merge') {
      generated.data = new Map([...(old.generated?.data ?? []), ...generated.data]);
      generated.binaryData = new Map([...(old.generated?.binaryData ?? []), ...generated.binaryData]);
      generated.hashKnown = generated.hashKnown && (old.generated?.hashKnown ?? false);
    }
    generated.needsHash = generated.needsHash && (old.generated?.needsHash ?? false);
    merged.generated = generated;
  }
  return merged;
}
