/**
 * yaml-syntax (error): a file Flux reads is not valid YAML as go-yaml reads it (also a binary file
 * or invalid UTF-8 named `.yaml`), or a document's aliases expand further than go-yaml allows.
 *
 * Where it is reported (pipeline/scope.ts syntaxScope): as an error on a file a live Flux
 * Kustomization builds (a resource, a kustomize patch, a kustomization file), on a file the
 * contract's written `jobs.include` names, and on every audited file of a repository without any
 * Kustomization; as a warning naming the generator and the ConfigMap it makes on a file only a
 * configMapGenerator/secretGenerator reads (Flux copies its bytes as they are; the program that
 * reads them there parses them); not at all on a file nothing applies (a Go, Helm or Jinja
 * template, an archived folder, documentation): no Flux path reads it.
 *
 * Why it matters: kustomize decodes manifests with go-yaml; a file it cannot read fails the whole
 * Kustomization, and nothing in the file can be checked. Where that failure is known (the
 * kustomize model builds the folder), the error names the Kustomizations that apply nothing, and
 * no kustomize-reference finding repeats the same fact. The YAML is read as go-yaml reads it
 * (yaml/go-yaml.ts): `*app:` (an alias key) is valid, `\/` in a double-quoted scalar is not. The
 * first error of each document is reported (the rest usually follow from it); a document whose
 * aliases cross go-yaml's limit ("excessive aliasing", a billion laughs at the extreme) is
 * reported where the limit is crossed.
 *
 * Example:
 *   spec:
 *     backoffLimit: 2
 *    ttlSecondsAfterFinished: 86400   # ← bad indentation
 *
 * Fix: none; the editor shows it only with `fluxJobGuard.showYamlSyntaxErrors` (YAML extensions
 * already do), except what only go-yaml refuses (aliasing, escapes, anchors), which they do not report.
 */
import type { Finding } from '../base/types';
import { isGoYamlOnly, type ParsedDocument } from '../yaml/documents';
import type { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const yamlSyntax: Rule = {
  meta: { id: 'yaml-syntax', defaultSeverity: 'error', summary: 'A file Flux reads is not valid YAML.' },
};

/** A document's first YAML error (one per document: the rest usually follow from it). */
export function syntaxFinding(file: string, lines: LineIndex, parsed: ParsedDocument): Finding {
  const error = parsed.errors[0];
  return makeFinding(yamlSyntax.meta, file, lines, [error.start, error.end], `Not valid YAML: ${error.message}`, null);
}

/**
 * Where a file's YAML errors are reported, and how (made by pipeline/scope.ts syntaxScope): an
 * error, a warning naming the generator that hands the file on, or nothing (null).
 */
export type SyntaxScope = { severity: 'error'; fails?: readonly string[] } | { severity: 'warning'; consumer: string } | null;

/** A file's findings with its yaml-syntax findings where `scope` puts them; the other findings stay as they are. */
export function scopedSyntaxFindings(findings: readonly Finding[], scope: SyntaxScope): Finding[] {
  const out: Finding[] = [];
  for (const finding of findings) {
    if (finding.rule !== yamlSyntax.meta.id) out.push(finding);
    else if (scope?.severity === 'error') out.push({ ...finding, message: errorMessage(finding.message, scope.fails ?? []) });
    else if (scope?.severity === 'warning') {
      const message = `${finding.message}. Flux does not parse this file, but ${scope.consumer} copies it as it is, and whatever reads it there parses it`;
      out.push({ ...finding, severity: 'warning', message });
    }
  }
  return out;
}

/** What a YAML error costs where Flux reads the file: the build fails, and the Kustomizations it fails apply nothing. */
function errorMessage(message: string, fails: readonly string[]): string {
  const text = isGoYamlOnly(message) ? `${message}, so Flux fails to build this file` : message;
  if (fails.length === 0) return text;
  const who = fails.map((name) => `"${name}"`).join(', ');
  return `${text}. Kustomization ${who} ${fails.length === 1 ? 'fails and applies' : 'fail and apply'} nothing`;
}
