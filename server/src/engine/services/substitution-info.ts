// Editor services over Flux substitution (pure; the LSP layer formats them):
// what a `${NAME}` under the cursor means, where it is defined, and the file
// as Flux would render it.
import { stringify } from 'yaml';
import { buildersIn, documentRegions, FluxFileContext, generatorRegions, optsOut, SubstitutedRegion, substitutionRoles } from '../flux/check';
import { envsubst, ExpressionOccurrence } from '../flux/envsubst';
import type { Builder, DefinedVariable } from '../flux/graph';
import { documentOccurrences, SourceOccurrence } from '../flux/scalars';
import type { Contract } from '../contract/model';
import { fluxContextOf } from '../repo-analysis';
import type { RepoIndex } from '../repo-index';
import { isYamlPath } from '../paths';
import { parseYamlFile, ParsedDocument } from '../yaml-docs';

export interface VariableInfo {
  name: string;
  /** [start, end) of the `${...}` in the file. */
  span: [number, number];
  /** Per substituting Kustomization: its definition, or null when it leaves the name undefined. */
  byKustomization: Array<{ builder: Builder; definition: DefinedVariable | null }>;
  /** The scalar line holding the occurrence, before and after Flux substitutes it. */
  line: string;
  rendered: { ok: true; output: string } | { ok: false; error: string };
  /** Without strict mode (undefined names blank), when the strict rendering fails. */
  lenient: string | null;
}

function documentAt(documents: ParsedDocument[], offset: number): ParsedDocument | undefined {
  return documents.find((parsed) => offset >= parsed.base && offset <= parsed.end);
}

/** The `${NAME}` expression at `offset` (the innermost, for nested defaults). */
function expressionAt(occurrences: SourceOccurrence[], offset: number): { occurrence: SourceOccurrence; expression: ExpressionOccurrence } | null {
  for (const occurrence of occurrences) {
    if (occurrence.occurrence.kind !== 'expression' || offset < occurrence.span[0] || offset > occurrence.span[1]) continue;
    const shift = occurrence.span[0] - occurrence.valueStart;
    let expression = occurrence.occurrence;
    for (let deeper = true; deeper; ) {
      deeper = false;
      for (const nested of expression.nested) {
        if (offset >= nested.start + shift && offset <= nested.end + shift) {
          expression = nested;
          deeper = true;
        }
      }
    }
    return { occurrence, expression };
  }
  return null;
}

/** The regions of the file that hold `offset`: the YAML document there, and the whole text where a generator reads it. */
function regionsAt(flux: FluxFileContext, text: string, offset: number, yaml: boolean): SubstitutedRegion[] {
  const regions = generatorRegions(text, flux);
  const parsed = yaml ? documentAt(parseYamlFile(text), offset) : undefined;
  if (parsed) regions.push(...documentRegions(parsed, flux));
  return regions.filter((region) => region.substituting.length > 0);
}

export function variableAt(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): VariableInfo | null {
  const flux = fluxContextOf(index, contract, path);
  if (!flux) return null;
  for (const region of regionsAt(flux, text, offset, isYamlPath(path))) {
    const found = expressionAt(region.occurrences, offset);
    if (!found || found.expression.name === null) continue;
    const { substituting } = region;
    const { occurrence, expression } = found;
    const name = expression.name!;
    const shift = occurrence.span[0] - occurrence.valueStart;
    const lineStart = occurrence.value.lastIndexOf('\n', occurrence.valueStart - 1) + 1;
    const lineEnd = occurrence.value.indexOf('\n', occurrence.valueStart);
    const line = occurrence.value.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    const first = substituting[0];
    const lookupFirst = shownValue(first);
    const rendered = envsubst(line, lookupFirst, { strict: flux.strict });
    const lenient = rendered.ok ? null : envsubst(line, lookupFirst, { strict: false });
    return {
      name,
      span: [expression.start + shift, expression.end + shift],
      byKustomization: substituting.map((builder) => ({ builder, definition: builder.vars?.defined.get(name) ?? null })),
      line,
      rendered,
      lenient: lenient?.ok ? lenient.output : null,
    };
  }
  return null;
}

/** The file as Flux would render it: each resource re-serialized (comments gone) and substituted. */
export function renderAsFlux(index: RepoIndex, contract: Contract, path: string, text: string): string {
  const flux = fluxContextOf(index, contract, path);
  if (flux && !isYamlPath(path)) return renderInput(path, text, flux);
  const substituting = flux ? substitutionRoles(buildersIn(flux, ['resource', 'patch']), flux.mode).substituting : [];
  if (substituting.length === 0) {
    return `# No Flux Kustomization substitutes ${path}: Flux applies it as written.\n${text}`;
  }
  const builder = substituting[0];
  const lookup = shownValue(builder);
  const parts = [`# ${path} as Flux Kustomization "${builder.kustomization.name}" renders it (post-build substitution${flux!.strict ? ', strict' : ''}).`];
  for (const parsed of parseYamlFile(text)) {
    if (parsed.doc.contents === null) continue;
    if (parsed.errors.length > 0) {
      parts.push(`# not valid YAML: ${parsed.errors[0].message}`);
      continue;
    }
    let serialized: string;
    try {
      serialized = stringify(parsed.doc.toJS({ maxAliasCount: 1000 }), { lineWidth: 0 });
    } catch (error) {
      parts.push(`# cannot render this document: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (optsOut(parsed)) {
      parts.push(`# substitution disabled for this resource\n${serialized}`);
      continue;
    }
    const result = envsubst(serialized, lookup, { strict: flux!.strict });
    parts.push(result.ok ? result.output : `# Flux fails to build this resource: ${result.error}\n${serialized}`);
  }
  return parts.join('\n---\n');
}

/** A generator input as Flux renders it: its whole text substituted (the first substituting Kustomization's variables). */
function renderInput(path: string, text: string, flux: FluxFileContext): string {
  const region = generatorRegions(text, flux).find((candidate) => candidate.substituting.length > 0);
  if (!region) return `# No Flux Kustomization substitutes ${path}: Flux applies it as written.\n${text}`;
  const builder = region.substituting[0];
  const result = envsubst(text, shownValue(builder), { strict: flux.strict });
  return result.ok ? result.output : `# Flux fails to build what Kustomization "${builder.kustomization.name}" makes of ${path}: ${result.error}\n${text}`;
}

/** The value a name takes under a Kustomization, as people may see it: a secret's value is masked. */
function shownValue(builder: Builder): (name: string) => string | undefined {
  return (name) => {
    const variable = builder.vars?.defined.get(name);
    return variable === undefined ? undefined : variable.secret ? SECRET_MASK : variable.value;
  };
}

export const SECRET_MASK = '••••';
