/**
 * file-skipped (info): a file was not analysed: larger than the size limit (5 MiB by default;
 * `fluxJobGuard.maxFileSize`, `--max-file-size`), or not text.
 *
 * Why it matters: a file that is not read cannot be checked; the audit says so rather than
 * passing over it in silence. A file named `.yaml` that is not text (binary, invalid UTF-8) is a
 * yaml-syntax finding instead: Flux cannot read it either.
 *
 * Example: `apps/dump.yaml: Not analysed: the file is 7340032 bytes, more than the size limit of
 * 5242880 bytes.`
 *
 * Fix: raise the limit, or exclude the file from `jobs.include`.
 */
import type { Finding } from '../base/types';
import type { ReadResult } from '../base/repo-fs';
import { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';
import { yamlSyntax } from './yaml-syntax';

export const fileSkipped: Rule = {
  meta: { id: 'file-skipped', defaultSeverity: 'info', summary: 'A file was not analysed: larger than the size limit, or not text.' },
};

/** A finding for a file that could not be analysed. */
export function skippedFinding(path: string, read: Extract<ReadResult, { kind: 'skipped' }>): Finding {
  const meta = read.notYaml ? yamlSyntax.meta : fileSkipped.meta;
  return makeFinding(meta, path, new LineIndex(''), [0, 0], `Not analysed: ${read.reason}.`, null);
}
