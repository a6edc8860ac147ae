// How a variable's value is shown in completion details and inlay hints:
// a Secret's value (or one from outside the repository) never, a long or
// multi-line value as one short line.
import type { DefinedVariable } from '../flux/model/variables';
import type { Builder } from '../flux/model/world';
import { SECRET_MASK } from './substitution-info';

const MAX_LENGTH = 40;

/** The value as the editor may show it: masked when secret. */
export function shownValue(defined: DefinedVariable): string {
  return defined.secret ? SECRET_MASK : defined.value;
}

/** One line of at most ~40 characters: line breaks shown as ⏎, the rest cut with …. */
export function oneLine(text: string, max = MAX_LENGTH): string {
  const flat = text.replace(/\r?\n/g, '⏎');
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** `apps`, or `apps (clusters/home)` when the repository has several worlds. */
export function builderLabel(builder: Builder): string {
  const k = builder.kustomization;
  return builder.world.count > 1 ? `${k.name} (${builder.world.label})` : k.name;
}

/** What tells builders apart when their values differ: clusters, or Kustomizations of one cluster. */
export function differsBy(builders: Builder[]): string {
  return new Set(builders.map((builder) => builder.world)).size > 1 ? 'differs by cluster' : 'differs by Kustomization';
}
