// Code actions: the fixes of the findings under the cursor (or named by the
// diagnostics the client sends), "Disable … for this line", and the fix-all
// that escapes every Flux substitution hazard of the file (also as
// `source.fixAll.fluxJobGuard` for codeActionsOnSave).
import { CodeAction, CodeActionKind, CodeActionParams, Diagnostic } from 'vscode-languageserver';
import type { Finding, Range } from '../../engine/base/types';
import { withDisableFixes } from '../../engine/pipeline/directives';
import { sameDiagnostic, toCodeAction, toDiagnostic, toWorkspaceEdit } from '../convert';
import { FIX_ALL_KIND, fixAllEdit } from '../fix-all';
import type { Project } from '../project';
import type { Workspace } from '../workspace';
import type { Diagnostics } from './diagnostics';
import { reasonPlaceholder } from '../reason-placeholder';
import { REVEAL_REASON, type RevealReasonArgs } from '../../shared/settings';

export const CODE_ACTION_KINDS = [CodeActionKind.QuickFix, FIX_ALL_KIND];

export function registerCodeActions(workspace: Workspace, diagnostics: Diagnostics): void {
  const { connection, documents } = workspace;
  connection.onCodeAction(async (params: CodeActionParams): Promise<CodeAction[]> => {
    const { findings, version: analysedVersion } = diagnostics.publishedFor(params.textDocument.uri);
    const project = await workspace.projectForRoot(workspace.rootFor(params.textDocument.uri));
    const wanted = params.context.only;
    const uriOf = (file: string) => workspace.uriOf(project, file);
    // The edits carry the version their ranges were computed on: when the document has changed
    // since (its new analysis still running), the editor refuses them instead of misplacing them.
    const versionOf = (uri: string) => (uri === params.textDocument.uri && analysedVersion !== undefined ? analysedVersion : (documents.get(uri)?.version ?? null));
    if (wanted?.some((kind) => FIX_ALL_KIND.startsWith(kind) || kind === CodeActionKind.SourceFixAll)) {
      const fixAll = fixAllEdit(findings, params.textDocument.uri);
      return fixAll ? [{ title: 'Escape every Flux substitution hazard in this file', kind: FIX_ALL_KIND, edit: toWorkspaceEdit(fixAll, uriOf, versionOf) }] : [];
    }
    if (wanted && !wanted.some((kind) => kind === CodeActionKind.QuickFix || kind.startsWith(CodeActionKind.QuickFix))) return [];
    const actions: CodeAction[] = [];
    const diagnosticOf = (finding: Finding) => params.context.diagnostics.find((d) => sameDiagnostic(d, finding));
    const asked = findings.filter((finding) => diagnosticOf(finding) !== undefined || intersects(finding.range, params.range));
    for (const finding of withDisableFixesAsked(workspace, project, params.textDocument.uri, analysedVersion, asked)) {
      if (!finding.fixes) continue;
      const diagnostic: Diagnostic | undefined = diagnosticOf(finding);
      for (const fix of finding.fixes) {
        const edit = toWorkspaceEdit(fix, uriOf, versionOf);
        const action = toCodeAction(fix, diagnostic ?? toDiagnostic(finding, uriOf, (rule) => workspace.docLink(rule)), edit);
        // A fix that writes the contract opens it at the reason it leaves to write.
        const reason = reasonPlaceholder(fix, finding.file);
        if (reason) action.command = { title: 'Show the reason to write', command: REVEAL_REASON, arguments: [{ uri: uriOf(reason.file), range: reason.range } satisfies RevealReasonArgs] };
        actions.push(action);
      }
    }
    const fixAll = fixAllEdit(findings, params.textDocument.uri);
    if (fixAll && fixAll.edits.length > 1) {
      actions.push({ title: fixAll.title, kind: CodeActionKind.QuickFix, edit: toWorkspaceEdit(fixAll, uriOf, versionOf) });
    }
    return actions;
  });
}

/**
 * The findings a code action request is about, each with the fix that disables it where it stands,
 * computed on the text the findings were published for (an open document at that version).
 */
function withDisableFixesAsked(workspace: Workspace, project: Project, uri: string, analysedVersion: number | null | undefined, asked: Finding[]): Finding[] {
  const document = workspace.documents.get(uri);
  const path = workspace.relativePath(project, uri);
  if (asked.length === 0 || !document || path === null || analysedVersion !== document.version) return asked;
  return withDisableFixes(asked, path, document.getText());
}

function intersects(a: Range, b: Range): boolean {
  const before = (p: Range['start'], q: Range['start']) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
