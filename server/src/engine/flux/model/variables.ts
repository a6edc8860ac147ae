// The variables stage: the names a Kustomization's postBuild defines, with
// their values and where they are written, or why some cannot be known.
// Sources, lowest precedence first: what a webhook adds to every
// Kustomization (the contract's `flux.substituteFrom`, a known webhook in the
// repository), then each `substituteFrom` entry in order, then inline
// `substitute`, which wins. A reference that resolves to no object here, or to
// a producer whose keys the repository does not show (an ExternalSecret with
// `dataFrom`), is an outside source: the contract's `flux.variables` declares
// its names (a `from` item), silences it (a `from` item without names), or
// the old list of `{name}` items stands for every outside source no `from`
// item covers. An optional reference that nothing creates is no unknown: Flux
// goes on without it, so a name only it could define is blanked.
import type { Located, PostBuild, SubstituteFromRef, VariableSource } from '../facts/model';
import { validateVarName } from '../substitution/envsubst/template';

export interface DefinedVariable extends Located<string> {
  /** Where the value comes from, for messages: `substitute of Kustomization "apps"`, `ExternalSecret cluster-secrets (data[0].secretKey)`. */
  from: string;
  /** The value lives outside the repository or is a Secret's: never shown. */
  secret: boolean;
  /** Declared by the contract: the outside reference whose `from` item lists it, or 'legacy' for a `{name}` item. */
  declared?: SubstituteFromRef | 'legacy';
}

/** A substituteFrom object whose names the repository cannot show, and why. */
export interface UnknownNames {
  ref: SubstituteFromRef;
  why: string;
}

/**
 * What the model knows of an outside reference: `unknown` (reported, uses unchecked), `silenced`
 * (a `from` item without names: unchecked, not reported), `declared` (a `from` item lists its
 * names), `legacy` (the `{name}` items of flux.variables stand for it), `optional-absent` (optional,
 * and nothing creates it: Flux substitutes without it).
 */
export type OutsideState = 'unknown' | 'silenced' | 'declared' | 'legacy' | 'optional-absent';

export interface OutsideRef {
  ref: SubstituteFromRef;
  /** The namespace Flux reads it in (the Kustomization's), null when the file does not say. */
  namespace: string | null;
  /** The in-repository object whose keys are unknowable (an ExternalSecret with dataFrom), when there is one. */
  producer: VariableSource | null;
  why: string;
  state: OutsideState;
  /** The contract's `from` item for it. */
  declaration: DeclaredSource | null;
}

export interface VarSet {
  defined: Map<string, DefinedVariable>;
  /** The outside references whose names stay unknown (unknown or silenced): their uses are not checked. */
  unknown: UnknownNames[];
  /** Every outside reference, whatever the contract says of it. */
  outside: OutsideRef[];
  /** The objects its substituteFrom resolved to, in order (where a quick fix can define a name). */
  sources: VariableSource[];
  /** Whether Flux substitutes at all (some variable resolves, an unknown source may, or strategy Always). */
  substitutes: boolean;
}

/** A name the contract says is defined outside the repository (the old `{name, reason}` item). */
export interface ExternalVariable {
  name: string;
  reason: string;
  file: string;
  span: [number, number];
  /** The whole contract entry, for a fix that removes it. */
  item?: [number, number];
}

/** A `flux.variables` item with `from`: one outside source, with the names it defines (null: unknown on purpose). */
export interface DeclaredSource {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string | null;
  names: Array<{ name: string; span: [number, number] }> | null;
  reason: string;
  file: string;
  /** The `from` value, and the whole item. */
  span: [number, number];
  item: [number, number];
}

/** Whether a contract `from` item names the object a reference reads (in the Kustomization's namespace). */
export function declares(declaration: Pick<DeclaredSource, 'kind' | 'name' | 'namespace'>, ref: SubstituteFromRef, namespace: string | null): boolean {
  return declaration.kind === ref.kind && declaration.name === ref.name && (declaration.namespace === null || namespace === null || declaration.namespace === namespace);
}

export interface VariableContext {
  /** The objects named kind/name the Kustomization can read, best first (live in its world, nearest). */
  candidates(ref: SubstituteFromRef): VariableSource[];
  /** `flux.variables` items of the old form, or null when the contract does not say which names come from outside. */
  external: ExternalVariable[] | null;
  /** `flux.variables` items with `from`. */
  declared?: readonly DeclaredSource[];
  /** The Kustomization's namespace (where Flux reads its substituteFrom objects). */
  namespace?: string | null;
  /** Reports a name Flux rejects (`app.conf`). */
  invalidName(name: string, located: Located<string>, error: string): void;
}

export function resolveVars(owner: string, postBuild: PostBuild, added: SubstituteFromRef[], context: VariableContext): VarSet {
  const defined = new Map<string, DefinedVariable>();
  const outside: OutsideRef[] = [];
  const sources: VariableSource[] = [];
  const namespace = context.namespace ?? null;
  for (const ref of [...added, ...postBuild.substituteFrom]) {
    // An object written here first; a Secret a custom resource only names, where there is none.
    const candidates = context.candidates(ref);
    const source = candidates.find((candidate) => !candidate.mention) ?? candidates[0];
    if (!source || source.unknownKeys) {
      const declaration = context.declared?.find((d) => declares(d, ref, namespace)) ?? null;
      const state: OutsideState = declaration ? (declaration.names ? 'declared' : 'silenced') : context.external !== null ? 'legacy' : !source && ref.optional ? 'optional-absent' : 'unknown';
      outside.push({ ref, namespace, producer: source ?? null, why: source?.unknownKeys ?? `no ${ref.kind} ${ref.name} is in the repository`, state, declaration });
      if (source) {
        sources.push(source);
        for (const [name, variable] of definedBy(source, context)) defined.set(name, variable);
      }
      // The names a `from` item lists are the object's (values unknown), at its place in the order.
      for (const { name, span } of declaration?.names ?? [])
        defined.set(name, { value: '', file: declaration!.file, span, from: `${ref.kind} ${ref.name} (flux.variables: ${declaration!.reason})`, secret: true, declared: ref });
      continue;
    }
    sources.push(source);
    for (const [name, variable] of definedBy(source, context)) defined.set(name, variable);
  }
  for (const [name, located] of postBuild.substitute) {
    checkName(name, located, context);
    defined.set(name, { ...located, from: `substitute of Kustomization "${owner}"`, secret: false });
  }
  // Optional and absent: Flux substitutes without it only where some other variable resolves; else it substitutes nothing then, and what it defines when present is unknown.
  for (const entry of outside) if (entry.state === 'optional-absent' && !postBuild.always && defined.size === 0) entry.state = 'unknown';
  const substitutes = postBuild.always || defined.size > 0 || outside.length > 0;
  // The old `{name}` items stand for every outside source no `from` item covers (and, as before, where there is none at all).
  if (context.external !== null && (outside.length === 0 || outside.some((entry) => entry.state === 'legacy'))) {
    for (const variable of context.external) {
      if (!defined.has(variable.name))
        defined.set(variable.name, { value: '', file: variable.file, span: variable.span, from: `flux.variables (${variable.reason})`, secret: true, declared: 'legacy' });
    }
  }
  const unknown = outside.filter((entry) => entry.state === 'unknown' || entry.state === 'silenced').map(({ ref, why }) => ({ ref, why }));
  return { defined, unknown, outside, sources, substitutes };
}

/** A source's entries as defined variables, made once per source (thousands of Kustomizations read one cluster-settings). */
const definedBySource = new WeakMap<VariableSource, Array<[string, DefinedVariable]>>();

function definedBy(source: VariableSource, context: VariableContext): Array<[string, DefinedVariable]> {
  let variables = definedBySource.get(source);
  if (!variables) {
    variables = [];
    for (const [name, located] of source.entries) {
      checkName(name, located, context); // a name Flux rejects is reported once, where it is written
      // A producer's key says where it is written: `ExternalSecret cluster-secrets (data[2].secretKey)`.
      const from = source.producer ? `${source.producer}${located.origin ? ` (${located.origin})` : ''}` : `${source.kind} ${source.name}`;
      variables.push([name, { value: located.value, file: located.file, span: located.span, from, secret: source.secret }]);
    }
    definedBySource.set(source, variables);
  }
  return variables;
}

function checkName(name: string, located: Located<string>, context: VariableContext): void {
  const error = validateVarName(name);
  if (error) context.invalidName(name, located, error);
}

/**
 * Several clusters in one repository each keep a `cluster-settings`: the one
 * that shares the longest folder prefix with the Kustomization is its own.
 */
export function byCloseness<T extends { file: string }>(file: string, candidates: T[]): T[] {
  const segments = file.split('/');
  const shared = (other: string) => {
    const parts = other.split('/');
    let n = 0;
    while (n < parts.length - 1 && n < segments.length - 1 && parts[n] === segments[n]) n++;
    return n;
  };
  // Each candidate's prefix once, not at every comparison (a corpus names one GitRepository in fifty repositories).
  const ranked = candidates.map((candidate) => ({ candidate, shared: shared(candidate.file) }));
  return ranked.sort((a, b) => b.shared - a.shared).map(({ candidate }) => candidate);
}
