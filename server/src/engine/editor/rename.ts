// Renaming a Flux variable: every definition and every use (variable-sites.ts)
// get the new name, and nothing else changes (only the name's characters are
// replaced: comments, quoting and formatting stay). Refused where Flux would
// reject the new name, or where it is already a variable of the same
// Kustomizations (defined by one of them, or used in a file they build).
import type { Contract } from '../contract/model';
import { validateVarName } from '../flux/substitution/envsubst/template';
import type { RepoIndex } from '../pipeline/repo-index';
import { ReadText, variableSites, VariableTarget, variableTargetAt } from './variable-sites';

export interface RenameEdit {
  file: string;
  span: [number, number];
  newText: string;
}

export type PrepareRenameResult = { span: [number, number]; name: string } | { error: string };

export const NOT_A_VARIABLE = 'Only a Flux variable can be renamed here: a ${NAME} that Flux substitutes, or the key that defines it (substitute:, a ConfigMap or Secret key, flux.variables).';

export function prepareVariableRename(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): PrepareRenameResult {
  const target = variableTargetAt(index, contract, path, text, offset);
  return target ? { span: target.span, name: target.name } : { error: NOT_A_VARIABLE };
}

export async function renameVariable(
  index: RepoIndex,
  contract: Contract,
  path: string,
  text: string,
  offset: number,
  newName: string,
  read: ReadText,
): Promise<{ edits: RenameEdit[] } | { error: string }> {
  const target = variableTargetAt(index, contract, path, text, offset);
  if (!target) return { error: NOT_A_VARIABLE };
  const invalid = validateVarName(newName);
  if (invalid) return { error: `Flux rejects this name: ${invalid}.` };
  if (newName === target.name) return { edits: [] };
  return renameTarget(index, contract, target, newName, read);
}

async function renameTarget(index: RepoIndex, contract: Contract, target: VariableTarget, newName: string, read: ReadText): Promise<{ edits: RenameEdit[] } | { error: string }> {
  const found = await variableSites(index, contract, target, read, newName);
  for (const builder of found.builders) {
    const defined = builder.vars?.defined.get(newName);
    if (defined) return { error: `${newName} is already defined for Kustomization "${builder.kustomization.name}" (${defined.from}): the two variables would become one.` };
  }
  if (found.otherUses.length > 0) {
    const use = found.otherUses[0];
    return { error: `\${${newName}} is already used in ${use.file} by the same Kustomizations: the two variables would become one.` };
  }
  if (found.unlocated.length > 0) {
    const defined = found.unlocated[0];
    return { error: `${target.name} is defined in ${defined.file} (${defined.from}) where its name is not written as such: rename it there by hand.` };
  }
  return { edits: found.sites.map((site) => ({ file: site.file, span: site.span, newText: newName })) };
}
