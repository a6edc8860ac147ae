// The text of one file that Flux substitutes, as the editor services walk it:
// its regions (YAML documents, a kustomization file's inline text, the bytes a
// generator reads), only those some Kustomization substitutes, and every
// `${NAME}` in them with the exact characters of the name. Large files are
// parsed only where a request looks (the documents overlapping a range).
import { documentRegions, FluxFileContext, generatorRegions, SubstitutedRegion } from '../flux/substitution/regions';
import type { ExpressionOccurrence } from '../flux/substitution/envsubst/node';
import type { SourceOccurrence } from '../flux/substitution/scalars';
import { isKustomizationFile } from '../flux/facts/model';
import { isYamlPath } from '../base/paths';
import { documentBoundaries, parseChunk } from '../yaml/documents';

/** One `${NAME}` (nested ones too) in substituted text. */
export interface NameUse {
  name: string;
  /** [start, end) of the name's characters in the file (what a rename replaces). */
  nameSpan: [number, number];
  /** [start, end) of the whole `${...}` in the file. */
  span: [number, number];
  expression: ExpressionOccurrence;
  occurrence: SourceOccurrence;
  region: SubstitutedRegion;
  /** Whether it stands at the top level of its occurrence (not inside another's default). */
  topLevel: boolean;
}

/** Whether the editor services parse the file as YAML documents. */
export function isYamlText(path: string): boolean {
  return isYamlPath(path) || isKustomizationFile(path);
}

/**
 * The substituted regions of a file that overlap [from, to) (the whole file by default): the YAML
 * documents there, and the bytes a generator reads. Regions only plain builders build are left out.
 */
export function substitutedRegions(flux: FluxFileContext, path: string, text: string, from = 0, to = text.length): SubstitutedRegion[] {
  const regions = generatorRegions(text, flux);
  if (isYamlText(path)) {
    const starts = documentBoundaries(text);
    starts.forEach((start, i) => {
      const end = starts[i + 1] ?? text.length;
      // A document outside the range is not parsed; nor is one without a `$`.
      if (end < from || start > to || !text.slice(start, end).includes('$')) return;
      for (const parsed of parseChunk(text, start, end)) if (parsed.errors.length === 0) regions.push(...documentRegions(parsed, flux));
    });
  }
  return regions.filter((region) => region.substituting.length > 0);
}

/** Every `${NAME}` of the regions, outer before nested, in file order of the outer occurrences. */
export function nameUses(regions: SubstitutedRegion[], text: string): NameUse[] {
  const uses: NameUse[] = [];
  for (const region of regions) {
    for (const occurrence of region.occurrences) {
      if (occurrence.occurrence.kind !== 'expression') continue;
      // Offsets inside one occurrence are the value's, shifted to the file (verbatim text: `$`, names, braces).
      const shift = occurrence.span[0] - occurrence.valueStart;
      const stack: Array<{ expression: ExpressionOccurrence; topLevel: boolean }> = [{ expression: occurrence.occurrence, topLevel: true }];
      while (stack.length > 0) {
        const { expression, topLevel } = stack.pop()!;
        for (let i = expression.nested.length - 1; i >= 0; i--) stack.push({ expression: expression.nested[i], topLevel: false });
        if (expression.name === null) continue;
        const nameSpan = locateName(text, expression.name, expression.start + shift, occurrence.span);
        if (nameSpan) uses.push({ name: expression.name, nameSpan, span: [expression.start + shift, expression.end + shift], expression, occurrence, region, topLevel });
      }
    }
  }
  return uses;
}

const IDENT_CHAR = /[\p{L}\p{Nd}_]/u;

/**
 * Where the name of the `${NAME}` expected at `dollar` is written: right after `${` (or `${#`).
 * Escapes or folding inside a quoted scalar can move a nested expression; then the `${NAME` inside
 * the occurrence's bounds nearest to `dollar`. Null when it is not written verbatim (never edit a guess).
 */
export function locateName(text: string, name: string, dollar: number, bounds: [number, number]): [number, number] | null {
  const at = (dollarAt: number): [number, number] | null => {
    if (dollarAt < bounds[0] || !text.startsWith('${', dollarAt)) return null;
    const start = text.startsWith(name, dollarAt + 2) ? dollarAt + 2 : text.startsWith('#' + name, dollarAt + 2) ? dollarAt + 3 : -1;
    const end = start + name.length;
    return start !== -1 && end <= bounds[1] && !IDENT_CHAR.test(text[end] ?? '') ? [start, end] : null;
  };
  for (let distance = 0; distance <= bounds[1] - bounds[0]; distance++) {
    const found = at(dollar - distance) ?? at(dollar + distance);
    if (found) return found;
  }
  return null;
}
