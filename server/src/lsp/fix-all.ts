// "Escape all in this file": every preferred one-file fix of the Flux
// substitution hazards, merged into one edit (usable from
// `editor.codeActionsOnSave` as `source.fixAll.fluxJobGuard`).
import type { Finding, Fix } from '../engine/base/types';
import { fluxSubstitutionDefault } from '../engine/rules/flux-substitution-default';
import { fluxSubstitutionPid } from '../engine/rules/flux-substitution-pid';
import { fluxSubstitutionSyntax } from '../engine/rules/flux-substitution-syntax';
import { fluxSubstitutionUndefined } from '../engine/rules/flux-substitution-undefined';

export const FIX_ALL_KIND = 'source.fixAll.fluxJobGuard';

const ESCAPABLE = new Set([fluxSubstitutionUndefined, fluxSubstitutionSyntax, fluxSubstitutionDefault, fluxSubstitutionPid].map((rule) => rule.meta.id));

export function fixAllEdit(findings: Finding[], _uri: string): Fix | null {
  const edits: Fix['edits'] = [];
  const seen = new Set<string>();
  for (const finding of findings) {
    if (!ESCAPABLE.has(finding.rule)) continue;
    const fix = finding.fixes?.find((candidate) => candidate.preferred);
    if (!fix || fix.edits.length !== 1 || fix.edits[0].file !== finding.file) continue;
    const edit = fix.edits[0];
    const key = `${edit.range.start.line}:${edit.range.start.character}`;
    if (seen.has(key)) continue; // two findings on one occurrence: escape it once
    seen.add(key);
    edits.push(edit);
  }
  return edits.length > 0 ? { title: `Escape all ${edits.length} Flux substitution hazards in this file`, edits } : null;
}
