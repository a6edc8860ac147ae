// The last layer of the substitution preview: what the kubelet makes of the
// containers' command, args and env values of a YAML text (the file as
// written, or as Flux rendered it) before each process starts. Only the lines
// the kubelet changes are shown, as comments under the document.
import { containerLookup } from '../k8s/container-env';
import { kubeletExpand } from '../k8s/kubelet-expansion';
import { forEachStringScalar } from '../flux/substitution/scalars';
import { parseYamlFile } from '../yaml/documents';

/** How many changed lines a preview lists per document before it says how many more. */
const SHOWN_LINES = 40;

/** `# …` lines saying what the kubelet changes in one YAML document's containers; '' when it changes nothing. */
export function kubeletSection(yamlText: string): string {
  if (!yamlText.includes('$')) return '';
  const changed: string[] = [];
  for (const parsed of parseYamlFile(yamlText)) {
    if (parsed.errors.length > 0) continue;
    forEachStringScalar(parsed, (value, _start, _end, _shell, _node, kubelet) => {
      if (!kubelet || !value.includes('$')) return;
      const expanded = kubeletExpand(value, containerLookup(kubelet));
      if (expanded === value) return;
      const before = value.split('\n');
      const after = expanded.split('\n');
      if (before.length !== after.length) return void changed.push(`#   ${oneLine(value)}`, `#   → ${oneLine(expanded)}`);
      before.forEach((line, i) => {
        if (line !== after[i]) changed.push(`#   ${line.trim()}`, `#   → ${after[i].trim()}`);
      });
    });
  }
  if (changed.length === 0) return '';
  const cut = changed.length > SHOWN_LINES * 2 ? [...changed.slice(0, SHOWN_LINES * 2), `#   … and ${(changed.length - SHOWN_LINES * 2) / 2} more`] : changed;
  return ['# After the kubelet: it expands the containers’ command, args and env before each process starts ($$ → $, $(NAME) → the variable):', ...cut].join('\n');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}
