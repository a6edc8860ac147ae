// What a Flux substitution rule module is: metadata and a check of one
// occurrence (a `${...}`, a `$$` or a lone `$` inside a scalar) in the
// context of the Kustomizations that build the file.
import type { Builder, DefinedVariable } from '../flux/graph';
import type { SourceOccurrence } from '../flux/scalars';
import type { Finding, Fix, RuleMeta } from '../types';
import type { OffsetEdit } from '../yaml-edit';

export interface SubstitutionContext {
  /** Builders whose postBuild substitutes this file (empty: no substitution happens). */
  substituting: Builder[];
  /** Builders that build the file without substituting it. */
  plain: Builder[];
  strict: boolean;
  /** All occurrences of the document, for rules that look at neighbours (runs of `$$`). */
  occurrences: SourceOccurrence[];
  index: number;
  /** The whole file's text (occurrence spans are offsets into it). */
  text: string;
  finding(meta: RuleMeta, span: [number, number], message: string, fixes?: Fix[], severity?: Finding['severity']): Finding;
  fix(title: string, edits: OffsetEdit[], preferred?: boolean): Fix;
}

export interface SubstitutionRule {
  meta: RuleMeta;
  check(occurrence: SourceOccurrence, context: SubstitutionContext): Finding[];
}

/**
 * `$` inserted before every `$` of an occurrence: `${X}` becomes `$${X}`, which Flux turns back into
 * `${X}`. Every one, not just the first: once the outer `${` is escaped, a nested `${Y}` of its
 * default is no longer inside an expression and Flux would substitute it (and a `$$` in it would
 * collapse); doubled, the shell gets exactly the text as written.
 */
export function escapeFix(context: SubstitutionContext, occurrence: SourceOccurrence, what: string): Fix | null {
  // Only where the occurrence is written as it reads: through YAML escapes (`\u0024{X}`), folds or
  // line breaks the source positions are a guess, and a `$` inserted at a guess corrupts the value.
  if (context.text.slice(occurrence.span[0], occurrence.span[1]) !== occurrence.value.slice(occurrence.valueStart, occurrence.valueEnd)) return null;
  const edits: OffsetEdit[] = [];
  for (let i = occurrence.span[0]; i < occurrence.span[1]; i++) if (context.text[i] === '$') edits.push({ start: i, end: i, newText: '$' });
  if (edits.length === 0) return null;
  return context.fix(`Escape ${what} from Flux ($\${ → the shell sees \${)`, edits, true);
}

/** Who defines `name` for every substituting builder, or the builders that leave it undefined. */
export function lookup(name: string, builders: Builder[]): { defined: DefinedVariable[]; undefinedIn: Builder[] } {
  const defined: DefinedVariable[] = [];
  const undefinedIn: Builder[] = [];
  for (const builder of builders) {
    const variable = builder.vars?.defined.get(name);
    if (variable) defined.push(variable);
    else undefinedIn.push(builder);
  }
  return { defined, undefinedIn };
}

/** Whether the builder knows every name it defines (no substituteFrom object the repository cannot show). */
export function knowsItsNames(builder: Builder): boolean {
  return (builder.vars?.unknown.length ?? 0) === 0;
}

/** `"apps"`, or `"apps" (clusters/staging)` where the repository holds several clusters (worlds). */
export function kustomizationName(builder: Builder): string {
  const world = builder.world.count > 1 ? ` (${builder.world.label})` : '';
  return `"${builder.kustomization.name}"${world}`;
}

export function kustomizationNames(builders: Builder[]): string {
  return builders.map(kustomizationName).join(', ');
}
