// Hover text (Markdown) for what sits under the cursor: a `${NAME}` that
// Flux substitutes, a `$$` or `$(NAME)` with what each layer (Flux, the
// kubelet) makes of its line, or a Job's `ttlSecondsAfterFinished`. Each thing is said
// once: Kustomizations with the same outcome share one line, a long list is
// cut short, every file mentioned is a link, and the rendered line is shown
// only when there is one to show.
import { strictIn } from '../flux/model/flux-version';
import type { Contract } from '../contract/model';
import type { DefinedVariable } from '../flux/model/variables';
import type { Builder } from '../flux/model/world';
import type { RepoIndex } from '../pipeline/repo-index';
import { SECRET_MASK, variableAt, VariableInfo } from './substitution-info';
import { describeTtlCycle, ttlAt } from './ttl-info';
import { describeLayers, layersAt } from './layers-info';
import type { Link } from './link';
import { fluxSubstitutionUndefined } from '../rules/flux-substitution-undefined';
import { fluxSubstitutionDefault } from '../rules/flux-substitution-default';

export interface HoverResult {
  markdown: string;
  span: [number, number];
}

/** How many Kustomizations a hover names before it says "and N more". */
const SHOWN = 3;

/**
 * `variable`: the `${NAME}` at `offset` when the caller already looked it up (to read its definitions' files for links).
 * `shown`: the rules of the diagnostics at `offset`; the hover does not repeat what their messages say.
 */
export function hoverAt(
  index: RepoIndex,
  contract: Contract,
  path: string,
  text: string,
  offset: number,
  link: Link,
  variable = variableAt(index, contract, path, text, offset),
  shown: ReadonlySet<string> = new Set(),
): HoverResult | null {
  const layers = layersAt(index, contract, path, text, offset);
  if (variable) {
    // In a container's command, args or env, the kubelet comes after Flux: say what the process receives.
    const kubelet = layers?.kubelet ? `\n\n${describeLayers(layers)}` : '';
    return {
      markdown:
        describeVariable(
          variable,
          contract,
          link,
          UNDEFINED_RULES.some((rule) => shown.has(rule)),
        ) + kubelet,
      span: variable.span,
    };
  }
  if (layers) return { markdown: describeLayers(layers), span: layers.span };
  const cycle = ttlAt(index, contract, path, text, offset);
  if (cycle) return { markdown: describeTtlCycle(cycle, contract, link, shown), span: cycle.span };
  return null;
}

/** `Kustomization `apps` (link)`, several joined, a long list cut short. */
export function kustomizationList(builders: Builder[], link: Link): string {
  const named = builders.slice(0, SHOWN).map(({ kustomization: k, world }) => {
    const where = k.file ? ` (${link(k.file, { line: k.line })})` : '';
    return `\`${k.name}\`${world.count > 1 ? ` in ${world.label}` : ''}${where}`;
  });
  const more = builders.length > SHOWN ? `, and ${builders.length - SHOWN} more` : '';
  return `Kustomization${builders.length > 1 ? 's' : ''} ${named.join(', ')}${more}`;
}

/** Rules whose diagnostic says that a name is not defined, and what Flux does then. */
const UNDEFINED_RULES = [fluxSubstitutionUndefined.meta.id, fluxSubstitutionDefault.meta.id];

/** What Flux writes for a name nothing defines (strict or not; a default operator decides first). */
function undefinedEffect(operator: string | null, strict: boolean): string {
  if (operator === ':?' || operator === '?') return "fails with the expression's message";
  if (operator === ':+' || operator === '+') return 'writes nothing in its place (the alternate value is for a defined name)';
  if (operator !== null) return 'writes the default';
  return strict ? 'fails the reconcile (strict substitution)' : 'makes it empty';
}

/** What Flux writes in each of `builders`: strictness is per world (a pinned older Flux blanks, flux-version.ts). */
function effectIn(builders: Builder[], operator: string | null, contract: Contract, link: Link): string {
  const strict = builders.filter((builder) => strictIn(contract, builder.world));
  if (strict.length === 0 || strict.length === builders.length) return undefinedEffect(operator, strict.length > 0);
  const lenient = builders.filter((builder) => !strict.includes(builder));
  return `${undefinedEffect(operator, true)} in ${kustomizationList(strict, link)}, and ${undefinedEffect(operator, false)} in ${kustomizationList(lenient, link)}`;
}

/** `undefinedShown`: a diagnostic under the cursor already says the name is not defined and what Flux does. */
export function describeVariable(info: VariableInfo, contract: Contract, link: Link, undefinedShown = false): string {
  const name = `**\${${info.name}}**`;
  const parts: string[] = [];
  // One paragraph per outcome: the same value (wherever it is defined), or "not defined".
  const outcomes = new Map<string, { definitions: DefinedVariable[]; builders: Builder[] }>();
  for (const { builder, definition } of info.byKustomization) {
    const key = definition ? `${definition.secret}:${definition.value}` : 'undefined';
    const outcome = outcomes.get(key) ?? { definitions: [], builders: [] };
    outcome.builders.push(builder);
    if (definition && !outcome.definitions.some((d) => d.file === definition.file && d.span[0] === definition.span[0])) outcome.definitions.push(definition);
    outcomes.set(key, outcome);
  }
  for (const { definitions, builders } of outcomes.values()) {
    if (definitions.length > 0) {
      const value = definitions[0].secret ? SECRET_MASK : `\`${definitions[0].value}\``;
      const where = (d: DefinedVariable) => `${d.from} (${d.span[1] > 0 ? link(d.file, { offset: d.span[0] }) : d.file})`;
      const from = definitions.slice(0, SHOWN).map(where).join(', ') + (definitions.length > SHOWN ? `, and ${definitions.length - SHOWN} more` : '');
      parts.push(`${name} = ${value} — from ${from}; substituted by ${kustomizationList(builders, link)}.`);
    } else {
      const effect = effectIn(builders, info.operator, contract, link);
      const unknown = [...new Set(builders.flatMap((b) => b.vars?.unknown.map((u) => `${u.ref.kind} ${u.ref.name} (${u.why})`) ?? []))];
      const maybe = unknown.length > 0 ? ` It may come from ${unknown.join(', ')}, which the repository cannot show: declare its names in the contract's flux.variables to check this use.` : '';
      parts.push(undefinedShown ? `${name}: substituted by ${kustomizationList(builders, link)}.` : `${name} is not defined by ${kustomizationList(builders, link)}: Flux ${effect}.${maybe}`);
    }
  }
  parts.push(renderedLine(info, undefinedShown));
  return parts.filter((part) => part !== '').join('\n\n');
}

/** The line as Flux renders it; where Flux fails, whose fault it is, and the line without the failure when it says something. */
function renderedLine(info: VariableInfo, undefinedShown: boolean): string {
  const block = (text: string) => `\n\n\`\`\`text\n${text}\n\`\`\``;
  if (info.rendered.ok) return `Flux renders this line as:${block(info.rendered.output)}`;
  const lenient = info.lenient !== null && info.lenient.trim() !== '' ? info.lenient : null;
  if (info.rendered.error.includes(`"${info.name}"`)) {
    const without = lenient ? `Without strict substitution the line would read:${block(lenient)}` : '';
    // The diagnostic says that Flux fails on this name; the hover shows only the line without it.
    return undefinedShown ? without : `Flux fails: ${info.rendered.error}.` + (without ? ` ${without}` : '');
  }
  // Another expression of the line fails: say so, and show this one's value in the line.
  return `Flux fails on this line because of another expression: ${info.rendered.error}.` + (lenient ? ` With the undefined names blank, it reads:${block(lenient)}` : '');
}
