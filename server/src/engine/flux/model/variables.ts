// The variables stage: the names a Kustomization's postBuild defines, with
// their values and where they are written, or why some cannot be known.
// Sources, lowest precedence first: what a webhook adds to every
// Kustomization (the contract's `flux.substituteFrom`, a known webhook in the
// repository), then each `substituteFrom` entry in order, then inline
// `substitute`, which wins. Names a secret store holds are unknown unless the
// contract's `flux.variables` declares them.
import type { Located, PostBuild, SubstituteFromRef, VariableSource } from '../facts/model';
import { validateVarName } from '../substitution/envsubst/template';

export interface DefinedVariable extends Located<string> {
  /** Where the value comes from, for messages: `substitute of Kustomization "apps"`, `ConfigMap cluster-settings`. */
  from: string;
  /** The value lives outside the repository or is a Secret's: never shown. */
  secret: boolean;
}

/** A substituteFrom object whose names the repository cannot show, and why. */
export interface UnknownNames {
  ref: SubstituteFromRef;
  why: string;
}

export interface VarSet {
  defined: Map<string, DefinedVariable>;
  unknown: UnknownNames[];
  /** The objects its substituteFrom resolved to, in order (where a quick fix can define a name). */
  sources: VariableSource[];
  /** Whether Flux substitutes at all (some variable resolves, an unknown source may, or strategy Always). */
  substitutes: boolean;
}

/** A name the contract says is defined outside the repository. */
export interface ExternalVariable {
  name: string;
  reason: string;
  file: string;
  span: [number, number];
  /** The whole contract entry, for a fix that removes it. */
  item?: [number, number];
}

export interface VariableContext {
  /** The objects named kind/name the Kustomization can read, best first (live in its world, nearest). */
  candidates(ref: SubstituteFromRef): VariableSource[];
  /** `flux.variables`, or null when the contract does not declare the names from outside. */
  external: ExternalVariable[] | null;
  /** Reports a name Flux rejects (`app.conf`). */
  invalidName(name: string, located: Located<string>, error: string): void;
}

export function resolveVars(owner: string, postBuild: PostBuild, added: SubstituteFromRef[], context: VariableContext): VarSet {
  const defined = new Map<string, DefinedVariable>();
  const unknown: UnknownNames[] = [];
  const sources: VariableSource[] = [];
  for (const ref of [...added, ...postBuild.substituteFrom]) {
    const source = context.candidates(ref)[0];
    if (!source || source.unknownKeys) {
      unknown.push({ ref, why: source?.unknownKeys ?? `no ${ref.kind} ${ref.name} is in the repository` });
      if (!source) continue;
    }
    sources.push(source);
    for (const [name, variable] of definedBy(source, context)) defined.set(name, variable);
  }
  for (const [name, located] of postBuild.substitute) {
    checkName(name, located, context);
    defined.set(name, { ...located, from: `substitute of Kustomization "${owner}"`, secret: false });
  }
  const substitutes = postBuild.always || defined.size > 0 || unknown.length > 0;
  if (context.external !== null) {
    // The contract declares what comes from outside: those names, and no others.
    for (const variable of context.external) {
      if (!defined.has(variable.name)) defined.set(variable.name, { value: '', file: variable.file, span: variable.span, from: `flux.variables (${variable.reason})`, secret: true });
    }
    return { defined, unknown: [], sources, substitutes };
  }
  return { defined, unknown, sources, substitutes };
}

/** A source's entries as defined variables, made once per source (thousands of Kustomizations read one cluster-settings). */
const definedBySource = new WeakMap<VariableSource, Array<[string, DefinedVariable]>>();

function definedBy(source: VariableSource, context: VariableContext): Array<[string, DefinedVariable]> {
  let variables = definedBySource.get(source);
  if (!variables) {
    variables = [];
    for (const [name, located] of source.entries) {
      checkName(name, located, context); // a name Flux rejects is reported once, where it is written
      variables.push([name, { ...located, from: `${source.kind} ${source.name}`, secret: source.secret }]);
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
  return [...candidates].sort((a, b) => shared(b.file) - shared(a.file));
}
