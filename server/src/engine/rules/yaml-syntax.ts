/**
 * yaml-syntax (error): a file under `jobs.include` is not valid YAML (also a binary file or invalid
 * UTF-8 named `.yaml`), or a document's aliases expand further than go-yaml allows.
 *
 * Why it matters: kustomize decodes manifests with go-yaml; a file it cannot read fails the whole
 * Kustomization, and nothing in the file can be checked. The first error of each document is
 * reported (the rest usually follow from it); a document whose aliases cross go-yaml's limit
 * ("excessive aliasing", a billion laughs at the extreme) is reported where the limit is crossed.
 *
 * Example:
 *   spec:
 *     backoffLimit: 2
 *    ttlSecondsAfterFinished: 86400   # ← bad indentation
 *
 * Fix: none; the editor shows it only with `fluxJobGuard.showYamlSyntaxErrors` (YAML extensions
 * already do), except the aliasing, which they do not report.
 */
import type { Finding } from '../base/types';
import type { ParsedDocument } from '../yaml/documents';
import type { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const yamlSyntax: Rule = {
  meta: { id: 'yaml-syntax', defaultSeverity: 'error', summary: 'A file under jobs.include is not valid YAML.' },
};

/** A document's first YAML error (one per document: the rest usually follow from it). */
export function syntaxFinding(file: string, lines: LineIndex, parsed: ParsedDocument): Finding {
  const error = parsed.errors[0];
  return makeFinding(yamlSyntax.meta, file, lines, [error.start, error.end], `Not valid YAML: ${error.message}`, null);
}
