// Names the repository cannot show: a Kustomization whose substituteFrom
// names an object that is not in the repository (a cluster Secret, an
// ExternalSecret filled with dataFrom, what a webhook adds) may define any
// name. Rather than one warning per use, the model says so once per
// Kustomization that uses names defined nowhere here, and lists them: the
// contract's `flux.variables` declares them (and then each use is checked).
import type { GraphProblem } from './build';
import type { FluxGraph } from './graph';
import type { InputFacts } from '../facts/model';
import type { Builder } from './world';

export const UNKNOWN_NAMES_SHOWN = 8;

export function unknownNameProblems(graph: FluxGraph, yamlUses: (file: string) => readonly string[], inputs: ReadonlyMap<string, InputFacts>): GraphProblem[] {
  const usedBy = new Map<Builder, Set<string>>();
  for (const builder of graph.liveBuilders()) if (builder.vars && builder.vars.unknown.length > 0) usedBy.set(builder, new Set());
  if (usedBy.size === 0) return [];
  for (const [file, entries] of graph.allEntries()) {
    for (const entry of entries) {
      const names = usedBy.get(entry.builder);
      if (!names) continue;
      const used =
        entry.role === 'generator'
          ? entry.generator!.generator.substituted
            ? ((entry.generator!.input.kind === 'env' ? inputs.get(file)?.envUses : inputs.get(file)?.uses) ?? [])
            : []
          : yamlUses(file);
      for (const name of used) if (!entry.builder.vars!.defined.has(name)) names.add(name);
    }
  }
  const problems: GraphProblem[] = [];
  for (const [builder, names] of usedBy) {
    if (names.size === 0) continue;
    const k = builder.kustomization;
    const sorted = [...names].sort();
    const unknown = builder.vars!.unknown;
    const own = unknown.find((u) => u.ref.file === k.file) ?? null;
    const sources = unknown.map((u) => `${u.ref.kind} ${u.ref.name} (${u.why})`).join(', ');
    const shown = sorted.slice(0, UNKNOWN_NAMES_SHOWN).join(', ') + (sorted.length > UNKNOWN_NAMES_SHOWN ? `, and ${sorted.length - UNKNOWN_NAMES_SHOWN} more` : '');
    const world = graph.worlds.length > 1 ? ` in ${builder.world.label}` : '';
    problems.push({
      rule: 'flux-variables-unknown',
      severity: 'info',
      file: k.file,
      span: own?.ref.span ?? k.span,
      message: `Kustomization "${k.name}"${world} takes variables from ${sources}, so the names it defines are unknown here: ${sorted.length} name(s) its files use are defined nowhere in the repository (${shown}). Their uses are not checked. Declare the names that come from outside in the contract's flux.variables to check every use.`,
      names: sorted,
    });
  }
  return problems;
}
