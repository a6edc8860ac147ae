/**
 * flux-no-root (info): the model could not tell exactly where Flux starts applying this
 * repository (no `flux bootstrap` gotk-sync.yaml, no FluxInstance sync, no `flux.roots` in the
 * contract) and took every Kustomization nothing else builds as a root; or it had to assume
 * which folder an artifact (an OCI repository, a sub-folder source) holds.
 *
 * Why it matters: a finding is only true if Flux, starting where it starts, applies that file
 * with those variables. A guessed root may check files Flux never applies, or miss some.
 *
 * Example: a repository of Kustomizations with no `clusters/*\/flux-system/gotk-sync.yaml`:
 * "No root found: … Every Kustomization that nothing else here builds is taken as a root".
 *
 * Fix: name the folders Flux starts from in `flux.roots`, and what an artifact holds in
 * `flux.sources`. The model reports it while choosing roots (flux/model/root-choice.ts,
 * flux/model/roots.ts), with its message; this rule makes the finding.
 */
import type { Rule } from './rule';

export const fluxNoRoot: Rule = {
  meta: {
    id: 'flux-no-root',
    defaultSeverity: 'info',
    summary: 'The model could not tell exactly where Flux starts applying this repository (no bootstrap, FluxInstance or flux.roots), or had to assume which folder an artifact holds.',
  },
  model: { problems: ['assumed-root'] },
};
