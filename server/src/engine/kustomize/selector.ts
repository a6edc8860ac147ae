// Which resources a patch `target` selects (resWrangler.Select): group,
// version, kind, name and namespace are anchored regular expressions (an
// empty one matches anything); name and namespace match the original id or
// the current one; labelSelector and annotationSelector are Kubernetes label
// selectors over the resource's current labels and annotations.
import { matchesSelector, parseLabelSelector, Requirement } from '../flux/facts/label-selector';
import { anchoredPattern, type AnchoredPattern } from '../base/anchored-pattern';
import type { Selector } from './kustomization';
import { currentId, effectiveNamespace, groupVersion, originalId, Res } from './resource';

export interface CompiledSelector {
  matches(res: Res): boolean;
}

/** Compiles a target; a string naming the invalid part when kustomize would refuse it. */
export function compileSelector(selector: Selector): CompiledSelector | string {
  const patterns: Record<'group' | 'version' | 'kind' | 'name' | 'namespace', AnchoredPattern | null> = { group: null, version: null, kind: null, name: null, namespace: null };
  for (const key of Object.keys(patterns) as Array<keyof typeof patterns>) {
    if (selector[key] === '') continue;
    const pattern = anchoredPattern(selector[key]);
    if (!pattern) return `error parsing regexp: ${selector[key]}`;
    patterns[key] = pattern;
  }
  const labels = selector.labelSelector === '' ? [] : parseLabelSelector(selector.labelSelector);
  if (labels === null) return `unable to parse requirement: ${selector.labelSelector}`;
  const annotations = selector.annotationSelector === '' ? [] : parseLabelSelector(selector.annotationSelector);
  if (annotations === null) return `unable to parse requirement: ${selector.annotationSelector}`;
  return { matches: (res) => selected(patterns, labels, annotations, res) };
}

function selected(patterns: Record<string, AnchoredPattern | null>, labels: Requirement[], annotations: Requirement[], res: Res): boolean {
  const original = originalId(res);
  const current = currentId(res);
  const test = (pattern: AnchoredPattern | null, ...values: string[]) => pattern === null || values.some((value) => pattern.test(value));
  if (!test(patterns.namespace, effectiveNamespace(original), effectiveNamespace(current))) return false;
  if (!test(patterns.name, original.name, current.name)) return false;
  const { group, version } = groupVersion(res.apiVersion);
  if (!test(patterns.group, group) || !test(patterns.version, version) || !test(patterns.kind, res.kind)) return false;
  return matchesSelector(labels, Object.fromEntries(res.labels ?? [])) && matchesSelector(annotations, Object.fromEntries(res.annotations));
}
