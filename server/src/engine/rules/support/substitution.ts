// What the Flux substitution rules share: the fixes they offer (escape the
// occurrence from Flux, define the name where the Kustomizations take their
// variables, give it a default), and how their messages name Kustomizations
// and look a name up in them.
import { NAME_PLACEHOLDER } from '../../flux/facts/model';
import type { ExpressionOccurrence } from '../../flux/substitution/envsubst/node';
import type { DefinedVariable } from '../../flux/model/variables';
import type { Builder } from '../../flux/model/world';
import type { SourceOccurrence } from '../../flux/substitution/scalars';
import type { FileEdit, Fix, RelatedLocation } from '../../base/types';
import type { OffsetEdit } from '../../yaml/edit';
import type { SubstitutionContext } from '../rule';

/**
 * `$` inserted before every `$` of an occurrence: `${X}` becomes `$${X}`, which Flux turns back into
 * `${X}`. Every one, not just the first: once the outer `${` is escaped, a nested `${Y}` of its
 * default is no longer inside an expression and Flux would substitute it (and a `$$` in it would
 * collapse); doubled, the shell gets exactly the text as written.
 */
export function escapeFix(context: SubstitutionContext, occurrence: SourceOccurrence, what: string, reader = 'the shell', preferred = true): Fix | null {
  // Only where the occurrence is written as it reads: through YAML escapes (`\u0024{X}`), folds or
  // line breaks the source positions are a guess, and a `$` inserted at a guess corrupts the value.
  if (context.text.slice(occurrence.span[0], occurrence.span[1]) !== occurrence.value.slice(occurrence.valueStart, occurrence.valueEnd)) return null;
  const edits: OffsetEdit[] = [];
  for (let i = occurrence.span[0]; i < occurrence.span[1]; i++) if (context.text[i] === '$') edits.push({ start: i, end: i, newText: '$' });
  if (edits.length === 0) return null;
  return context.fix(`Escape ${what} from Flux ($\${ → ${reader} sees \${)`, edits, preferred);
}

/**
 * Defining `name` where the Kustomizations take their variables: in each one's
 * `postBuild.substitute`, and in the first ConfigMap of the repository its
 * `substituteFrom` reads. The value is left empty for a person to fill in.
 */
export function defineFixes(name: string, builders: Builder[]): Fix[] {
  const fixes: Fix[] = [];
  const add = (title: string, file: string, template: { range: Fix['edits'][number]['range']; newText: string }) => {
    if (fixes.some((fix) => fix.edits[0].file === file && fix.edits[0].range.start.line === template.range.start.line)) return;
    fixes.push({ title, edits: [{ file, range: template.range, newText: template.newText.split(NAME_PLACEHOLDER).join(name) }] });
  };
  for (const { kustomization: k, vars } of builders) {
    if (k.define) add(`Define ${name} in the postBuild.substitute of Kustomization "${k.name}" (a value to fill in)`, k.file, k.define);
    const source = vars?.sources.find((candidate) => candidate.define);
    if (source?.define) add(`Define ${name} in ConfigMap ${source.name} (${source.file}; a value to fill in)`, source.file, source.define);
  }
  return fixes;
}

/** An edit that writes `name: value` (`value` in YAML) into the Kustomization's postBuild.substitute; null where it cannot be written. */
export function substituteEdit(builder: Builder, name: string, yamlValue: string): FileEdit | null {
  const { define, file } = builder.kustomization;
  const placeholder = `${NAME_PLACEHOLDER}: ""`;
  if (!define || !define.newText.includes(placeholder)) return null;
  return { file, range: define.range, newText: define.newText.replace(placeholder, () => `${name}: ${yamlValue}`) };
}

/** `${NAME}` → `${NAME:=}`: a default Flux uses where nothing defines the name (a person writes it after `:=`). */
export function defaultFix(context: SubstitutionContext, occurrence: SourceOccurrence, expression: ExpressionOccurrence, span: [number, number]): Fix | null {
  if (expression.operator !== null || context.text[span[1] - 1] !== '}' || context.text.slice(span[0], span[1]) !== occurrence.value.slice(expression.start, expression.end)) return null;
  return context.fix(`Give \${${expression.name}} a default: \${${expression.name}:=…}`, [{ start: span[1] - 1, end: span[1] - 1, newText: ':=' }]);
}

/** Where each Kustomization is written, for a finding's related locations (a few, not hundreds). */
export function substitutedBy(builders: Builder[], what: string): RelatedLocation[] {
  return builders
    .slice(0, 5)
    .filter((b) => b.kustomization.file !== '')
    .map((b) => ({ file: b.kustomization.file, range: b.kustomization.range, message: `Kustomization "${b.kustomization.name}" ${what}` }));
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
