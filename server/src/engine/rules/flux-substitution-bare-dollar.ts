/**
 * flux-substitution-bare-dollar (off by default): a lone `$` (not `$$`, not
 * `${`) in substituted text, for teams whose convention is to write every
 * shell `$` as `$$`. Flux passes it through unchanged. A `$(NAME)` that names
 * one of the container's variables is the kubelet's, not the shell's: the
 * kubelet replaces it before the shell runs. Fix: write `$$`.
 */
import { variableNamed } from '../k8s/container-env';
import { FLUX_BARE_DOLLAR } from './catalogue';
import { SubstitutionRule } from './substitution-rule';

export const fluxSubstitutionBareDollar: SubstitutionRule = {
  meta: FLUX_BARE_DOLLAR,
  check(occurrence, context) {
    if (occurrence.occurrence.kind !== 'bare-dollar' || !occurrence.shell || kubeletReference(occurrence)) return [];
    const message = 'A lone $ in text Flux substitutes: the team convention is to write every shell $ as $$.';
    return [context.finding(this.meta, occurrence.span, message, [context.fix('Write $$', [{ start: occurrence.span[0], end: occurrence.span[0], newText: '$' }], true)])];
  },
};

/** Whether the `$` starts a `$(NAME)` that the kubelet replaces with one of the container's variables. */
function kubeletReference({ kubelet, value, valueEnd }: Parameters<SubstitutionRule['check']>[0]): boolean {
  if (!kubelet || value[valueEnd] !== '(') return false;
  const close = value.indexOf(')', valueEnd);
  return close !== -1 && variableNamed(kubelet, value.slice(valueEnd + 1, close)) !== undefined;
}
