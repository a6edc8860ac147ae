// The words the kustomize model answers in: where something is written, and
// why a build fails.

/** [start, end) offsets in a file. */
export type Span = [number, number];

/** A string a kustomization file writes (a resource path, a literal), with where it is written. */
export interface Written {
  value: string;
  span: Span;
}

export type FailureReason =
  /** The folder (or a folder it builds) has no kustomization file, or more than one. */
  | 'no-kustomization'
  | 'multiple-kustomization-files'
  /** The kustomization file is no valid YAML, has an unknown field or a value of the wrong type, or is empty. */
  | 'invalid-kustomization'
  | 'empty-kustomization'
  /** A `resources:` entry that is neither a file nor a folder; a `components:` entry that is no folder. */
  | 'missing-resource'
  | 'missing-component'
  /** A Component folder under `resources:`, or a Kustomization folder under `components:`. */
  | 'component-as-resource'
  | 'kustomization-as-component'
  /** A folder that builds itself again (a cycle of `resources:`). */
  | 'cycle'
  /** A resource file that is no valid YAML, or a document without kind or name. */
  | 'invalid-resource'
  /** Two resources with the same id in one build (or after the namespace transformer). */
  | 'duplicate-id'
  /** A patch file that is missing or is neither a strategic-merge nor a JSON 6902 patch. */
  | 'invalid-patch'
  /** A strategic-merge patch without target whose id matches no resource, or several. */
  | 'patch-target-missing'
  /** A JSON 6902 operation that does not apply (remove of a missing path, a failed test). */
  | 'patch-failed'
  /** A generator input that is missing, a malformed literal or env line, a key written twice, merge without a base. */
  | 'generator';

export interface KustomizeFailure {
  reason: FailureReason;
  /** kustomize's own words, as near as the model can say them. */
  message: string;
  /** The file of the offending entry (a kustomization file, a resource file). */
  file: string;
  span: Span | null;
  /** The path kustomize did not find (a resource, component, patch or generator input), where that is the failure. */
  missing?: string;
}

export class BuildError extends Error {
  constructor(readonly failure: KustomizeFailure) {
    super(failure.message);
  }
}

export function fail(reason: FailureReason, message: string, file: string, span: Span | null, missing?: string | null): never {
  throw new BuildError(missing ? { reason, message, file, span, missing } : { reason, message, file, span });
}
