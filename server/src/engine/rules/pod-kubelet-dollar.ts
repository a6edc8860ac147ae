/**
 * pod-kubelet-dollar (warning): a `$$` in a container's command, args or env value that no Flux
 * substitution touches (no Flux at all, a Kustomization without postBuild, or a resource that
 * opts out), meant as the shell's PID or a PL/pgSQL quote. Any Kubernetes repository, Flux or not:
 * it also sees resources no Flux Kustomization builds where the resource rules do (the contract's
 * `jobs.include`, or no Flux model), and patch files whose text ends up in a container.
 *
 * Why it matters: before the process starts, the kubelet expands the container's command, args
 * and env: `$(NAME)` becomes the variable, and `$$` becomes `$`. `echo $$ > /run/app.pid` runs as
 * `echo $ > /run/app.pid`. A `$$` in a shell comment is never read.
 *
 * Example:
 *   command: [/bin/sh, -c]
 *   args: ["echo $$ > /run/app.pid && exec nginx"]   # ← the shell gets `echo $ > /run/app.pid`
 *
 * Fix: write `$$$$` (the kubelet turns it into `$$`).
 */
import type { Rule } from './rule';
import { loneDollar, loneDollarMessage } from './support/dollar-run';

export const podKubeletDollar: Rule = {
  meta: { id: 'pod-kubelet-dollar', defaultSeverity: 'warning', summary: "A $$ in a container's command, args or env that the kubelet turns into a lone $ before the process starts." },
  check: {
    notSubstituted(occurrence, context) {
      if (!occurrence.kubelet) return [];
      const found = loneDollar(occurrence, context);
      if (!found) return [];
      const steps = 'The kubelet turns $$ into $ in a container command, args and env before the process starts';
      return [context.finding(podKubeletDollar.meta, found.span, loneDollarMessage(steps, found, occurrence, context), found.fix ? [found.fix] : [])];
    },
  },
};
