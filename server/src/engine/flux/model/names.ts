// Names as Flux applies them, and objects found by name: a name with `${VAR}`
// is what the postBuild of the Kustomizations that apply it makes of it, or a
// pattern where a variable nobody here fills stays in it; an index of objects
// by name and namespace where either side unknown matches any namespace. The
// dependsOn gate (gate.ts) and the check of HelmRelease references
// (helm-refs.ts) both find objects this way.
import { push } from '../../base/collections';
import { envsubst } from '../substitution/envsubst/template';
import type { Builder } from './world';
import { RULE_VALUE_MAX } from '../facts/model';

/** A name as Flux sees it: the text, or a pattern where a variable nobody here fills stays in it. */
export type Name = string | RegExp;

export interface Ident {
  name: Name;
  namespace: string | null;
}

/** Objects by name and namespace; names with a variable the files cannot fill match as patterns. */
export class Index<T> {
  private readonly exact = new Map<string, Array<{ item: T; namespace: string | null }>>();
  private readonly patterns: Array<{ item: T; pattern: RegExp; namespace: string | null }> = [];

  constructor(items: readonly T[], ident: (item: T) => Ident) {
    for (const item of items) {
      const { name, namespace } = ident(item);
      if (typeof name === 'string') push(this.exact, name, { item, namespace });
      else this.patterns.push({ item, pattern: name, namespace });
    }
  }

  /** The objects named `name` in `namespace` (either side unknown: any namespace). */
  find(name: string, namespace: string | null): T[] {
    const fits = (ns: string | null) => namespace === null || ns === null || ns === namespace;
    const found = (this.exact.get(name) ?? []).filter((entry) => fits(entry.namespace)).map((entry) => entry.item);
    if (found.length > 0) return found;
    return this.patterns.filter((entry) => fits(entry.namespace) && entry.pattern.test(name)).map((entry) => entry.item);
  }

  /** Whether some object named `name` in `namespace` passes `keep` (exact names first, then patterns). */
  some(keep: (item: T) => boolean, name: string, namespace: string | null): boolean {
    const fits = (ns: string | null) => namespace === null || ns === null || ns === namespace;
    if ((this.exact.get(name) ?? []).some((entry) => fits(entry.namespace) && keep(entry.item))) return true;
    return this.patterns.some((entry) => fits(entry.namespace) && keep(entry.item) && entry.pattern.test(name));
  }

  literals(): Array<{ name: string; namespace: string | null }> {
    const out: Array<{ name: string; namespace: string | null }> = [];
    for (const [name, entries] of this.exact) for (const entry of entries) out.push({ name, namespace: entry.namespace });
    return out;
  }
}

/**
 * A name as Flux applies it: the parents' postBuild substitutes the spec of what they apply, so
 * `${APP}-db` is the value their variables give; a name they leave open (a secret, an undefined
 * variable, a ResourceSet's `<< inputs.x >>` from outside) is a pattern.
 */
export function renderName(written: string, substitutedBy: readonly Builder[]): Name {
  if (!written.includes('${') && !written.includes('<<')) return written;
  if (!written.includes('<<')) {
    for (const builder of substitutedBy) {
      const vars = builder.vars;
      if (!vars?.substitutes) continue;
      let open = false;
      const rendered = envsubst(
        written,
        (name) => {
          const defined = vars.defined.get(name);
          // A value the audit keeps only in part (RULE_VALUE_MAX) is as open as a secret.
          if (!defined || defined.secret || defined.value.length > RULE_VALUE_MAX) open = true;
          return defined?.value;
        },
        { strict: false },
      );
      if (rendered.ok && !open) return rendered.output;
    }
  }
  return namePattern(written);
}

/** The names a written name may stand for: its `${…}` and `<< inputs.x >>` can be any text. */
export function namePattern(written: string): RegExp {
  const pattern = written
    .split(/\$\{[^}]*\}+|<<[^>]*>>/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${pattern}$`);
}
