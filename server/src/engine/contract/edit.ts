// Quick-fix edits of the contract file: add a Job to a list (creating the
// file or the keys when they are missing) or update an entry's value. The
// reason is a placeholder a person must replace.
import { LineIndex } from '../yaml/line-index';
import type { FileEdit } from '../base/types';
import { appendListEntries, appendListEntry, yamlString } from '../yaml/edit';
import { asMap, parseYamlFile, ParsedDocument } from '../yaml/documents';
import { relativePath } from '../base/paths';
import { Contract, contractDir, TtlListName } from './model';
import { CONTRACT_ENTRY_REASON_PLACEHOLDER } from '../base/placeholders';

/**
 * The first lines of a contract file a quick fix (or the Create Contract File command) writes:
 * comments that fit in 80 columns, so that no editor has to scroll sideways to read them.
 */
export const CONTRACT_HEADER = ['# Flux Job Guard contract: which Jobs keep no finish timeout', '# (or another one), and why. Hover a key for its meaning.'].join('\n');

/**
 * A new contract file (the Create Contract File command): the header and the smallest body that says
 * something, every key a person is likely to fill in next, nothing that changes what is checked
 * (no `jobs.include`, which would replace the Flux model's choice of files).
 */
export function newContractText(requiredTtl: number): string {
  return [CONTRACT_HEADER, 'ttl:', `  required: ${requiredTtl}`, '  noFinishTimeout: []', '  otherFinishTimeout: []', ''].join('\n');
}

export function contractEntryEdit(contract: Contract, list: TtlListName, file: string, job: string | null, value?: number): FileEdit | null {
  if (contract.unreadable) return null;
  // The entry that covers the Job: its own, else a file-wide one (a second entry would be a contract-duplicate).
  const withValue = contract.otherFinishTimeout.filter((entry) => entry.file === file && entry.spans.value);
  const existing = withValue.find((entry) => entry.job === job) ?? withValue.find((entry) => entry.job === null);
  if (list === 'otherFinishTimeout' && existing && value !== undefined) {
    const lines = new LineIndex(contract.text);
    return { file: contract.path, range: lines.range(existing.spans.value![0], existing.spans.value![1]), newText: String(value) };
  }
  const itemLines = [`file: ${yamlString(relativePath(contractDir(contract.path), file))}`];
  if (job !== null) itemLines.push(`job: ${yamlString(job)}`);
  if (list === 'otherFinishTimeout') itemLines.push(`value: ${value}`);
  itemLines.push(`reason: ${CONTRACT_ENTRY_REASON_PLACEHOLDER}`);
  if (!contract.exists) {
    const body = ['ttl:', `  ${list}:`, ...itemLines.map((line, i) => `    ${i === 0 ? '- ' : '  '}${line}`)].join('\n');
    return { file: contract.path, range: zeroRange(), newText: `${CONTRACT_HEADER}\n${body}\n`, create: true };
  }
  const parsed = loadedDocument(contract);
  if (parsed === null) return null;
  const root = parsed ? asMap(parsed.doc, parsed.doc.contents) : null;
  if (parsed && parsed.doc.contents !== null && !root) return null;
  const edit = appendListEntry(contract.text, root, parsed?.base ?? 0, ['ttl', list], itemLines);
  if (!edit) return null;
  const lines = new LineIndex(contract.text);
  return { file: contract.path, range: lines.range(edit.start, edit.end), newText: edit.newText };
}

/** Appends an entry (unindented `itemLines`) to the list at `path` of the contract, creating the file or keys as needed. */
export function contractListEdit(contract: Contract, path: string[], items: string[][]): FileEdit | null {
  if (contract.unreadable) return null;
  if (!contract.exists) {
    const lines = path.map((key, i) => `${'  '.repeat(i)}${key}:`);
    const indent = '  '.repeat(path.length);
    const body = [...lines, ...items.flatMap((itemLines) => itemLines.map((line, i) => `${indent}${i === 0 ? '- ' : '  '}${line}`))].join('\n');
    return { file: contract.path, range: zeroRange(), newText: `${CONTRACT_HEADER}\n${body}\n`, create: true };
  }
  const parsed = loadedDocument(contract);
  if (parsed === null) return null;
  const root = parsed ? asMap(parsed.doc, parsed.doc.contents) : null;
  if (parsed && parsed.doc.contents !== null && !root) return null;
  const edit = appendListEntries(contract.text, root, parsed?.base ?? 0, path, items);
  if (!edit) return null;
  const lines = new LineIndex(contract.text);
  return { file: contract.path, range: lines.range(edit.start, edit.end), newText: edit.newText };
}

/**
 * The document the contract loader reads (the first that is not empty), undefined when there is
 * none; null when an edit cannot take effect: a YAML error anywhere voids every entry, so an
 * entry added anyway would change nothing (and a second document would get a second `ttl:`).
 */
export function loadedDocument(contract: Contract): ParsedDocument | undefined | null {
  const docs = parseYamlFile(contract.text);
  if (docs.some((doc) => doc.errors.length > 0)) return null;
  return docs.find((doc) => doc.doc.contents !== null);
}

function zeroRange() {
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}
