// Metadata of every rule the engine can report, for the contract's `rules:`
// map, SARIF descriptors and documentation links. Rules with a check module
// re-use these objects, so an id is written in exactly one place.
import type { RuleMeta } from '../base/types';

const meta = (id: string, defaultSeverity: RuleMeta['defaultSeverity'], summary: string): RuleMeta => ({ id, defaultSeverity, summary });

export const YAML_SYNTAX = meta('yaml-syntax', 'error', 'A file under jobs.include is not valid YAML.');
export const FILE_SKIPPED = meta('file-skipped', 'info', 'A file was not analysed: larger than the size limit, or not text.');

export const CONTRACT_FILE_MISSING = meta('contract-file-missing', 'error', 'A contract entry names a file that does not exist.');
export const CONTRACT_NO_JOB = meta('contract-no-job', 'error', 'A contract entry names a file with no Job, or a Job that is not in the file.');
export const CONTRACT_STALE = meta('contract-stale', 'error', 'A contract entry no longer matches the manifest.');
export const CONTRACT_DUPLICATE = meta('contract-duplicate', 'error', 'The same Job is covered twice by the contract.');
export const CONTRACT_REASON_MISSING = meta('contract-reason-missing', 'error', 'A contract entry has no reason.');
export const CONTRACT_INVALID = meta('contract-invalid', 'error', 'The contract file is not valid YAML or does not fit the schema.');
export const CONTRACT_NO_JOBS = meta('contract-no-jobs', 'error', 'The audit found zero Job resources: a broken search must not look like success.');

export const FLUX_UNDEFINED = meta('flux-substitution-undefined', 'error', 'A ${NAME} that no Flux variable defines.');
export const FLUX_SYNTAX = meta('flux-substitution-syntax', 'error', "${ text that Flux's substitution rejects: the whole Kustomization fails to build.");
export const FLUX_DEFAULT = meta('flux-substitution-default', 'warning', 'A default operator Flux evaluates at build time, not the shell.');
export const FLUX_PID = meta('flux-substitution-pid', 'warning', 'A $$ meant as the shell PID reaches the shell as a lone $.');
export const FLUX_NEEDLESS_ESCAPE = meta('flux-substitution-needless-escape', 'warning', 'A $$ in a resource no substitution unescapes: the shell sees its PID.');
export const FLUX_BARE_DOLLAR = meta('flux-substitution-bare-dollar', 'off', 'A lone $ in substituted text (for teams that write every shell $ as $$).');

export const POD_TMP_HANDOFF = meta('pod-tmp-handoff', 'warning', 'Containers of one pod hand a file over /tmp, which each container has its own of.');
export const POD_SERVICE_ACCOUNT_UNDECLARED = meta(
  'pod-service-account-undeclared',
  'warning',
  'A pod runs as a ServiceAccount nothing in the repository declares (info where a chart or an operator beside it probably creates it).',
);
export const POD_KUBELET_DOLLAR = meta('pod-kubelet-dollar', 'warning', "A $$ in a container's command, args or env that the kubelet turns into a lone $ before the process starts.");
export const JOB_ARGO_TEMPLATE = meta('job-argo-template', 'error', 'Argo Workflows template syntax in a Job, where it means nothing.');
export const TTL_SHORTER_THAN_INTERVAL = meta('ttl-shorter-than-interval', 'warning', 'A TTL shorter than the Kustomization interval re-runs the Job at almost every reconcile.');
export const JOB_IMMUTABLE_TEMPLATE = meta('job-immutable-template', 'warning', 'A changed pod template under the same Job name: Flux\'s apply fails with "field is immutable".');
export const FLUX_NO_ROOT = meta(
  'flux-no-root',
  'info',
  'The model could not tell exactly where Flux starts applying this repository (no bootstrap, FluxInstance or flux.roots), or had to assume which folder an artifact holds.',
);
export const FLUX_VARIABLES_UNKNOWN = meta(
  'flux-variables-unknown',
  'info',
  'An outside source: Kustomizations substitute from a ConfigMap or Secret the repository cannot show, and use names nothing here defines. Said once per source: declare its names in flux.variables.',
);
export const KUSTOMIZE_REFERENCE = meta('kustomize-reference', 'warning', 'A path a Flux Kustomization or kustomization.yaml references does not exist, leaves the repository, or forms a cycle.');
export const DIRECTIVE_UNUSED = meta('directive-unused', 'warning', 'A flux-job-guard-disable-next-line comment silences nothing: no such finding on the next line, or no such rule.');
export const DIRECTIVE_REASON_MISSING = meta('directive-reason-missing', 'warning', 'A flux-job-guard-disable-next-line comment gives no reason after `--`.');
