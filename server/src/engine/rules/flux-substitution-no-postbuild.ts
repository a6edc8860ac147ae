/**
 * flux-substitution-no-postbuild (warning): a `${NAME}` in text that live Kustomizations build
 * without a postBuild, where NAME is a variable other Kustomizations of the same world substitute:
 * nothing replaces it, so the resource gets the text `${NAME}` itself.
 *
 * Why it matters: a HelmRelease value `replicas: ${COREDNS_REPLICAS}`, a child Kustomization's
 * `path: ./apps/${CLUSTER}` or a host name `${SECRET_DOMAIN}` reaches the cluster as written, and
 * the chart, the controller or the ingress get a name nothing resolves. It happens when a
 * Kustomization is copied without the `postBuild` its siblings carry, or a folder moves under a
 * Kustomization that has none.
 *
 * Reported only where the text is meant for Flux: a one-line value of a resource (not a script a
 * shell runs, not a container's command, args or env, which the kubelet and the shell read, not a
 * block of text such as a config file an app expands itself, not a Grafana dashboard), not opted
 * out of substitution, and NAME defined by a sibling of the same world.
 *
 * Example (wrong, then right):
 *   # Kustomization coredns: no postBuild      # siblings: substituteFrom cluster-settings
 *   replicas: ${COREDNS_REPLICAS}
 *   # Kustomization coredns:
 *   postBuild:
 *     substituteFrom:
 *       - kind: ConfigMap
 *         name: cluster-settings
 *
 * Fix: give the Kustomization the postBuild its siblings use (the fix writes the
 * `substituteFrom` of a sibling whose sources define the name).
 */
import type { Rule } from './rule';
import type { Fix } from '../base/types';
import type { Builder } from '../flux/model/world';
import type { SubstituteFromRef } from '../flux/facts/model';
import { NAME_PLACEHOLDER } from '../flux/facts/model';
import { kustomizationName, kustomizationNames, substitutedBy } from './support/substitution';

export const fluxSubstitutionNoPostbuild: Rule = {
  meta: {
    id: 'flux-substitution-no-postbuild',
    defaultSeverity: 'warning',
    summary: 'A ${NAME} that the Kustomizations building it never substitute (they have no postBuild), though their siblings define NAME.',
  },
  check: {
    notSubstituted(occurrence, context) {
      const { occurrence: found, field } = occurrence;
      if (found.kind !== 'expression' || found.name === null || found.nested.length > 0) return [];
      if (occurrence.shell || occurrence.kubelet || context.dashboard || !field || field.key || field.value.includes('\n')) return [];
      const building = context.plain.filter((builder) => !context.optedOut?.includes(builder));
      if (building.length === 0) return [];
      const siblings = context.definedElsewhere(found.name);
      if (siblings.length === 0) return [];
      const written = occurrence.value.slice(occurrence.valueStart, occurrence.valueEnd);
      const message =
        `${written} is never substituted: Kustomization ${kustomizationNames(building)} ${building.length === 1 ? 'builds' : 'build'} this file without a postBuild, so the resource gets the text ${written}. ` +
        `${found.name} is a variable of Kustomization ${kustomizationNames(siblings.slice(0, 3))}${siblings.length > 3 ? ` and ${siblings.length - 3} more` : ''}: give ${building.length === 1 ? 'it' : 'them'} the same postBuild.`;
      const finding = context.finding(fluxSubstitutionNoPostbuild.meta, occurrence.span, message, postBuildFixes(found.name, building, siblings));
      finding.related = substitutedBy(building, 'builds this file without a postBuild');
      return [finding];
    },
  },
};

/**
 * For each Kustomization without postBuild that can take one, a fix that writes the
 * `substituteFrom` of the first sibling whose sources (not its inline `substitute`) define the name.
 */
function postBuildFixes(name: string, building: Builder[], siblings: readonly Builder[]): Fix[] {
  const model = siblings.find((sibling) => sibling.postBuild && !sibling.postBuild.substitute.has(name) && sibling.postBuild.substituteFrom.length > 0);
  if (!model) return [];
  const fixes: Fix[] = [];
  for (const builder of building) {
    const template = builder.kustomization.addPostBuild;
    if (!template || builder.postBuild || fixes.some((fix) => fix.edits[0].file === builder.kustomization.file && fix.edits[0].range.start.line === template.range.start.line)) continue;
    const line = template.newText.slice(template.newText.lastIndexOf('\n') + 1);
    const indent = line.length - line.trimStart().length;
    const body = '\n' + substituteFromYaml(model.postBuild!.substituteFrom, indent + 2);
    fixes.push({
      title: `Give Kustomization ${kustomizationName(builder)} the postBuild of ${kustomizationName(model)} (substituteFrom ${model.postBuild!.substituteFrom.map((ref) => `${ref.kind} ${ref.name}`).join(', ')})`,
      edits: [{ file: builder.kustomization.file, range: template.range, newText: template.newText.replace(` ${NAME_PLACEHOLDER}`, body).replace(NAME_PLACEHOLDER, body) }],
    });
  }
  return fixes;
}

function substituteFromYaml(refs: SubstituteFromRef[], indent: number): string {
  const pad = ' '.repeat(indent);
  const lines = [`${pad}substituteFrom:`];
  for (const ref of refs) {
    lines.push(`${pad}  - kind: ${ref.kind}`, `${pad}    name: ${ref.name}`);
    if (ref.optional) lines.push(`${pad}    optional: true`);
  }
  return lines.join('\n');
}
