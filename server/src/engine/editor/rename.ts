// Renaming a Flux variable: every definition and every use (variable-sites.ts)
// get the new name, and nothing else changes (only the name's characters are
// replaced: comments, quoting and formatting stay). Refused where Flux would
// reject the new name, or where it is already a variable of the same
// Kustomizations (defined by one of them, or used in a file they build).
// Renaming a Flux Kustomization or HelmRelease: its metadata.name and every
// dependsOn entry that names it (depends-on-sites.ts), the same way; refused
// where the name is not a valid object name, where another object of its kind
// already has it there, or where an entry may name it through a variable.
import type { Contract } from '../contract/model';
import { validateVarName } from '../flux/substitution/envsubst/template';
import { yaml11Type } from '../kustomize/yaml-values';
import type { RepoIndex } from '../pipeline/repo-index';
import { fits, ObjectTarget, objectSites, objectTargetAt, sameDeclaration } from './depends-on-sites';
import { ReadText, variableSites, VariableTarget, variableTargetAt } from './variable-sites';

export interface RenameEdit {
  file: string;
  span: [number, number];
  newText: string;
}

export type PrepareRenameResult = { span: [number, number]; name: string } | { error: string };

export const NOT_RENAMEABLE =
  "Only a Flux variable or the name of a Flux Kustomization or HelmRelease can be renamed here: a ${NAME} that Flux substitutes, the key that defines it (substitute:, a ConfigMap or Secret key, flux.variables), an object's metadata.name, or a dependsOn entry that names one.";

/** What a rename at `offset` would rename: a Flux variable, else a Kustomization's or HelmRelease's name. */
export function prepareRename(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): PrepareRenameResult {
  const variable = variableTargetAt(index, contract, path, text, offset);
  if (variable) return { span: variable.span, name: variable.name };
  const object = objectTargetAt(index, path, text, offset);
  if (!object) return { error: NOT_RENAMEABLE };
  return object.objects.length > 0 ? { span: object.span, name: object.name } : { error: namesNothing(object) };
}

export async function rename(index: RepoIndex, contract: Contract, path: string, text: string, offset: number, newName: string, read: ReadText): Promise<{ edits: RenameEdit[] } | { error: string }> {
  const target = variableTargetAt(index, contract, path, text, offset);
  if (target) {
    const invalid = validateVarName(newName);
    if (invalid) return { error: `Flux rejects this name: ${invalid}.` };
    if (newName === target.name) return { edits: [] };
    return renameTarget(index, contract, target, newName, read);
  }
  const object = objectTargetAt(index, path, text, offset);
  if (!object) return { error: NOT_RENAMEABLE };
  if (object.objects.length === 0) return { error: namesNothing(object) };
  const invalid = invalidObjectName(newName);
  if (invalid) return { error: invalid };
  if (newName === object.name) return { edits: [] };
  return renameObject(object, newName, path, text, read);
}

function namesNothing(target: ObjectTarget): string {
  return `No ${target.kind} named "${target.name}" is declared where this entry looks: there is nothing to rename.`;
}

/**
 * A name both Kubernetes and Flux take: a DNS subdomain that also fits a label value (Flux labels
 * everything a Kustomization or HelmRelease applies with its name), and that YAML reads as text
 * where it is written without quotes (only the name's characters are replaced).
 */
function invalidObjectName(name: string): string | null {
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) return `"${name}" is not a valid object name: lowercase letters, digits, '-' and '.', beginning and ending with a letter or digit.`;
  if (name.length > 63) return `"${name}" is longer than 63 characters: Flux writes the name into a label of everything it applies, and a label value holds 63 at most.`;
  const type = yaml11Type(name);
  if (type !== 'string') return `"${name}" written without quotes is read as a ${type === 'bool' ? 'boolean' : 'number'}, not a name: rename by hand and quote it.`;
  return null;
}

async function renameObject(target: ObjectTarget, newName: string, path: string, text: string, read: ReadText): Promise<{ edits: RenameEdit[] } | { error: string }> {
  const found = await objectSites(target, path, text, read);
  // Another object of the kind with the new name where these are: the entries would name both.
  for (const object of target.objects) {
    const taken = target.all.find(
      (other) => other.kind === object.kind && other.name === newName && !sameDeclaration(other, object) && fits(other.namespace, object.namespace) && fits(other.world, object.world),
    );
    if (taken) return { error: `${taken.kind} "${newName}" already exists${taken.namespace ? ` in namespace ${taken.namespace}` : ''} (${taken.file}): the dependsOn entries would name both.` };
  }
  if (found.unlocated.length > 0) {
    const place = found.unlocated[0];
    return { error: `"${target.name}" is named in ${place.file} where it is not written as such (a variable or a ResourceSet input): rename it there by hand.` };
  }
  return { edits: found.sites.map((site) => ({ file: site.file, span: site.span, newText: newName })) };
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
