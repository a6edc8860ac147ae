/**
 * helm-values-from-missing (error): a HelmRelease that a live Flux Kustomization applies reads an
 * object that nothing its world applies creates: a `spec.valuesFrom` entry (ConfigMap or Secret,
 * not `optional: true`) in the release's namespace, or its chart's source, `spec.chartRef`
 * (OCIRepository, HelmChart) or `spec.chart.spec.sourceRef` (HelmRepository, GitRepository,
 * Bucket; namespace defaulting to the release's). What the world creates is kustomize's output
 * (a generated ConfigMap carries its hash suffix, which kustomize writes into no valuesFrom unless
 * a `configurations:` nameReference says so), what producers make (an ExternalSecret's Secret, a
 * SealedSecret, a SOPS Secret), what known operators make for their custom resources (an
 * ObjectBucketClaim's ConfigMap and Secret, a CloudNativePG Cluster's `<name>-app`), what a
 * ResourceSet's template makes, what another release's chart may make (named after it), and Flux's
 * bootstrap sources; a ConfigMap or Secret the contract's `flux.variables` declares comes from
 * outside. Not reported where the model cannot tell: a name with a variable nobody here fills, a
 * build kustomize's model does not answer, a release a patch may change, a suspended release, a
 * name no file here declares in a world that also builds another repository.
 *
 * Why it matters: helm-controller composes the values and gets the chart before it installs; an
 * object it cannot find fails the release (its values cannot be composed, its chart's source is not
 * found), and it never installs or upgrades. A running cluster may hide it (an object left from an
 * earlier layout, a Secret made by hand); a fresh one does not.
 *
 * Example (wrong, then right):
 *   configMapGenerator:
 *     - name: app-values              # ← made as app-values-<hash>; valuesFrom names app-values
 *       files: [values.yaml]
 *   configMapGenerator:
 *     - name: app-values
 *       files: [values.yaml]
 *       options:
 *         disableNameSuffixHash: true
 *
 * Fix: create the object where the release is (or name the one meant: the fix replaces a near
 * name); for a generated one, turn the hash suffix off or add a nameReference configuration; for a
 * Secret made outside the repository (by hand, a bootstrap script), declare it in the contract's
 * `flux.variables` as a `from` item without names (quick fix), so the record says where it comes
 * from. Error by default: the release cannot install on a cluster that does not hold the object,
 * what the model cannot tell is left unreported, and a Secret made by hand is declared once, with
 * its reason (as a Job's contract entry is). The model finds them (flux/model/helm-refs.ts); this rule makes
 * the finding and its fixes.
 */
import { declareObjectFix } from '../contract/variables-edit';
import type { Rule } from './rule';
import { replaceFixes } from './support/replace-fix';

export const helmValuesFromMissing: Rule = {
  meta: {
    id: 'helm-values-from-missing',
    defaultSeverity: 'error',
    summary: "A HelmRelease's valuesFrom, chartRef or chart sourceRef names an object nothing its world creates: helm-controller never installs it.",
  },
  model: {
    problems: ['helm-ref-missing'],
    fixes: (problem, contract, lines) => {
      const declare = problem.declare ? declareObjectFix(contract, problem.declare) : null;
      return [...replaceFixes(problem, lines), ...(declare ? [declare] : [])];
    },
  },
};
