// The problems of outside sources (kind 'outside-source', reported by
// rules/flux-variables-unknown.ts): one per outside source whose names are
// unknown (not per Kustomization, not per use), where it is named first, with
// every Kustomization that takes it as a related location. The rule's fix
// declares the source in the contract with every name the repository uses
// from it (contract/variables-edit.ts), so the next audit has nothing new to say.
import type { GraphProblem } from './build';
import type { OutsideSource, OutsideTaker } from './outside-sources';
import type { FluxKustomization } from '../facts/model';

export const UNKNOWN_NAMES_SHOWN = 8;

/** The outside sources some Kustomization leaves unknown (not declared, not silenced, not optional and absent) and uses names from. */
export function outsideSourceProblems(sources: readonly OutsideSource[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  for (const source of sources) {
    const unknown = source.takers.filter((t) => t.entry.state === 'unknown');
    const names = [...new Set(unknown.flatMap((t) => t.names))].sort();
    if (names.length === 0) continue;
    problems.push({
      kind: 'outside-source',
      severity: 'info',
      file: source.file,
      span: source.span,
      message: message(source, unknown, names),
      related: relatedOf(unknown),
      declare: { kind: source.kind, name: source.name, namespace: source.namespace, names: source.names },
    });
  }
  return problems;
}

/** `ExternalSecret x` or `Secret x (in namespace y)`: how the message names the source. */
export function sourceLabel(source: Pick<OutsideSource, 'kind' | 'name' | 'namespace'>): string {
  return `${source.kind} ${source.name}${source.namespace ? ` (namespace ${source.namespace})` : ''}`;
}

export function shownNames(names: readonly string[]): string {
  return names.slice(0, UNKNOWN_NAMES_SHOWN).join(', ') + (names.length > UNKNOWN_NAMES_SHOWN ? `, and ${names.length - UNKNOWN_NAMES_SHOWN} more` : '');
}

function message(source: OutsideSource, unknown: OutsideTaker[], names: string[]): string {
  const kustomizations = new Set(unknown.map((t) => t.builder.kustomization)).size;
  const count = unknown[0].builder.world.count;
  const worlds = [...new Set(unknown.map((t) => t.builder.world))];
  // Clusters are named only where the repository has several and not all of them take it unknown.
  const where = count > 1 && worlds.length < count ? ` in ${worlds.map((w) => w.label).join(', ')}` : '';
  const known = source.knownIn.length > 0 ? ` (the repository shows its keys in ${source.knownIn.map((w) => w.label).join(', ')})` : '';
  const take = `${kustomizations} Kustomization${kustomizations === 1 ? ' takes' : 's take'} it${where}${known}`;
  const from = `from: { kind: ${source.kind}, name: ${source.name} }`;
  return (
    `The names in ${sourceLabel(source)} cannot be known here: ${source.why}. ${take}, and ${kustomizations === 1 ? 'its' : 'their'} files use ${names.length} name${names.length === 1 ? '' : 's'} ` +
    `nothing in the repository defines (${shownNames(names)}); those uses are not checked. Declare its names in the contract's flux.variables (${from}, names: […]) to check every use.`
  );
}

/**
 * One related location per Kustomization that takes it (once, whatever the worlds), with the names it
 * uses from it; where the Kustomization takes other unknown sources too, the names may be theirs: said.
 */
function relatedOf(takers: OutsideTaker[]): NonNullable<GraphProblem['related']> {
  const byKustomization = new Map<FluxKustomization, { names: Set<string>; others: Set<string> }>();
  for (const { builder, entry, names } of takers) {
    const k = builder.kustomization;
    if (k.file === '') continue;
    const seen = byKustomization.get(k) ?? { names: new Set<string>(), others: new Set<string>() };
    for (const name of names) seen.names.add(name);
    for (const other of builder.vars!.outside)
      if (other.state === 'unknown' && (other.ref.kind !== entry.ref.kind || other.ref.name !== entry.ref.name)) seen.others.add(`${other.ref.kind} ${other.ref.name}`);
    byKustomization.set(k, seen);
  }
  return [...byKustomization].map(([k, { names, others }]) => {
    const or = others.size > 0 ? ` (or from ${[...others].join(', ')})` : '';
    return {
      file: k.file,
      range: k.range,
      message: names.size > 0 ? `Kustomization "${k.name}" uses ${[...names].sort().join(', ')} from it${or}` : `Kustomization "${k.name}" takes it and uses no name from it`,
    };
  });
}
