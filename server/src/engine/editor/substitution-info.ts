// Editor services over Flux substitution (pure; the LSP layer formats them):
// what a `${NAME}` under the cursor means, where it is defined, and the file
// as Flux would render it, then what the kubelet makes of its containers.
import { strictIn } from '../flux/model/flux-version';
import { stringify } from 'yaml';
import { buildersIn, documentRegions, documentVerdict, FluxFileContext, generatorRegions, optsOut, SubstitutedRegion, substitutionRoles } from '../flux/substitution/regions';
import { envsubst } from '../flux/substitution/envsubst/template';
import { ExpressionOccurrence } from '../flux/substitution/envsubst/node';
import type { DefinedVariable } from '../flux/model/variables';
import type { Builder } from '../flux/model/world';
import { SourceOccurrence } from '../flux/substitution/scalars';
import type { Contract } from '../contract/model';
import { fluxContextOf } from '../pipeline/repo-analysis';
import type { RepoIndex } from '../pipeline/repo-index';
import { isYamlPath } from '../base/paths';
import { LineIndex } from '../yaml/line-index';
import { parseYamlFile, ParsedDocument } from '../yaml/documents';
import { kubeletSection } from './kubelet-preview';

export interface VariableInfo {
  name: string;
  /** [start, end) of the `${...}` in the file. */
  span: [number, number];
  /** Flux's operator as written (`:-`, `:+`, …), null for a plain `${NAME}`. */
  operator: string | null;
  /** Per substituting Kustomization: its definition, or null when it leaves the name undefined. */
  byKustomization: Array<{ builder: Builder; definition: DefinedVariable | null }>;
  /** The scalar line holding the occurrence, before and after Flux substitutes it. */
  line: string;
  rendered: { ok: true; output: string } | { ok: false; error: string };
  /** Without strict mode (undefined names blank), when the strict rendering fails. */
  lenient: string | null;
}

export function documentAt(documents: ParsedDocument[], offset: number): ParsedDocument | undefined {
  return documents.find((parsed) => offset >= parsed.base && offset <= parsed.end);
}

/** The `${NAME}` expression at `offset` (the innermost, for nested defaults). */
function expressionAt(occurrences: SourceOccurrence[], offset: number): { occurrence: SourceOccurrence; expression: ExpressionOccurrence } | null {
  for (const occurrence of occurrences) {
    if (occurrence.occurrence.kind !== 'expression' || offset < occurrence.span[0] || offset > occurrence.span[1]) continue;
    const shift = occurrence.span[0] - occurrence.valueStart;
    let expression = occurrence.occurrence;
    for (let deeper = true; deeper;) {
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
    const rendered = envsubst(line, lookupFirst, { strict: strictIn(flux, first.world) });
    const lenient = rendered.ok ? null : envsubst(line, lookupFirst, { strict: false });
    return {
      name,
      span: [expression.start + shift, expression.end + shift],
      operator: expression.hasDefault ? expression.operator : null,
      byKustomization: substituting.map((builder) => ({ builder, definition: builder.vars?.defined.get(name) ?? null })),
      line,
      rendered,
      lenient: lenient?.ok ? lenient.output : null,
    };
  }
  return null;
}

/** Where Flux's substitution of a file fails: the expression it rejects, and why. */
export interface SubstitutionFailure {
  /** Offset of the `${` in the file. */
  offset: number;
  /** The expression as written (cut at 40 characters). */
  written: string;
  error: string;
}

/**
 * The first expression of `regions` that Flux rejects under `lookup`: a syntax error, or (strict)
 * an undefined name. The rendering fails on the re-serialized text, where positions mean nothing to
 * the user; the expressions of the file say where.
 */
export function firstFailure(regions: SubstitutedRegion[], lookup: (name: string) => string | undefined, strict: boolean): SubstitutionFailure | null {
  let first: SubstitutionFailure | null = null;
  for (const { occurrence, span, value } of regions.flatMap((region) => region.occurrences)) {
    if (first && span[0] >= first.offset) continue;
    if (occurrence.kind !== 'syntax-error' && occurrence.kind !== 'expression') continue;
    const written = value.slice(occurrence.start, occurrence.end);
    const error = occurrence.kind === 'syntax-error' ? occurrence.error : envsubstError(written, lookup, strict);
    if (error !== null) first = { offset: span[0], written: written.slice(0, 40), error };
  }
  return first;
}

function envsubstError(written: string, lookup: (name: string) => string | undefined, strict: boolean): string | null {
  const result = envsubst(written, lookup, { strict });
  return result.ok ? null : result.error;
}

/** The first lines of a preview that fails: where (file:line:column), then what and why (two short lines fit beside the source). */
function failureLine(path: string, text: string, failure: SubstitutionFailure | null, fallback: string): string {
  if (!failure) return `# ✖ Flux fails to build ${path}\n#   ${fallback}`;
  const { line, character } = new LineIndex(text).position(failure.offset);
  return `# ✖ Flux fails to build ${path}:${line + 1}:${character + 1}\n#   ${failure.written}: ${failure.error}`;
}

/**
 * The file as Flux would render it: each resource re-serialized (comments gone) and substituted,
 * followed by the lines of its containers' command, args and env that the kubelet changes. Where
 * the build fails, the first lines say where (file:line:column of the expression) and why.
 */
export function renderAsFlux(index: RepoIndex, contract: Contract, path: string, text: string): string {
  const flux = fluxContextOf(index, contract, path);
  if (flux && !isYamlPath(path)) return renderInput(path, text, flux);
  const substituting = flux ? substitutionRoles(buildersIn(flux, ['resource', 'patch']), flux.mode).substituting : [];
  if (substituting.length === 0) {
    return withKubelet(`# No Flux Kustomization substitutes ${path}: Flux applies it as written.\n${text}`, text);
  }
  const builder = substituting[0];
  const lookup = shownValue(builder);
  const strict = strictIn(flux!, builder.world);
  const parts = [`# ${path} as Flux Kustomization "${builder.kustomization.name}" renders it (post-build substitution${strict ? ', strict' : ''}).`];
  const failures: string[] = [];
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
    const own = flux!.entries.filter((entry) => entry.builder === builder && (entry.role === 'resource' || entry.role === 'patch'));
    if (own.length === 0 ? optsOut(parsed) : own.every((entry) => documentVerdict(entry, parsed) !== 'substituted')) {
      parts.push(withKubelet(`# substitution disabled for this resource\n${serialized}`, serialized));
      continue;
    }
    const result = envsubst(serialized, lookup, { strict });
    if (!result.ok) {
      const regions = documentRegions(parsed, flux).filter((region) => region.substituting.includes(builder));
      failures.push(failureLine(path, text, firstFailure(regions, lookup, strict), result.error));
    }
    parts.push(result.ok ? withKubelet(result.output, result.output) : `# Flux fails to build this resource: ${result.error}\n${serialized}`);
  }
  return [...failures, parts.join('\n---\n')].join('\n');
}

/** A rendering followed by what the kubelet then changes in the containers of `yamlText` (nothing when it changes nothing). */
function withKubelet(rendering: string, yamlText: string): string {
  const section = kubeletSection(yamlText);
  return section === '' ? rendering : `${rendering.replace(/\n?$/, '\n')}${section}\n`;
}

/** A generator input as Flux renders it: its whole text substituted (the first substituting Kustomization's variables). */
function renderInput(path: string, text: string, flux: FluxFileContext): string {
  const region = generatorRegions(text, flux).find((candidate) => candidate.substituting.length > 0);
  if (!region) return `# No Flux Kustomization substitutes ${path}: Flux applies it as written.\n${text}`;
  const builder = region.substituting[0];
  const lookup = shownValue(builder);
  const strict = strictIn(flux, builder.world);
  const result = envsubst(text, lookup, { strict });
  if (result.ok) return result.output;
  const where = failureLine(path, text, firstFailure([region], lookup, strict), result.error);
  return `${where}\n# Flux fails to build what Kustomization "${builder.kustomization.name}" makes of ${path}: ${result.error}\n${text}`;
}

/** The value a name takes under a Kustomization, as people may see it: a secret's value is masked. */
export function shownValue(builder: Builder): (name: string) => string | undefined {
  return (name) => {
    const variable = builder.vars?.defined.get(name);
    return variable === undefined ? undefined : variable.secret ? SECRET_MASK : variable.value;
  };
}

export const SECRET_MASK = '••••';
