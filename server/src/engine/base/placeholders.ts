// The placeholder texts quick fixes write where only a person can give the
// reason. Each stays reported until someone replaces it (contract-reason-missing,
// ttl-convergence-note, directive-reason-missing), so each is written here
// once, named after where it goes.

/** The reason of a contract entry a fix adds: `ttl.noFinishTimeout`, `ttl.otherFinishTimeout`, `serviceAccounts.external`. */
export const CONTRACT_ENTRY_REASON_PLACEHOLDER = 'TODO write why this Job is an exception';

/** The reason of a `flux.variables` entry a fix adds (a name defined outside the repository). */
export const FLUX_VARIABLE_REASON_PLACEHOLDER = 'TODO say where this comes from';

/** The reason in the convergence note a fix inserts above `ttlSecondsAfterFinished`. */
export const CONVERGENCE_REASON_PLACEHOLDER = 'TODO say why a second run reaches the same state and does not fail';

/** The reason of a `flux-job-guard-disable-next-line` directive the "Disable … for this line" fix writes. */
export const DIRECTIVE_REASON_PLACEHOLDER = 'TODO say why this is intended';

/** A contract reason a quick fix wrote (`TODO …`) that nobody replaced yet. */
export function isPlaceholderReason(reason: string): boolean {
  return /^TODO\b/i.test(reason.trim());
}
