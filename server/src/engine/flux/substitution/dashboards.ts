// Grafana dashboards kept in ConfigMaps (as a resource, or generated from a
// `.json` file): their `${DS_PROMETHEUS}`, `${cluster}` are Grafana's template
// variables (a dashboard exported for sharing lists its datasource inputs
// under `__inputs`), not Flux's. Where a Flux Kustomization substitutes such
// text, the fix is to turn substitution off for the resource or its
// generator, or to escape each one as `$${…}`; defining the name in postBuild
// would hand Grafana a fixed value in place of its variable.
import type { Fix } from '../../base/types';
import { asMap, getString, type ParsedDocument } from '../../yaml/documents';
import { setInMap, type OffsetEdit } from '../../yaml/edit';
import { SUBSTITUTE_OPT_OUT } from '../facts/kustomize-config';

/** An exported dashboard's `__inputs`, or a `${DS_…}` datasource input. */
const DASHBOARD = /"__inputs"\s*:|\$\{DS_[A-Za-z0-9_]+\}/;

/** What a dashboard's region offers: what to turn substitution off for, and how (none where the text also uses Flux's variables). */
export interface DashboardText {
  /** `ConfigMap "grafana-nodes"`, `configMapGenerator "dashboards"`. */
  what: string;
  /** The opt-out in this file: the resource's `metadata.annotations` entry. */
  edits?: OffsetEdit[];
  /** The opt-out in another file: the generator's `options` in its kustomization file. */
  fixes?: Fix[];
}

export function isGrafanaDashboard(text: string): boolean {
  return DASHBOARD.test(text);
}

/** A dashboard resource, with the annotation that opts it out (one edit in its metadata, comments kept); null when it is no dashboard. */
export function dashboardResource(parsed: ParsedDocument, withOptOut: boolean): DashboardText | null {
  if (!isGrafanaDashboard(parsed.source.slice(parsed.base, parsed.end))) return null;
  const { doc } = parsed;
  const what = `${getString(doc, doc.contents, 'kind') ?? 'resource'} "${getString(doc, doc.contents, 'metadata', 'name') ?? ''}"`;
  const root = asMap(doc, doc.contents);
  const edit = withOptOut && root ? setInMap(parsed.source, root, parsed.base, ['metadata', 'annotations', SUBSTITUTE_OPT_OUT], 'disabled') : null;
  return edit ? { what, edits: [edit] } : { what };
}
