// What a kustomize `kustomization.yaml` contributes to the build model: the
// resources and components it references, the files it uses as patches, the
// inline patches that can add postBuild to Flux Kustomizations it builds, and
// the ConfigMaps and Secrets its generators make (with the files they read).
import { basenameOf, dirnameOf, joinRepoPath } from '../../base/paths';
import { asMap, asSeq, Document, findPair, getNode, getString, isScalar, nodeSpan, ParsedDocument, scalarText, YAMLMap } from '../../yaml/documents';
import type { GeneratorLiteral, GeneratorInput, KustomizationPatch, KustomizeConfig, PathRef, Generator } from './model';
import { LineIndex } from '../../yaml/line-index';
import { setInMap } from '../../yaml/edit';
import { kustomizationPatch } from './postbuild';

/** The label or annotation with which a resource (or a generator's output) opts out of substitution. */
export const SUBSTITUTE_OPT_OUT = 'kustomize.toolkit.fluxcd.io/substitute';

const PATCH_KEYS = ['patches', 'patchesStrategicMerge', 'patchesJson6902'];
const REMOTE = /^[a-z]+:\/\/|^github\.com\/|^git@/;

export function kustomizeConfig(file: string, parsed: ParsedDocument, root: YAMLMap): KustomizeConfig {
  const { doc } = parsed;
  const dir = dirnameOf(file);
  const refs = (key: string): PathRef[] =>
    (asSeq(doc, findPair(root, key)?.value)?.items ?? []).filter((item) => isScalar(item) && typeof item.value === 'string' && !REMOTE.test(item.value)).map((item) => pathRef(parsed, dir, item));
  const kustomizationPatches: KustomizationPatch[] = (asSeq(doc, findPair(root, 'patches')?.value)?.items ?? [])
    .filter((item) => getString(doc, item, 'patch') !== null)
    .map((item) => kustomizationPatch(parsed, file, item))
    .filter((patch) => (patch.postBuild !== null || patch.sourceRef) && (patch.targetKind === null || patch.targetKind === 'Kustomization'));
  const configurations = refs('configurations').flatMap((ref) => (ref.path === null ? [] : [ref.path]));
  return {
    file,
    resources: refs('resources'),
    components: refs('components'),
    patches: patchFilesOf(parsed, dir),
    kustomizationPatches,
    namespace: getString(doc, root, 'namespace'),
    generators: generatorsOf(parsed, root, dir),
    reads: [
      ...(asSeq(doc, findPair(root, 'replacements')?.value)?.items ?? [])
        .map((item) => getString(doc, item, 'path'))
        .flatMap((written) => (written === null ? [] : [joinRepoPath(dir, written)]))
        .filter((path): path is string => path !== null),
      ...configurations,
    ],
    ...(configurations.length > 0 ? { configurations } : {}),
  };
}

export function pathRef(parsed: ParsedDocument, baseDir: string, node: unknown): PathRef {
  const written = scalarText(parsed.doc, node) ?? '';
  return { path: joinRepoPath(baseDir, written), written, span: nodeSpan(parsed, node) };
}

/** The files a kustomization lists as patches (inline patches have none). */
function patchFilesOf(parsed: ParsedDocument, dir: string): string[] {
  const { doc } = parsed;
  const root = asMap(doc, doc.contents);
  const files: string[] = [];
  for (const key of PATCH_KEYS) {
    for (const item of asSeq(doc, findPair(root, key)?.value)?.items ?? []) {
      const written = isScalar(item) ? scalarText(doc, item) : getString(doc, item, 'path');
      // An inline strategic-merge patch is a string holding YAML, not a path.
      const resolved = written === null || written.includes('\n') ? null : joinRepoPath(dir, written);
      if (resolved !== null) files.push(resolved);
    }
  }
  return files;
}

function generatorsOf(parsed: ParsedDocument, root: YAMLMap, dir: string): Generator[] {
  const { doc } = parsed;
  const globalOptions = getNode(doc, root, 'generatorOptions');
  const generators: Generator[] = [];
  for (const [key, kind] of [
    ['configMapGenerator', 'ConfigMap'],
    ['secretGenerator', 'Secret'],
  ] as const) {
    (asSeq(doc, findPair(root, key)?.value)?.items ?? []).forEach((item, index) => {
      const map = asMap(doc, item);
      if (!map) return;
      const inputs: GeneratorInput[] = [];
      for (const node of asSeq(doc, findPair(map, 'files')?.value)?.items ?? []) {
        const written = scalarText(doc, node);
        if (written === null) continue;
        const eq = written.indexOf('=');
        const path = eq === -1 ? written : written.slice(eq + 1);
        if (REMOTE.test(path)) continue; // kustomize fetches it: nothing in the repository to check
        inputs.push({ path: joinRepoPath(dir, path), written, kind: 'file', key: eq === -1 ? basenameOf(path) : written.slice(0, eq), span: nodeSpan(parsed, node) });
      }
      const envNodes = [...(asSeq(doc, findPair(map, 'envs')?.value)?.items ?? []), ...(findPair(map, 'env') ? [findPair(map, 'env')!.value] : [])];
      for (const node of envNodes) {
        const written = scalarText(doc, node);
        if (written !== null) inputs.push({ path: joinRepoPath(dir, written), written, kind: 'env', key: null, span: nodeSpan(parsed, node) });
      }
      const literals: GeneratorLiteral[] = [];
      for (const node of asSeq(doc, findPair(map, 'literals')?.value)?.items ?? []) {
        const text = scalarText(doc, node);
        const span = nodeSpan(parsed, node);
        const eq = text?.indexOf('=') ?? -1;
        if (text !== null && span && eq > 0) literals.push({ key: text.slice(0, eq), value: unquote(text.slice(eq + 1)), span });
      }
      const substituted = kind === 'ConfigMap' && !optsOutByOptions(doc, globalOptions, getNode(doc, map, 'options'));
      const edit = substituted ? setInMap(parsed.source, map, parsed.base, ['options', 'annotations', SUBSTITUTE_OPT_OUT], 'disabled') : null;
      const lines = edit ? new LineIndex(parsed.source) : null;
      generators.push({
        kind,
        name: getString(doc, map, 'name') ?? '',
        namespace: getString(doc, map, 'namespace'),
        inputs,
        literals,
        substituted,
        span: nodeSpan(parsed, map) ?? [0, 0],
        index,
        optOut: edit && lines ? { range: lines.range(edit.start, edit.end), newText: edit.newText } : null,
      });
    });
  }
  return generators;
}

/** kustomize merges a generator's options over the kustomization's generatorOptions, key by key. */
function optsOutByOptions(doc: Document, global: unknown, own: unknown): boolean {
  for (const field of ['labels', 'annotations']) {
    const value = getString(doc, own, field, SUBSTITUTE_OPT_OUT) ?? getString(doc, global, field, SUBSTITUTE_OPT_OUT);
    if (value === 'disabled') return true;
  }
  return false;
}

/** kustomize strips one pair of matching quotes around a literal's value. */
function unquote(value: string): string {
  return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value[value.length - 1] === value[0] ? value.slice(1, -1) : value;
}
