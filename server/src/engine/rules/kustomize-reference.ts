/**
 * kustomize-reference (warning): a path that a live Flux Kustomization (`spec.path`,
 * `spec.components`) or a `kustomization.yaml` it builds (`resources`, `components`, generator
 * `files:`/`envs:`) references does not exist in the source artifact (or an ignore pattern leaves
 * it out), leaves the repository, is a folder without a kustomization file, or closes a cycle.
 *
 * Why it matters: Flux fails to build the Kustomization, and nothing it would apply reaches the
 * cluster; the model stops following the reference there. Where kustomize's own build of what Flux
 * builds fails (flux/model/kustomize-view.ts: a missing entry, a Component under `resources:`, a
 * duplicate id), the finding is an error, once per failing entry, naming the Kustomizations that
 * fail; a `spec.path` above the source root that Flux clamps and builds is an info.
 *
 * Example:
 *   resources:
 *     - ../base/configmap.yaml   # ← the file was renamed
 *
 * Fix: correct the path. The build stage reports it with its message (flux/model/build.ts);
 * this rule makes the finding.
 */
import type { Rule } from './rule';

export const kustomizeReference: Rule = {
  meta: { id: 'kustomize-reference', defaultSeverity: 'warning', summary: 'A path a Flux Kustomization or kustomization.yaml references does not exist, leaves the repository, or forms a cycle.' },
  model: { problems: ['broken-reference'] },
};
