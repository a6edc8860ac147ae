// Completion after `${` (and inside `${…}`): the names the Kustomizations
// that substitute this very text define, with value (secrets masked) and
// origin; a name only some of them define says which. In text a shell runs,
// one more item escapes what the user types to `$${…}`, for a variable the
// shell (not Flux) should expand.
import type { Contract } from '../contract/model';
import type { DefinedVariable } from '../flux/model/variables';
import type { Builder } from '../flux/model/world';
import { fluxContextOf } from '../pipeline/repo-analysis';
import type { RepoIndex } from '../pipeline/repo-index';
import { substitutedRegions } from './substituted-text';
import { builderLabel, differsBy, oneLine, shownValue } from './variable-display';

export interface NameCompletion {
  name: string;
  /** The first defining Kustomization's value as shown (masked when secret), on one line. */
  value: string;
  from: string;
  /** Set when some substituting Kustomizations do not define the name: which do. */
  partial: string | null;
  /** Set when the defining Kustomizations give different values. */
  differs: string | null;
  /** Markdown: each Kustomization's value and origin. */
  documentation: string;
}

export interface VariableCompletion {
  /** [start, end) of the name typed so far and the rest of it after the cursor: what a chosen name replaces. */
  replace: [number, number];
  /** Whether a `}` must be written after the name (none follows it yet). */
  close: boolean;
  names: NameCompletion[];
  /**
   * In shell text, for a name Flux does not define: `$${…}`, left to the shell. Written as the names
   * are (the name over `replace`), plus one `$` inserted at `dollar`, so editors rank it with them.
   */
  escape: EscapeCompletion | null;
}

/** The item that escapes `${name}` from Flux, in words a user reads in the completion list. */
export interface EscapeCompletion {
  dollar: number;
  /** What the item leaves in the text: `$${name}`. */
  label: string;
  /** One line: what the shell then sees. */
  detail: string;
  /** Markdown: what it inserts, what Flux does with it, and why it is offered. */
  documentation: string;
}

/** `${`, `${#`, then the name typed so far, right before the cursor. */
const OPENING = /\$\{#?([\p{L}\p{Nd}_]*)$/u;
const NAME_CHAR = /[\p{L}\p{Nd}_]/u;
/** What may follow a name inside `${…}` without a `}` being added. */
const AFTER_NAME = new Set(['}', ':', '=', '#', '%', '/', '^', ',', '?', '+', '-']);

export function variableCompletion(index: RepoIndex, contract: Contract, path: string, text: string, offset: number): VariableCompletion | null {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const opening = OPENING.exec(text.slice(lineStart, offset));
  if (!opening) return null;
  const dollar = lineStart + opening.index;
  let dollars = 0;
  while (text[dollar - 1 - dollars] === '$') dollars++;
  if (dollars % 2 === 1) return null; // `$${`: an escape, Flux leaves it alone
  const flux = fluxContextOf(index, contract, path);
  if (!flux) return null;
  const region = substitutedRegions(flux, path, text, dollar, offset).find((candidate) =>
    candidate.occurrences.some(({ occurrence, span }) => occurrence.kind !== 'escape' && occurrence.kind !== 'bare-dollar' && span[0] <= dollar && dollar < span[1]),
  );
  if (!region) return null;
  const shell = region.occurrences.some(({ span, shell }) => shell && span[0] <= dollar && dollar < span[1]);
  const typed = opening[1];
  let end = offset;
  while (end < text.length && NAME_CHAR.test(text[end])) end++;
  const close = !AFTER_NAME.has(text[end] ?? '');
  const names = definedNames(region.substituting);
  const written = text.slice(offset - typed.length, end);
  // A name Flux defines is meant for Flux; any other name in shell text is plainly the shell's.
  const escape = shell && !names.some((candidate) => candidate.name === written) ? escapeCompletion(dollar, written) : null;
  return { replace: [offset - typed.length, end], close, names, escape };
}

function escapeCompletion(dollar: number, name: string): EscapeCompletion {
  const seen = `\${${name || '…'}}`;
  const own = name ? `its own variable \`${name}\`` : 'its own variable (write its name between the braces)';
  const why = name
    ? `Without the extra \`$\`, Flux substitutes \`\${${name}}\` before the shell runs, and no Kustomization that substitutes this text defines \`${name}\`.`
    : 'Without the extra `$`, Flux substitutes `${…}` itself before the shell runs.';
  return {
    dollar,
    label: `$\${${name}}`,
    detail: `Escape from Flux: the shell sees ${seen}`,
    documentation: `Inserts \`$\${${name}}\`: one more \`$\` before the \`\${\`. Flux writes \`$$\` as \`$\` and substitutes nothing there, so the shell that runs this text sees \`${seen}\` and expands ${own}.\n\n${why}`,
  };
}

/** Every name some substituting Kustomization defines, sorted. */
function definedNames(builders: Builder[]): NameCompletion[] {
  const byName = new Map<string, Array<{ builder: Builder; defined: DefinedVariable }>>();
  for (const builder of builders) {
    for (const [name, defined] of builder.vars?.defined ?? []) {
      const list = byName.get(name);
      if (list) list.push({ builder, defined });
      else byName.set(name, [{ builder, defined }]);
    }
  }
  return [...byName.keys()].sort().map((name) => {
    const definitions = byName.get(name)!;
    const first = definitions[0].defined;
    const values = new Set(definitions.map(({ defined }) => shownValue(defined)));
    const definers = definitions.map(({ builder }) => builder);
    const missing = builders.filter((builder) => !definers.includes(builder));
    return {
      name,
      value: oneLine(shownValue(first)),
      from: first.from,
      partial: missing.length === 0 ? null : `only for ${definers.map(builderLabel).join(', ')}; not for ${missing.map(builderLabel).join(', ')}`,
      differs: values.size > 1 ? differsBy(definers) : null,
      documentation: [
        ...definitions.map(({ builder, defined }) => `- Kustomization \`${builderLabel(builder)}\`: \`${oneLine(shownValue(defined), 80)}\` (${defined.from})`),
        ...missing.map((builder) => `- Kustomization \`${builderLabel(builder)}\`: not defined`),
      ].join('\n'),
    };
  });
}
