/**
 * flux-variables-unknown (info): a Kustomization takes variables from an object the repository
 * cannot show (a cluster Secret, an ExternalSecret filled with `dataFrom`, what a webhook adds)
 * and its files use names defined nowhere here. Reported once per Kustomization (on its
 * `substituteFrom` entry, or its `kind`), listing the names.
 *
 * Why it matters: any of those names may come from the object, so their uses cannot be judged one
 * by one (flux-substitution-undefined stays silent on them); declared, every use is checked.
 *
 * Example:
 *   postBuild:
 *     substituteFrom:
 *       - kind: Secret
 *         name: cluster-secrets   # ← not in the repository; the files use ${DOMAIN}, ${TZ}
 *
 * Fix: declare the names in the contract's `flux.variables` (quick fix, with a reason to fill
 * in). The model finds the names (flux/model/unknown-names.ts); this rule makes the finding
 * and its fix.
 */
import type { Fix } from '../base/types';
import { FLUX_VARIABLE_REASON_PLACEHOLDER } from '../base/placeholders';
import { contractListEdit } from '../contract/edit';
import type { Rule } from './rule';

export const fluxVariablesUnknown: Rule = {
  meta: {
    id: 'flux-variables-unknown',
    defaultSeverity: 'info',
    summary: 'A Kustomization takes variables from an object the repository cannot show, and its files use names defined nowhere here: declare them in flux.variables.',
  },
  model: {
    problems: ['unknown-names'],
    fixes(problem, contract): Fix[] {
      if (!problem.names) return [];
      const items = problem.names.map((name) => [`name: ${name}`, `reason: ${FLUX_VARIABLE_REASON_PLACEHOLDER}`]);
      const edit = contractListEdit(contract, ['flux', 'variables'], items);
      return edit ? [{ title: `Declare ${problem.names.length} name(s) in the contract's flux.variables`, edits: [edit] }] : [];
    },
  },
};
