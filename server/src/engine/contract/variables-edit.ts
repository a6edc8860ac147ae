// Quick-fix edits of the contract's `flux.variables` for one outside source:
// write its `from` item (with every name the repository uses from it, or
// without names: also how an object a HelmRelease reads from outside is
// declared), or add the missing names to the item that is there. One edit
// each, comments kept; the contract file is created when it is absent.
import { FLUX_VARIABLE_REASON_PLACEHOLDER } from '../base/placeholders';
import type { SourceToDeclare } from '../flux/model/build';
import { declares } from '../flux/model/variables';
import { LineIndex, lineEnding } from '../yaml/line-index';
import type { FileEdit, Fix } from '../base/types';
import { asMap, asSeq, findPair, isScalar, Node, YAMLMap, YAMLSeq } from '../yaml/documents';
import { indentAt, yamlString } from '../yaml/edit';
import { contractListEdit, loadedDocument } from './edit';
import type { Contract } from './model';
import { sourceLabel } from '../flux/model/outside-findings';

/** Names on one line while they fit, else one per line. */
const FLOW_LIMIT = 100;

/** The fixes of an outside source's finding: its names declared (preferred), or the source declared without names. */
export function declareSourceFixes(contract: Contract, source: SourceToDeclare): Fix[] {
  const fixes: Fix[] = [];
  const existing = existingItem(contract, source);
  const missing = existing?.names ? source.names.filter((name) => !existing.names!.some((n) => n.name === name)) : source.names;
  const withNames = declareEdit(contract, source, missing);
  const label = sourceLabel(source);
  if (withNames) {
    const title = existing
      ? `Add ${listed(missing)} to the names of ${label} in flux.variables`
      : `Declare ${label} in the contract's flux.variables with the ${source.names.length} name${source.names.length === 1 ? '' : 's'} used from it`;
    fixes.push({ title, edits: [withNames], preferred: true });
  }
  const without = existing ? null : declareEdit(contract, source, null);
  if (without) fixes.push({ title: `Declare ${label} in flux.variables without names (its names stay unknown, their uses unchecked)`, edits: [without] });
  return fixes;
}

/**
 * The fix of an object a HelmRelease reads that the repository cannot show: its `from` item
 * without names (it exists outside; what it holds is not the model's business). None where the
 * contract already has an item for it or cannot be edited.
 */
export function declareObjectFix(contract: Contract, object: SourceToDeclare): Fix | null {
  if (existingItem(contract, object)) return null;
  const edit = declareEdit(contract, object, null);
  return edit ? { title: `Declare ${sourceLabel(object)} in the contract's flux.variables as created outside the repository`, edits: [edit] } : null;
}

/** The fix of an undefined name that may come from an outside source: add it (and what else is missing) to the source's names. */
export function addNameFix(contract: Contract, source: SourceToDeclare, name: string): Fix | null {
  const existing = existingItem(contract, source);
  const names = [...new Set([...source.names, name])].sort();
  const missing = existing?.names ? names.filter((n) => !existing.names!.some((d) => d.name === n)) : names;
  const edit = declareEdit(contract, { ...source, names }, missing);
  if (!edit) return null;
  const others = missing.filter((n) => n !== name).length;
  const more = others > 0 ? ` (and ${others} more name${others === 1 ? '' : 's'} used from it)` : '';
  return { title: `Add ${name} to the names of ${sourceLabel(source)} in flux.variables${more}`, edits: [edit] };
}

function listed(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

function existingItem(contract: Contract, source: SourceToDeclare) {
  return contract.flux.declaredSources.find((d) => declares(d, { kind: source.kind, name: source.name, optional: false, file: '', span: [0, 0] }, source.namespace));
}

/**
 * The one edit that declares `names` for the source: a new item (names null: without names), or the
 * names added to the item that is there. Null where nothing is to add or the shape is too unusual.
 */
function declareEdit(contract: Contract, source: SourceToDeclare, names: string[] | null): FileEdit | null {
  if (contract.unreadable) return null;
  const existing = existingItem(contract, source);
  if (!existing) return contractListEdit(contract, ['flux', 'variables'], [itemLines(source, names)]);
  if (!names || names.length === 0) return null;
  const item = itemNode(contract, existing.item);
  if (!item) return null;
  const lines = new LineIndex(contract.text);
  const edit = item.names ? appendToSequence(contract.text, lines, item.names, item.base, names) : addNamesKey(contract.text, lines, item.map, item.base, names);
  return edit ? { file: contract.path, range: lines.range(edit.start, edit.end), newText: edit.newText } : null;
}

function itemLines(source: SourceToDeclare, names: string[] | null): string[] {
  const from = `from: { kind: ${source.kind}, name: ${yamlString(source.name)}${source.namespace ? `, namespace: ${yamlString(source.namespace)}` : ''} }`;
  return [from, ...(names ? namesLines(names) : []), `reason: ${FLUX_VARIABLE_REASON_PLACEHOLDER}`];
}

function namesLines(names: string[]): string[] {
  const flow = `names: [${names.map(yamlString).join(', ')}]`;
  return flow.length <= FLOW_LIMIT ? [flow] : ['names:', ...names.map((name) => `  - ${yamlString(name)}`)];
}

/** The contract's item at `span` (a block mapping), with its `names` list when it has one. */
function itemNode(contract: Contract, span: [number, number]): { map: YAMLMap; names: YAMLSeq | null; base: number } | null {
  const parsed = loadedDocument(contract);
  if (!parsed) return null;
  const { doc, base } = parsed;
  const variables = asSeq(doc, findPair(asMap(doc, findPair(asMap(doc, doc.contents), 'flux')?.value), 'variables')?.value);
  for (const node of variables?.items ?? []) {
    const map = asMap(doc, node);
    if (!map?.range || base + map.range[0] !== span[0]) continue;
    const value = findPair(map, 'names')?.value;
    return map.flow ? null : { map, names: asSeq(doc, value), base };
  }
  return null;
}

/** `names: [A]` → `names: [A, B]`; a block list gets `- B` after its last item. */
function appendToSequence(text: string, lines: LineIndex, seq: YAMLSeq, base: number, names: string[]): { start: number; end: number; newText: string } | null {
  if (!seq.range) return null;
  if (seq.flow) {
    let close = base + seq.range[1] - 1;
    while (close > 0 && text[close] !== ']') close--;
    const last = seq.items[seq.items.length - 1] as Node | undefined;
    const at = last?.range ? base + last.range[1] : close;
    return { start: at, end: at, newText: (last ? ', ' : '') + names.map(yamlString).join(', ') };
  }
  const last = seq.items[seq.items.length - 1] as Node | undefined;
  if (!last?.range) return null;
  const eol = lineEnding(text, base + seq.range[0]);
  const dash = indentAt(lines, base + seq.range[0]);
  const at = lines.lineEnd(lines.position(base + last.range[1] - 1).line);
  return { start: at, end: at, newText: names.map((name) => `${eol}${dash}- ${yamlString(name)}`).join('') };
}

/** An item without `names` (declared without them) gets the key, after its `from`. */
function addNamesKey(text: string, lines: LineIndex, map: YAMLMap, base: number, names: string[]): { start: number; end: number; newText: string } | null {
  const from = findPair(map, 'from');
  const key = from?.key as Node | undefined;
  const value = from?.value as Node | undefined;
  if (!key?.range || !value?.range || isScalar(value)) return null;
  const indent = indentAt(lines, base + key.range[0]);
  const eol = lineEnding(text, base + key.range[0]);
  const at = lines.lineEnd(lines.position(base + value.range[1] - 1).line);
  return {
    start: at,
    end: at,
    newText: namesLines(names)
      .map((line) => `${eol}${indent}${line}`)
      .join(''),
  };
}
