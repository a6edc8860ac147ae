/**
 * flux-substitution-type (error): after Flux substitutes the values the repository gives its
 * variables, a scalar is read as another YAML type than its field takes, or is no YAML any more.
 *
 * Why it matters: Flux substitutes the YAML kustomize wrote and parses it again with go-yaml v2
 * (YAML 1.1), so `value: ${ENABLED}` with `ENABLED: "true"` becomes the boolean true and the apply
 * fails ("expected string, got … true"); `schedule: ${CRON}` with `*∕5 * * * *` is an alias and the
 * whole reconcile fails; `tag: ${VERSION}` with `1.10` becomes the number 1.1. Quotes in the file
 * do not help: kustomize writes the value again without them before Flux substitutes
 * (flux/substitution/retype.ts). Reported where the field's type is certain (k8s/field-types.ts:
 * a ConfigMap's data, labels, env values, a HelmRelease's chart version, replicas, ports, …), and
 * anywhere for YAML that breaks or a number that does not read as written (a warning).
 * Values the repository cannot show (outside sources, Secrets) are not guessed.
 *
 * Example (wrong, then right, with `quote: '"'` in the Kustomization's postBuild.substitute):
 *   schedule: ${CRON}
 *   schedule: ${quote}${CRON}${quote}
 *
 * Fix: Flux's documented form: wrap the value in `${quote}…${quote}` and define `quote` as a
 * double quote (a single quote where the value holds `"` or `\`); the fix writes both.
 */
import type { Rule, SubstitutionContext } from './rule';
import type { Finding, FileEdit, Fix } from '../base/types';
import type { Builder } from '../flux/model/world';
import type { SourceOccurrence } from '../flux/substitution/scalars';
import { namesWithoutDefault, offsetMap } from '../flux/substitution/scalars';
import { envsubst } from '../flux/substitution/envsubst/template';
import type { ExpressionOccurrence } from '../flux/substitution/envsubst/node';
import { kustomizeStyle, reread, writtenByKustomize, type Reread } from '../flux/substitution/retype';
import { fieldType, type FieldType } from '../k8s/field-types';
import { RULE_VALUE_MAX } from '../flux/facts/model';
import { knowsItsNames, kustomizationNames, substitutedBy, substituteEdit } from './support/substitution';

export const fluxSubstitutionType: Rule = {
  meta: {
    id: 'flux-substitution-type',
    defaultSeverity: 'error',
    summary: 'After substitution a value is read as another YAML type than its field takes, or breaks the YAML Flux parses again.',
  },
  check: {
    substituted(occurrence, context) {
      const { field } = occurrence;
      // Once per scalar, at its first occurrence; map keys and block text keep their type.
      if (!field || field.key || (context.index > 0 && context.occurrences[context.index - 1].field === field)) return [];
      const scalar = scalarOccurrences(context);
      const names = expressionNames(scalar);
      if (names.size === 0) return [];
      const style = kustomizeStyle(field.value);
      if (style === 'literal') return [];
      const expected = fieldType(field.resource.apiVersion, field.resource.kind, field.path);
      const written = writtenByKustomize(field.value, style);
      const listItem = typeof field.path[field.path.length - 1] === 'number';
      const withoutDefault = namesWithoutDefault(scalar.map((found) => found.occurrence));
      const verdicts = new Map<string, { verdict: Verdict; builders: Builder[]; values: Map<string, string> }>();
      for (const builder of context.substituting) {
        const values = knownValues(builder, names, withoutDefault);
        if (!values) continue;
        const result = envsubst(written, (name) => values.get(name), { strict: false });
        if (!result.ok) continue;
        const verdict = judge(reread(result.output, listItem), expected);
        if (!verdict) continue;
        const key = `${verdict.severity}\0${verdict.says}\0${result.output}`;
        const seen = verdicts.get(key);
        if (seen) seen.builders.push(builder);
        else verdicts.set(key, { verdict: { ...verdict, output: result.output }, builders: [builder], values });
      }
      const map = offsetMap(context.text, field.start, field.end, field.value);
      const span: [number, number] = [map(0), map(field.value.length - 1) + 1];
      return [...verdicts.values()].map(({ verdict, builders, values }) => {
        const label = fieldLabel(field.path);
        const given = [...values].map(([name, value]) => `${name}=${value}`).join(', ');
        // Where the file quotes the value, say why that is not enough.
        const quoted = context.text[field.start] === '"' || context.text[field.start] === "'";
        const message =
          `With ${given} (Kustomization ${kustomizationNames(builders)}), Flux reads \`${label}${verdict.output}\`: ${verdict.says}.` +
          (quoted ? ' The quotes in the file do not help: kustomize writes the value again without them before Flux substitutes.' : '');
        const fix = quoteFix(context, span, field.value, [...values.values()], builders);
        const found: Finding = context.finding(fluxSubstitutionType.meta, span, message + (fix ? ` Wrap it as ${fix.quoted}.` : ''), fix ? [fix.fix] : [], verdict.severity);
        found.related = substitutedBy(builders, 'gives the values');
        return found;
      });
    },
  },
};

interface Verdict {
  severity: 'error' | 'warning';
  says: string;
  output?: string;
}

/** The occurrences of the current occurrence's scalar (they come one after another). */
function scalarOccurrences(context: SubstitutionContext): SourceOccurrence[] {
  const { occurrences, index } = context;
  const field = occurrences[index].field;
  let end = index;
  while (end < occurrences.length && occurrences[end].field === field) end++;
  return occurrences.slice(index, end);
}

function expressionNames(scalar: SourceOccurrence[]): Set<string> {
  const names = new Set<string>();
  const stack: ExpressionOccurrence[] = [];
  for (const { occurrence } of scalar) if (occurrence.kind === 'expression') stack.push(occurrence);
  while (stack.length > 0) {
    const expression = stack.pop()!;
    stack.push(...expression.nested);
    if (expression.name !== null) names.add(expression.name);
  }
  return names;
}

/**
 * The values `builder` gives the names, where the repository shows every one: null where one
 * comes from a Secret or a source outside the repository (never guessed), or where a name without
 * a default is undefined (flux-substitution-undefined says that).
 */
function knownValues(builder: Builder, names: Set<string>, withoutDefault: string[]): Map<string, string> | null {
  const values = new Map<string, string>();
  for (const name of names) {
    const variable = builder.vars?.defined.get(name);
    // A Secret's value is never guessed, nor one longer than the audit keeps (the editor would see more).
    if (variable?.secret || (variable && variable.value.length > RULE_VALUE_MAX)) return null;
    if (variable)
      values.set(name, variable.value.replace(/\n/g, '')); // Flux drops newlines from values
    else if (!knowsItsNames(builder) || withoutDefault.includes(name)) return null;
  }
  return values;
}

const TYPE_NAMES: Record<string, string> = { boolean: 'the boolean', integer: 'the integer', float: 'the number', null: 'null', string: 'a string' };
const WANTS: Record<FieldType, string> = { string: 'a string', integer: 'an integer', boolean: 'a boolean' };

/** What is wrong with the re-read value in a field of type `expected` (null: any type), or null. */
function judge(read: Reread, expected: FieldType | null): Verdict | null {
  if (read.kind === 'invalid') return { severity: 'error', says: `that is no YAML (${read.why}), so Flux fails the reconcile` };
  if (read.kind === 'collection') return expected ? { severity: 'error', says: `a flow ${read.what} where the field takes ${WANTS[expected]}, so the apply fails` } : null;
  if (read.kind === 'cut') return { severity: 'warning', says: `${read.why}, so the value Flux applies is \`${read.kept}\`` };
  const { type, json, text } = read;
  if (type === 'null') return null; // an empty value: flux-substitution-undefined's, or meant
  if (expected === 'string' && type !== 'string') return { severity: 'error', says: `${TYPE_NAMES[type]} ${json} where the field takes a string, so the apply fails` };
  if (expected === 'integer' && !(type === 'integer' || (type === 'float' && /^-?\d+$/.test(json)))) {
    return { severity: 'error', says: `${TYPE_NAMES[type]} ${json} where the field takes an integer, so the apply fails` };
  }
  if (expected === 'boolean' && type !== 'boolean') return { severity: 'error', says: `${TYPE_NAMES[type]} ${json} where the field takes a boolean, so the apply fails` };
  if (expected === null && (type === 'integer' || type === 'float') && json !== text) {
    return { severity: 'warning', says: `the number ${json}, not the text ${text}` };
  }
  if (expected === null && type === 'boolean' && read.yaml11Only) return { severity: 'warning', says: `the boolean ${json} (YAML 1.1, as Flux parses it), not the text ${text}` };
  return null;
}

/** `key: ` or `- ` before the value, as the message shows the line. */
function fieldLabel(path: (string | number)[]): string {
  const last = path[path.length - 1];
  return typeof last === 'number' ? '- ' : last === undefined ? '' : `${last}: `;
}

/**
 * Flux's documented form: `${quote}<value>${quote}`, with `quote` defined as a double quote (a
 * single quote where a value holds `"` or `\`, which a double-quoted YAML string would read
 * otherwise) in every Kustomization that gives the values. Null where no quote fits or a
 * Kustomization cannot take the definition, or defines `quote` as something else.
 */
function quoteFix(context: SubstitutionContext, span: [number, number], value: string, values: string[], builders: Builder[]): { fix: Fix; quoted: string } | null {
  if (context.text.slice(span[0], span[1]) !== value) return null; // written through escapes or folds: positions are a guess
  const inside = [value, ...values].join('');
  const quote = !inside.includes('"') && !inside.includes('\\') ? '"' : !inside.includes("'") ? "'" : null;
  if (quote === null) return null;
  const yamlQuote = quote === '"' ? `'"'` : `"'"`;
  const defines: FileEdit[] = [];
  for (const builder of builders) {
    const defined = builder.vars?.defined.get('quote');
    if (defined) {
      if (defined.value !== quote) return null;
      continue;
    }
    const edit = substituteEdit(builder, 'quote', yamlQuote);
    if (!edit) return null;
    if (!defines.some((other) => other.file === edit.file && other.range.start.line === edit.range.start.line)) defines.push(edit);
  }
  const quoted = `\${quote}${value}\${quote}`;
  const fix = context.fix(
    `Wrap in \${quote}…\${quote} (Flux's documented form)${defines.length > 0 ? `, with quote: ${yamlQuote} in Kustomization ${kustomizationNames(builders)}` : ''}`,
    [
      { start: span[0], end: span[0], newText: '${quote}' },
      { start: span[1], end: span[1], newText: '${quote}' },
    ],
    true,
  );
  return { fix: { ...fix, edits: [...fix.edits, ...defines] }, quoted };
}
