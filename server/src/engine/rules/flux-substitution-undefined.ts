/**
 * flux-substitution-undefined (error): a well-formed `${NAME}` (or `${NAME<op>...}` without a
 * default operator), nested ones included, that no `substitute` key or in-repository
 * `substituteFrom` object of a Kustomization that substitutes the text defines. A Kustomization
 * whose `substituteFrom` names an object outside the repository may define any name: such a source
 * is reported once (flux-variables-unknown), not at every use, until the contract declares its
 * names. A name only an optional source that nothing creates could define is a warning: Flux goes
 * on without the object, and then blanks the name.
 *
 * Why it matters: Flux blanks the name, or with strict substitution (the default since Flux 2.9)
 * fails the whole reconcile. Which one is per world: a FluxInstance that pins an older Flux blanks
 * it, unless the contract writes flux.strict (flux/model/flux-version.ts).
 *
 * Example:
 *   command: ["sh", "-c", "echo ${HOME}"]   # ← meant for the shell: write $${HOME}
 *
 * Fix: where a shell reads the text, escape it to `$${NAME}`; else define the name where the
 * Kustomization takes its variables, or give it a default (`${NAME:=…}`); where it may come from
 * an outside source the contract declares (or an optional one nothing creates), add it to that
 * source's names in `flux.variables` (declareFixes: the pipeline adds it, as it needs every name
 * the repository uses from the source). In a Grafana dashboard (flux/substitution/dashboards.ts)
 * the name is Grafana's: the message leads with turning substitution off for the ConfigMap or its
 * generator, the preferred fix, or with `$${NAME}` where the text uses Flux's variables too.
 */
import { defaultFix, defineFixes, escapeFix, knowsItsNames, kustomizationNames, lookup, substitutedBy } from './support/substitution';
import type { Rule, SubstitutionContext } from './rule';
import type { ExpressionOccurrence } from '../flux/substitution/envsubst/node';
import type { Finding, Fix } from '../base/types';
import type { Builder } from '../flux/model/world';
import type { Contract } from '../contract/model';
import { OutsideSource, sourceFor } from '../flux/model/outside-sources';
import { addNameFix } from '../contract/variables-edit';
import { SUBSTITUTE_OPT_OUT } from '../flux/facts/kustomize-config';
import type { DashboardText } from '../flux/substitution/dashboards';
import { blankedByPin, STRICT_DEFAULT_SINCE, strictIn, type StrictSetting } from '../flux/model/flux-version';

export const fluxSubstitutionUndefined: Rule = {
  meta: { id: 'flux-substitution-undefined', defaultSeverity: 'error', summary: 'A ${NAME} that no Flux variable defines.' },
  check: {
    substituted(occurrence, context) {
      const top = occurrence.occurrence;
      if (top.kind !== 'expression') return [];
      const findings: Finding[] = [];
      // Nested `${...}` inside a default are evaluated too (strict mode fails on them first).
      const stack: ExpressionOccurrence[] = [top];
      while (stack.length > 0) {
        const expression = stack.pop()!;
        stack.push(...expression.nested);
        if (expression.hasDefault || expression.name === null) continue;
        // Where a Kustomization's names are unknown, it is reported once (flux-variables-unknown), not here.
        const undefinedIn = lookup(expression.name, context.substituting).undefinedIn.filter(knowsItsNames);
        if (undefinedIn.length === 0) continue;
        const effect = undefinedEffect(undefinedIn, context.strictness);
        const written = occurrence.value.slice(expression.start, expression.end);
        // An optional source nothing creates: Flux goes on without it, and then this name is undefined.
        const optional = absentOptionalSources(undefinedIn);
        const onlyOptional = undefinedIn.every((builder) => builder.vars!.outside.some((entry) => entry.state === 'optional-absent'));
        const span: [number, number] = expression === top ? occurrence.span : nestedSpan(occurrence, expression);
        const { dashboard } = context;
        // A Grafana dashboard's `${…}` is Grafana's variable: turn substitution off for it (or escape it), never define it.
        const optOut = dashboard ? dashboardOptOut(context, dashboard) : null;
        const when =
          optional.length > 0
            ? ` whenever ${optional.join(', ')} ${optional.length === 1 ? 'is' : 'are'} absent (optional, and nothing in this repository creates ${optional.length === 1 ? 'it' : 'them'})`
            : '';
        let message: string;
        if (dashboard) {
          const fix = optOut
            ? `turn off Flux substitution for ${dashboard.what} (${SUBSTITUTE_OPT_OUT}: disabled), or write $${written}`
            : `write $${written} (this text uses Flux's variables too, so keep its substitution)`;
          message = `${written} is a Grafana dashboard variable: ${fix}. Kustomization ${kustomizationNames(undefinedIn)} substitutes it and does not define it: Flux ${effect}${when}.`;
        } else {
          message = `${written} is not defined by Kustomization ${kustomizationNames(undefinedIn)}: Flux ${effect}${when}.`;
          message += occurrence.shell
            ? ` If the shell should see it, write $${written}.`
            : ` Define ${expression.name} in the Kustomization's postBuild, or give it a default (\${${expression.name}:=value}).`;
        }
        // Where a shell reads the text, the name is probably the shell's: escape it. Elsewhere Flux
        // should give it a value: define it where the Kustomization takes its variables, or give it a default.
        const escape = expression !== top ? null : dashboard ? escapeFix(context, occurrence, written, 'Grafana', optOut === null) : occurrence.shell ? escapeFix(context, occurrence, written) : null;
        const fixes: Fix[] = [...(optOut ? [optOut] : []), ...(escape ? [escape] : []), ...defineFixes(expression.name, undefinedIn)];
        const fallback = defaultFix(context, occurrence, expression, span);
        if (fallback) fixes.push(fallback);
        const found = context.finding(fluxSubstitutionUndefined.meta, span, message, fixes, onlyOptional ? 'warning' : undefined);
        found.related = substitutedBy(undefinedIn, 'substitutes this file');
        // The contract may say the name comes from one of their outside sources: the pipeline adds that fix (declareFixes).
        const sources = declarableSources(undefinedIn);
        if (sources.length > 0) found.declarable = { name: expression.name, sources };
        findings.push(found);
      }
      return findings;
    },
  },
};

/**
 * The finding's fixes, plus one per outside source its name may be declared for, each adding the
 * name and every other name the repository uses from that source (the model of outside sources
 * knows them), so that applying it leaves no new error.
 */
export function declareFixes(finding: Finding, sources: readonly OutsideSource[], contract: Contract): Finding {
  if (!finding.declarable) return finding;
  const { name } = finding.declarable;
  const fixes = finding.declarable.sources
    .map((source) => addNameFix(contract, { ...source, names: sourceFor(sources, source.kind, source.name, source.namespace)?.names ?? [] }, name))
    .filter((fix): fix is Fix => fix !== null);
  return fixes.length > 0 ? { ...finding, fixes: [...(finding.fixes ?? []), ...fixes] } : finding;
}

/** The fix that turns Flux's substitution off for a dashboard, preferred: the resource's annotation, or its generator's options. */
function dashboardOptOut(context: SubstitutionContext, dashboard: DashboardText): Fix | null {
  const title = `Turn off Flux substitution for ${dashboard.what} (its \${…} are Grafana's)`;
  if (dashboard.edits) return context.fix(title, dashboard.edits, true);
  const fix = dashboard.fixes?.[0];
  return fix ? { ...fix, preferred: true } : null;
}

const FAILS = 'fails the reconcile (strict substitution)';

/**
 * What Flux does with the name in the builds that leave it undefined: a strict build fails, the
 * others blank it, saying so where a world's pinned Flux predates the strict default (the message
 * must not claim a failure that Flux of that version never has).
 */
function undefinedEffect(builders: Builder[], setting: StrictSetting): string {
  const lenient = builders.filter((builder) => !strictIn(setting, builder.world));
  const strict = builders.filter((builder) => !lenient.includes(builder));
  if (lenient.length === 0) return FAILS;
  const pins = [...new Set(lenient.map((builder) => blankedByPin(setting, builder.world)).flatMap((pin) => (pin ? [`${pin.file} pins Flux ${pin.version}`] : [])))];
  const since = `${STRICT_DEFAULT_SINCE.major}.${STRICT_DEFAULT_SINCE.minor}`;
  const blanks = `replaces it with an empty string${pins.length > 0 ? ` (${pins.join('; ')}: strict substitution is the default only from Flux ${since})` : ''}`;
  if (strict.length === 0) return blanks;
  return `${FAILS} in Kustomization ${kustomizationNames(strict)}, and ${blanks} in ${kustomizationNames(lenient)}`;
}

/** The optional sources nothing creates that the builders read: `Secret x`. */
function absentOptionalSources(builders: Builder[]): string[] {
  const out = new Set<string>();
  for (const builder of builders) for (const entry of builder.vars!.outside) if (entry.state === 'optional-absent') out.add(`${entry.ref.kind} ${entry.ref.name}`);
  return [...out];
}

/** The outside sources a name may be declared for: declared with names, stood for by the old list, or optional and absent. */
function declarableSources(builders: Builder[]): NonNullable<Finding['declarable']>['sources'] {
  const out: NonNullable<Finding['declarable']>['sources'] = [];
  for (const builder of builders) {
    for (const { ref, namespace, state } of builder.vars!.outside) {
      if (state !== 'declared' && state !== 'legacy' && state !== 'optional-absent') continue;
      if (!out.some((s) => s.kind === ref.kind && s.name === ref.name && s.namespace === namespace)) out.push({ kind: ref.kind, name: ref.name, namespace });
    }
  }
  return out;
}

/** A nested expression's span: offsets are relative to the scalar value, like the top one's. */
function nestedSpan(occurrence: { span: [number, number]; valueStart: number }, expression: ExpressionOccurrence): [number, number] {
  const shift = occurrence.span[0] - occurrence.valueStart;
  return [expression.start + shift, expression.end + shift];
}
