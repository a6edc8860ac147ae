// Hover text (Markdown) for what sits under the cursor: a `${NAME}` that
// Flux substitutes, or a Job's `ttlSecondsAfterFinished`.
import type { Contract } from '../contract/model';
import type { RepoIndex } from '../repo-index';
import { LineIndex } from '../text';
import { variableAt, VariableInfo } from './substitution-info';
import { describeTtlCycle, ttlAt } from './ttl-info';

export interface HoverResult {
  markdown: string;
  span: [number, number];
}

/** `file:line` of a definition, 1-based, for people. */
type Locate = (file: string, offset: number) => string;

export function hoverAt(index: RepoIndex, contract: Contract, path: string, text: string, offset: number, locate: Locate): HoverResult | null {
  const variable = variableAt(index, contract, path, text, offset);
  if (variable) return { markdown: describeVariable(variable, contract, locate), span: variable.span };
  const cycle = ttlAt(index, path, text, offset);
  if (cycle) return { markdown: describeTtlCycle(cycle, contract), span: cycle.span };
  return null;
}

export function describeVariable(info: VariableInfo, contract: Contract, locate: Locate): string {
  const parts: string[] = [];
  for (const { builder, definition } of info.byKustomization) {
    const k = builder.kustomization;
    const where = `Kustomization \`${k.name}\` (${k.file}:${k.line + 1})`;
    if (definition) {
      const at = definition.span[1] > 0 ? ` at ${locate(definition.file, definition.span[0])}` : ` in ${definition.file}`;
      parts.push(`**\${${info.name}}** = \`${definition.value}\`\n\nDefined by ${definition.from}${at}, substituted by ${where}.`);
    } else {
      const unknown = builder.vars?.unknown.map((u) => `${u.ref.kind} ${u.ref.name}`) ?? [];
      const effect = contract.strict ? 'fails the reconcile (strict)' : 'makes it empty';
      parts.push(`**\${${info.name}}** is not defined by ${where}: Flux ${effect}.` + (unknown.length > 0 ? ` It may come from ${unknown.join(', ')}, which is not in the repository.` : ''));
    }
  }
  const block = (text: string) => `\n\n\`\`\`text\n${text}\n\`\`\``;
  if (info.rendered.ok) parts.push(`Flux renders this line as:${block(info.rendered.output)}`);
  else {
    parts.push(`Flux fails: ${info.rendered.error}`);
    if (info.lenient !== null) parts.push(`Without strict substitution the line would read:${block(info.lenient)}`);
  }
  return parts.join('\n\n');
}

/** A Locate over texts the caller can read. */
export function locator(read: (file: string) => string | undefined): Locate {
  return (file, offset) => {
    const text = read(file);
    return text === undefined ? file : `${file}:${new LineIndex(text).position(offset).line + 1}`;
  };
}
