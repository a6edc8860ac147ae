/**
 * contract-invalid (error): the contract file is not valid YAML or does not fit the schema:
 * unknown keys (with a suggestion), wrong types, a non-integer or negative value, a `file:` that
 * is a glob, absolute or outside the repository, a malformed glob, an unknown rule id in `rules:`.
 * The message names the key.
 *
 * Why it matters: a key the engine does not understand changes nothing, silently; a typo in
 * `noFinishTimout` would leave every Job it meant to list unprotected.
 *
 * Example:
 *   ttl:
 *     requierd: 3600   # ← Unknown key `ttl.requierd` (did you mean `ttl.required`?)
 *
 * Fix: the quick fix renames a misspelt key. The schema messages are the contract loader's
 * (contract/load.ts, one per key it reads); the unreadable file's is here.
 */
import type { Finding } from '../base/types';
import { LineIndex } from '../yaml/line-index';
import { makeFinding } from './finding';
import type { Rule } from './rule';

export const contractInvalid: Rule = {
  meta: { id: 'contract-invalid', defaultSeverity: 'error', summary: 'The contract file is not valid YAML or does not fit the schema.' },
};

/** The contract file exists but cannot be read (too large, not text). */
export function unreadableContractFinding(path: string, reason: string): Finding {
  return makeFinding(contractInvalid.meta, path, new LineIndex(''), [0, 0], `The contract file cannot be read: ${reason}.`, null);
}
