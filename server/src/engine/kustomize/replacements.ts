// kustomize's `replacements` (api/filters/replacement), the last of a
// kustomization's transformers: each copies one field of the one resource its
// source selects into fields of the resources its targets select. The model
// follows it where it writes what it tracks (name, namespace, labels,
// annotations, kind, apiVersion); it reads the source field from the
// resource's header, a generated object's data, or else its document; and it
// fails the build where kustomize does (no source or several, a source or
// target field that is missing without `create`).
import { anchoredPattern, type AnchoredPattern } from '../base/anchored-pattern';
import { KustomizeFiles, resolveIn, unreadable } from './files';
import { field, isNull, KNode, textOf } from './knode';
import { Kustomization, Selector, selectorOf } from './kustomization';
import { anyIds, groupVersion, Res, ResId, sameNamespace } from './resource';
import { compileSelector, CompiledSelector } from './selector';
import { readTrees } from './tree-reader';
import type { TransformerStage } from './transformers';
import { fail, Span } from './types';
import { boolOf, fieldNode, stringOf } from './yaml-values';

interface FieldOptions {
  delimiter: string;
  index: number;
  create: boolean;
}

interface ReplacementTarget {
  select: CompiledSelector & { namespacePattern: AnchoredPattern | null; namePattern: AnchoredPattern | null; gvk: Selector };
  reject: Array<CompiledSelector & { selector: Selector }>;
  fieldPaths: string[];
  options: FieldOptions;
}

export interface Replacement {
  file: string;
  span: Span;
  source: { id: Selector; fieldPath: string; options: FieldOptions };
  targets: ReplacementTarget[];
}

/** Reads a field of a resource's whole document: undefined when the field is missing, null when the document cannot be read. */
export type DocumentField = (res: Res, path: string[]) => KNode | undefined | null;

/** The replacements of a kustomization (inline, or from `path:` files holding one or a list); throws a BuildError where kustomize cannot read one. */
export function loadReplacements(files: KustomizeFiles, k: Kustomization): Replacement[] {
  const out: Replacement[] = [];
  for (const entry of k.replacements) {
    const path = stringOf(fieldNode(entry, 'path'));
    if (path === '') {
      out.push(replacementOf(k, entry, k.file));
      continue;
    }
    const resolved = resolveIn(k.dir, path);
    const text = resolved === null ? undefined : files.read(resolved);
    if (resolved === null || text === undefined) fail('invalid-kustomization', unreadable(path, resolved), k.file, entry.span);
    for (const tree of readTrees(text) ?? fail('invalid-kustomization', `the replacements file ${path} is no valid YAML`, k.file, entry.span)) {
      for (const item of tree.kind === 'seq' ? tree.items : [tree]) out.push(replacementOf(k, item, resolved));
    }
  }
  return out;
}

function optionsOf(node: KNode | null): FieldOptions {
  const index = Number(stringOf(fieldNode(node, 'index')) || '0');
  return { delimiter: stringOf(fieldNode(node, 'delimiter')), index: Number.isInteger(index) ? index : 0, create: boolOf(fieldNode(node, 'create')) };
}

function compiled(selector: Selector, file: string, span: Span): CompiledSelector {
  const result = compileSelector(selector);
  if (typeof result === 'string') fail('invalid-kustomization', result, file, span);
  return result;
}

function anchored(pattern: string, file: string, span: Span): AnchoredPattern | null {
  if (pattern === '') return null;
  return anchoredPattern(pattern) ?? fail('invalid-kustomization', `error parsing regexp: ${pattern}`, file, span);
}

function replacementOf(k: Kustomization, node: KNode, file: string): Replacement {
  const source = fieldNode(node, 'source');
  const targets = fieldNode(node, 'targets');
  if (isNull(source)) fail('invalid-kustomization', 'replacement source must be specified', file, node.span);
  return {
    file: k.file,
    span: node.span,
    source: { id: selectorOf(source), fieldPath: stringOf(fieldNode(source, 'fieldPath')) || 'metadata.name', options: optionsOf(fieldNode(source, 'options')) },
    targets: (targets?.kind === 'seq' ? targets.items : []).map((target) => {
      const select = fieldNode(target, 'select');
      if (isNull(select)) fail('invalid-kustomization', 'target must specify resources to select', file, target.span);
      const selector = selectorOf(select);
      const paths = fieldNode(target, 'fieldPaths');
      const rejects = fieldNode(target, 'reject');
      return {
        // the name and namespace patterns match the ids as written (not the effective namespace)
        select: {
          ...compiled({ ...selector, name: '', namespace: '' }, file, target.span),
          namePattern: anchored(selector.name, file, target.span),
          namespacePattern: anchored(selector.namespace, file, target.span),
          gvk: selector,
        },
        reject: (rejects?.kind === 'seq' ? rejects.items : []).map((reject) => ({ ...compiled(selectorOf(reject), file, reject.span), selector: selectorOf(reject) })),
        fieldPaths: paths?.kind === 'seq' ? paths.items.map((item) => stringOf(item)) : ['metadata.name'],
        options: optionsOf(fieldNode(target, 'options')),
      };
    }),
  };
}

/** A field path's segments: dots split it, except inside `[…]` (a key with dots, or a list item `[name=x]`). */
export function fieldPathSegments(path: string): string[] {
  const segments: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of path) {
    if (char === '[') depth++;
    if (char === ']') depth--;
    if (char === '.' && depth === 0) {
      segments.push(current);
      current = '';
    } else current += char;
  }
  segments.push(current);
  return segments.map((segment) => (/^\[[^=]*\]$/.test(segment) ? segment.slice(1, -1) : segment));
}

type Tracked = { kind: 'name' | 'namespace' | 'kind' | 'apiVersion' } | { kind: 'labels' | 'annotations'; key: string } | { kind: 'data'; key: string };

/** The fields of a resource the model tracks, by their path. */
function tracked(path: string[], res: Res): Tracked | null {
  if (path.length === 1 && (path[0] === 'kind' || path[0] === 'apiVersion')) return { kind: path[0] };
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return { kind: path[1] };
  if (path.length === 3 && path[0] === 'metadata' && (path[1] === 'labels' || path[1] === 'annotations')) return { kind: path[1], key: path[2] };
  if (path.length === 2 && path[0] === 'data' && res.generated) return { kind: 'data', key: path[1] };
  return null;
}

function readTracked(res: Res, at: Tracked): string | undefined {
  switch (at.kind) {
    case 'labels':
      return res.labels?.get(at.key);
    case 'annotations':
      return res.annotations.get(at.key);
    case 'data':
      return res.generated?.data.get(at.key);
    default:
      return res[at.kind] === '' ? undefined : res[at.kind];
  }
}

function writeTracked(res: Res, at: Tracked, value: string): void {
  switch (at.kind) {
    case 'labels':
      res.labels = new Map([...(res.labels ?? []), [at.key, value]]);
      break;
    case 'annotations':
      res.annotations.set(at.key, value);
      break;
    case 'data':
      res.generated?.data.set(at.key, value);
      break;
    default:
      res[at.kind] = value;
  }
}

/** IsSelectedBy over every id the resource had: exact group, version, kind, name and (effective) namespace where given. */
function sourceSelects(selector: Selector, res: Res): boolean {
  return anyIds(res).some((id: ResId) => {
    const { group, version } = groupVersion(id.apiVersion);
    if (selector.name !== '' && selector.name !== id.name) return false;
    if (selector.namespace !== '' && !sameNamespace(id, selector.namespace, { apiVersion: selector.group ? `${selector.group}/${selector.version}` : selector.version, kind: selector.kind }))
      return false;
    return (selector.group === '' || selector.group === group) && (selector.version === '' || selector.version === version) && (selector.kind === '' || selector.kind === id.kind);
  });
}

function targetSelects(target: ReplacementTarget, res: Res): boolean {
  const ids = anyIds(res);
  const { select } = target;
  if (!select.matches(res)) return false; // group, version, kind, label and annotation selectors
  const selected = ids.some((id) => (select.namePattern === null || select.namePattern.test(id.name)) && (select.namespacePattern === null || select.namespacePattern.test(id.namespace)));
  return selected && !target.reject.some((reject) => reject.matches(res));
}

/** The stage of one replacement: it selects its source from the whole set, so it never answers for a resource alone. */
export function replacementStage(replacement: Replacement, documentField: DocumentField): TransformerStage {
  let value = '';
  const failed = (message: string): never => fail('invalid-kustomization', message, replacement.file, replacement.span);
  return {
    what: `${replacement.file}: replacements`,
    writes: replacement.targets.flatMap((target) => target.fieldPaths).join('\n'),
    wholeSet: true,
    appliesTo: () => false,
    select: (all) => {
      const sources = all.filter((res) => sourceSelects(replacement.source.id, res));
      const described = `${replacement.source.id.kind || '~K'}/${replacement.source.id.name || '~N'}`;
      if (sources.length === 0) failed(`nothing selected by ${described}`);
      if (sources.length > 1) failed(`multiple matches for selector ${described}`);
      const path = fieldPathSegments(replacement.source.fieldPath);
      const at = tracked(path, sources[0]);
      const found = at ? readTracked(sources[0], at) : documentField(sources[0], path);
      if (found === undefined) failed(`fieldPath \`${replacement.source.fieldPath}\` is missing for replacement source ${described}`);
      value = typeof found === 'string' ? found : found === null ? '' : textOf(found);
      const { delimiter, index } = replacement.source.options;
      if (delimiter !== '') {
        const parts = value.split(delimiter);
        if (index < 0 || index >= parts.length) failed(`options.index ${index} is out of bounds for value ${value}`);
        value = parts[index];
      }
      return all.filter((res) => replacement.targets.some((target) => targetSelects(target, res)));
    },
    step: (res) => {
      for (const target of replacement.targets) {
        if (!targetSelects(target, res)) continue;
        for (const fieldPath of target.fieldPaths) {
          const path = fieldPathSegments(fieldPath);
          const at = tracked(path, res);
          if (!at) {
            // a field the model does not track: only whether it is there matters
            if (documentField(res, path) === undefined && !target.options.create) failed(`unable to find field "${fieldPath}" in replacement target`);
            continue;
          }
          const current = readTracked(res, at);
          if (current === undefined && !target.options.create) failed(`unable to find field "${fieldPath}" in replacement target`);
          writeTracked(res, at, delimited(current ?? '', value, target.options));
        }
      }
      return 'kept';
    },
  };
}

/** setFieldValue with a delimiter: the target's value split, one part replaced (or the value put first or last). */
function delimited(current: string, value: string, options: FieldOptions): string {
  if (options.delimiter === '') return value;
  const parts = current.split(options.delimiter);
  if (options.index < 0) parts.unshift(value);
  else if (options.index >= parts.length) parts.push(value);
  else parts[options.index] = value;
  return parts.join(options.delimiter);
}

/** A field of a document tree, by its path; `[k=v]` picks the list item whose k is v, a number an index. */
export function treeField(root: KNode | null, path: string[]): KNode | undefined {
  let current: KNode | null | undefined = root;
  for (const segment of path) {
    if (!current) return undefined;
    if (current.kind === 'seq') {
      const match = /^\[([^=]+)=(.*)\]$/.exec(segment);
      current = match ? current.items.find((item) => textOf(field(item, match[1])) === match[2]) : /^\d+$/.test(segment) ? current.items[Number(segment)] : undefined;
    } else current = field(current, segment) ?? undefined;
  }
  return current ?? undefined;
}
