// What a file a kustomize generator reads holds for the model: the KEY=VALUE
// lines of an `envs:` file (a generated ConfigMap's or Secret's keys, which
// `substituteFrom` can name), and the `${NAME}`s its text uses.
import type { InputFacts } from './model';
import { scanSubstitutions } from '../substitution/envsubst/occurrences';
import { namesWithoutDefault } from '../substitution/scalars';
import type { Located } from './model';

/** An env file as kustomize reads it: `KEY=VALUE` lines; blank lines and `#` comments are skipped. */
export function envLines(text: string): Array<{ key: string; value: string; start: number; valueStart: number; end: number }> {
  const lines: Array<{ key: string; value: string; start: number; valueStart: number; end: number }> = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).replace(/\r$/, '');
    const indent = line.length - line.trimStart().length;
    const eq = line.indexOf('=');
    if (line.trim() !== '' && !line.trimStart().startsWith('#') && eq > indent) {
      lines.push({ key: line.slice(indent, eq).trim(), value: line.slice(eq + 1), start: start + indent, valueStart: start + eq + 1, end: start + line.length });
    }
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

export function inputFacts(path: string, text: string): InputFacts {
  const env = new Map<string, Located<string>>();
  for (const line of envLines(text)) env.set(line.key, { value: line.value, file: path, span: [line.start, line.start + line.key.length] });
  const names = (value: string) => (value.includes('${') ? namesWithoutDefault(scanSubstitutions(value)) : []);
  return { env, uses: names(text), envUses: [...new Set(envLines(text).flatMap((line) => names(line.value)))].sort() };
}
