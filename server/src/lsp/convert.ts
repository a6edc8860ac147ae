// Engine findings and fixes as LSP diagnostics and workspace edits.
import { CodeAction, CodeActionKind, CreateFile, Diagnostic, DiagnosticSeverity, OptionalVersionedTextDocumentIdentifier, TextDocumentEdit, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import type { Finding, Fix } from '../engine/base/types';

export const SOURCE = 'flux-job-guard';

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, info: DiagnosticSeverity.Information } as const;

/**
 * A finding as a diagnostic; `uriOf` maps the repository paths of its related locations to URIs,
 * `docLink` the rule to where the client shows its documentation (no link where it has none).
 */
export function toDiagnostic(finding: Finding, uriOf?: (file: string) => string, docLink?: (rule: string) => string | null): Diagnostic {
  const diagnostic: Diagnostic = {
    range: finding.range,
    severity: SEVERITY[finding.severity],
    code: finding.rule,
    source: SOURCE,
    message: finding.message,
  };
  const href = docLink?.(finding.rule);
  if (href) diagnostic.codeDescription = { href };
  if (uriOf && finding.related && finding.related.length > 0) {
    diagnostic.relatedInformation = finding.related.map((related) => ({ location: { uri: uriOf(related.file), range: related.range }, message: related.message }));
  }
  return diagnostic;
}

export function sameDiagnostic(diagnostic: Diagnostic, finding: Finding): boolean {
  const a = diagnostic.range;
  const b = finding.range;
  return diagnostic.code === finding.rule && a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/**
 * One fix as a WorkspaceEdit. `uriOf` maps repository paths to URIs, and
 * `versionOf` gives the open document's version (null for files on disk).
 */
export function toWorkspaceEdit(fix: Fix, uriOf: (file: string) => string, versionOf: (uri: string) => number | null): WorkspaceEdit {
  const changes: Array<TextDocumentEdit | CreateFile> = [];
  const byFile = new Map<string, TextEdit[]>();
  for (const edit of fix.edits) {
    const uri = uriOf(edit.file);
    if (edit.create) {
      changes.push(CreateFile.create(uri, { ignoreIfExists: true }));
    }
    const list = byFile.get(uri) ?? [];
    list.push(TextEdit.replace(edit.range, edit.newText));
    byFile.set(uri, list);
  }
  for (const [uri, edits] of byFile) {
    changes.push(TextDocumentEdit.create(OptionalVersionedTextDocumentIdentifier.create(uri, versionOf(uri)), edits));
  }
  return { documentChanges: changes };
}

export function toCodeAction(fix: Fix, diagnostic: Diagnostic | undefined, edit: WorkspaceEdit): CodeAction {
  const action = CodeAction.create(fix.title, edit, CodeActionKind.QuickFix);
  if (diagnostic) action.diagnostics = [diagnostic];
  if (fix.preferred) action.isPreferred = true;
  return action;
}
