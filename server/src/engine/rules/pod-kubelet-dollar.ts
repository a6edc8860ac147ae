/**
 * pod-kubelet-dollar: a `$$` in a container's command, args or env value that
 * no Flux substitution touches (no Flux at all, a Kustomization without
 * postBuild, or a resource that opts out), meant as the shell's PID or a
 * PL/pgSQL quote. The kubelet turns `$$` into `$` before the process starts,
 * so `echo $$ > /run/app.pid` runs as `echo $ > /run/app.pid`. Any Kubernetes
 * repository, Flux or not. Fix: write `$$$$` (the kubelet turns it into `$$`).
 */
import { POD_KUBELET_DOLLAR } from './catalogue';
import { SubstitutionRule } from './substitution-rule';
import { loneDollar, loneDollarMessage } from './support/dollar-run';

export const podKubeletDollar: SubstitutionRule = {
  meta: POD_KUBELET_DOLLAR,
  check(occurrence, context) {
    if (!occurrence.kubelet) return [];
    const found = loneDollar(occurrence, context);
    if (!found) return [];
    const steps = 'The kubelet turns $$ into $ in a container command, args and env before the process starts';
    return [context.finding(this.meta, found.span, loneDollarMessage(steps, found, occurrence, context), found.fix ? [found.fix] : [])];
  },
};
