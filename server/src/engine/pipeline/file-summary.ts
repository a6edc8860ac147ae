// What one file contributes to the repository index (repo-index.ts): its facts, the names it uses,
// its documents' headers as kustomize reads them, and the texts the model reads whole. A pure
// function of the path and the text, computed in the audit's workers, per edit in the editor, or
// once for two revisions (index-memo.ts).
import { optedOutEverywhere, type FluxFileContext } from '../flux/substitution/regions';
import { extractFacts, factsInHeaders, headerFacts, mayHoldFacts } from '../flux/facts/extract';
import { FileFacts, isKustomizationFile } from '../flux/facts/model';
import { documentNamesUsed } from '../flux/substitution/scalars';
import { basenameOf, isYamlPath } from '../base/paths';
import { parseYamlFile, ParsedDocument } from '../yaml/documents';
import { scanResourceDocs, type ResourceDoc } from '../kustomize/resource-docs';

export const SOURCE_IGNORE = '.sourceignore';

/** What one file contributes to the index, computed once (in the audit's workers, or per edit in the editor). */
export interface FileSummary {
  facts: FileFacts | null;
  /** Names without a default that the file's substituted scalars use. */
  uses: string[];
  /** A `.sourceignore` file's text. */
  ignore?: string;
  /** The file holds `${` but its names were not read (see RepoIndex.namesWanted): they are read only where they matter. */
  usesPending?: boolean;
  /** A YAML file's documents as kustomize reads their headers (what a build of the folder needs of it). */
  docs?: ResourceDoc[];
  /** A kustomization file's text (the kustomize model reads it whole). */
  kustomizeText?: string;
}

/**
 * A file's summary; `documents` (or a function that gives them) spares a parse when the caller has
 * them. `withUses: false` leaves the names out, for a caller that learns them later from its own parse.
 */
export function summarizeFile(path: string, text: string, documents?: ParsedDocument[] | (() => ParsedDocument[]), withUses = true): FileSummary {
  const yaml = isYamlPath(path) || isKustomizationFile(path);
  const holdsFacts = yaml && mayHoldFacts(path, text);
  const inHeaders = holdsFacts && isYamlPath(path) && factsInHeaders(path, text);
  const usesNames = withUses && yaml && text.includes('${');
  let docs = Array.isArray(documents) ? documents : undefined;
  const parsed = (): ParsedDocument[] => (docs ??= typeof documents === 'function' ? documents() : parseYamlFile(text));
  // The names need the whole parse, which the facts then read too; else the facts parse the file only where their view is the text itself (values-view.ts).
  const uses = usesNames ? namesUsedIn(parsed()) : [];
  const summary: FileSummary = { facts: holdsFacts && !inHeaders ? extractFacts(path, text, docs ?? parsed) : null, uses };
  if (!withUses && yaml && text.includes('${')) summary.usesPending = true;
  if (basenameOf(path) === SOURCE_IGNORE) summary.ignore = text;
  if (isKustomizationFile(path)) summary.kustomizeText = text;
  // Documents parsed already (for the facts, or by the caller): the headers the line scan cannot read come from them, not a second parse.
  else if (isYamlPath(path)) {
    const parsedAlready = docs;
    summary.docs = scanResourceDocs(text, false, parsedAlready ? () => parsedAlready : undefined);
    if (inHeaders) summary.facts = headerFacts(path, summary.docs) ?? extractFacts(path, text, docs ?? parsed);
  }
  return summary;
}

/**
 * A deep copy (structured clone: Maps kept, strings copied). What a long-lived
 * index or cache keeps must not hold slices of a file's text: a short name cut
 * from a 50 kB file keeps all of it in memory.
 */
export function detached<T>(value: T): T {
  return structuredClone(value);
}

/** Whether a summary says anything beyond "this file exists" (the rest need not travel to workers). */
export function isTrivial(summary: FileSummary): boolean {
  return summary.facts === null && summary.uses.length === 0 && summary.ignore === undefined && summary.kustomizeText === undefined && (summary.docs?.length ?? 0) === 0;
}

/** The names a file's substituted documents use; `flux`: the builds of the file, whose kustomize verdicts say which documents opt out. */
export function namesUsedIn(documents: ParsedDocument[], flux?: FluxFileContext): string[] {
  const names = new Set<string>();
  for (const parsed of documents) if (parsed.errors.length === 0 && !optedOutEverywhere(parsed, flux)) for (const name of documentNamesUsed(parsed)) names.add(name);
  return [...names].sort();
}
