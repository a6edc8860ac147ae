/**
 * flux-variables-unknown (info): an outside source. Kustomizations substitute from a ConfigMap or
 * Secret the repository cannot show (no such object here, an ExternalSecret filled with `dataFrom`,
 * an operator's Secret whose keys come from its store, what a webhook adds), and their files use
 * names nothing here defines. Reported once per source, not per Kustomization: at the producer's
 * `dataFrom` where the repository has one, else at the first reference to it; every Kustomization
 * that takes it is a related location, with the names it uses from it.
 *
 * Why it matters: any of those names may come from the source, so their uses cannot be judged one
 * by one (flux-substitution-undefined stays silent on them); declared, every use is checked.
 *
 * Example:
 *   postBuild:
 *     substituteFrom:
 *       - kind: Secret
 *         name: cluster-secrets   # ← not in the repository; the files use ${DOMAIN}, ${TZ}
 *
 * Fix: declare the source in the contract's `flux.variables` with every name the repository uses
 * from it, in every Kustomization and cluster (preferred, with a reason to fill in), so the next
 * audit has no new error; or declare it without names (its uses stay unchecked). The model finds
 * the sources and the names (flux/model/outside-sources.ts, outside-findings.ts); this rule makes
 * the finding and its fixes (contract/variables-edit.ts writes the edits).
 */
import { declareSourceFixes } from '../contract/variables-edit';
import type { Rule } from './rule';

export const fluxVariablesUnknown: Rule = {
  meta: {
    id: 'flux-variables-unknown',
    defaultSeverity: 'info',
    summary:
      'An outside source: Kustomizations substitute from a ConfigMap or Secret the repository cannot show, and use names nothing here defines. Said once per source: declare its names in flux.variables.',
  },
  model: {
    problems: ['outside-source'],
    fixes: (problem, contract) => (problem.declare ? declareSourceFixes(contract, problem.declare) : []),
  },
};
