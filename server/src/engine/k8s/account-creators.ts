// What may create a ServiceAccount that no document declares: a HelmRelease
// whose chart makes it (its values name it under `serviceAccount`, at any
// depth, or it is named after the release, as the common `fullname` helper
// does), or the operator of a custom resource of the same name. A pod that
// runs as such an account is then not "undeclared" but probably made by it.
// A chart's templates are not in the repository, so a chart may also create
// accounts whose names nothing here shows (tailscale-operator's `proxies`):
// such a release "may" create any account of its namespace, unless its values
// name its accounts, or it is the bjw-s app-template chart, which creates
// exactly what its values say.
// Read per document (facts), matched per world and namespace (repo-index.ts).
import { asMap, asSeq, Document, findPair, getString, isMap, keyText, YAMLMap } from '../yaml/documents';

export interface AccountCreator {
  /** The ServiceAccount names it may create. */
  names: string[];
  /** Where it installs them as written (`spec.targetNamespace` of a HelmRelease wins), null when the file does not say. */
  namespace: string | null;
  /** A HelmRelease's own `spec.targetNamespace`: Flux's targetNamespace does not move the release. */
  fixedNamespace: boolean;
  /** For the message: `HelmRelease x (chart y)`, `the operator of Cluster x`. */
  by: string;
  /** A chart whose templates may create accounts of other names than `names` (its values name none; not app-template). */
  mayCreateOthers: boolean;
  file: string;
}

/** The chart that creates only the accounts its values name (bjw-s app-template). */
const CHARTS_WITH_VALUES_ONLY_ACCOUNTS = new Set(['app-template']);

/** A quick text test: may a file hold a HelmRelease or a custom resource (an API group with a dot, not Kubernetes' own)? */
export const MAY_HOLD_CREATOR = /^apiVersion:\s*["']?(?![\w.-]*k8s\.io\/)[a-z0-9-]+\.[a-z0-9.-]+\//m;

/** Groups whose objects create no ServiceAccount for pods of the repository (Flux's own). */
const NOT_CREATORS = /(^|\.)fluxcd\.io$/;

/** Keys of a chart's `serviceAccount` values that are options, not account names (`create`, `annotations`, …). */
const ACCOUNT_OPTIONS = new Set(['create', 'enabled', 'name', 'annotations', 'labels', 'automount', 'automountServiceAccountToken', 'imagePullSecrets', 'extraLabels', 'nameOverride']);

/** `mentionsAccounts`: whether the document's text holds `serviceAccount` (else a HelmRelease's values name none: no walk). */
export function accountCreator(file: string, doc: Document, root: YAMLMap, kind: string | null, apiVersion: string, mentionsAccounts = true): AccountCreator | null {
  const name = getString(doc, root, 'metadata', 'name');
  if (!kind || !name) return null;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (kind === 'HelmRelease' && group === 'helm.toolkit.fluxcd.io') return helmRelease(file, doc, root, name, mentionsAccounts);
  return operatorAccount(file, kind, apiVersion, name, getString(doc, root, 'metadata', 'namespace'));
}

/** The account a custom resource's operator may make, named after it (its header is all this reads). */
export function operatorAccount(file: string, kind: string, apiVersion: string, name: string, namespace: string | null): AccountCreator | null {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (!group.includes('.') || group.endsWith('k8s.io') || NOT_CREATORS.test(group)) return null;
  return { names: [name], namespace, fixedNamespace: false, by: `the operator of ${kind} ${name}`, mayCreateOthers: false, file };
}

function helmRelease(file: string, doc: Document, root: YAMLMap, name: string, mentionsAccounts: boolean): AccountCreator {
  const release = getString(doc, root, 'spec', 'releaseName') ?? name;
  const chart = getString(doc, root, 'spec', 'chart', 'spec', 'chart') ?? getString(doc, root, 'spec', 'chartRef', 'name');
  const values = asMap(doc, findPair(asMap(doc, findPair(root, 'spec')?.value), 'values')?.value);
  const names = new Set<string>([release]);
  // The `fullname` helper: the release name when it holds the chart's name, else `<release>-<chart>`.
  if (chart && !release.includes(chart)) names.add(`${release}-${chart}`);
  const fullname = getString(doc, values, 'fullnameOverride');
  if (fullname) names.add(fullname);
  // The walk resolves every alias of the values (the largest trees of a repository): only where a name can be found.
  const valueAccounts = mentionsAccounts ? accountsInValues(doc, values, 0) : [];
  for (const account of valueAccounts) names.add(account);
  const target = getString(doc, root, 'spec', 'targetNamespace');
  return {
    names: [...names],
    namespace: target ?? getString(doc, root, 'metadata', 'namespace'),
    fixedNamespace: target !== null,
    by: `HelmRelease ${name}${chart ? ` (chart ${chart})` : ''}`,
    mayCreateOthers: valueAccounts.length === 0 && !(chart && CHARTS_WITH_VALUES_ONLY_ACCOUNTS.has(chart)),
    file,
  };
}

/** Names under any `serviceAccount` key of the values: its `name`, and the keys of a map of accounts (app-template's `serviceAccount: {<name>: {}}`). */
function accountsInValues(doc: Document, node: unknown, depth: number): string[] {
  const map = asMap(doc, node);
  if (!map || depth > 12) return (asSeq(doc, node)?.items ?? []).flatMap((item) => (depth > 12 ? [] : accountsInValues(doc, item, depth + 1)));
  const out: string[] = [];
  for (const pair of map.items) {
    const key = keyText(pair);
    const value = asMap(doc, pair.value);
    if ((key === 'serviceAccount' || key === 'serviceAccounts') && value) {
      const named = getString(doc, value, 'name');
      if (named) out.push(named);
      for (const inner of value.items) {
        const account = keyText(inner);
        if (account && !ACCOUNT_OPTIONS.has(account) && isMap(inner.value)) out.push(account);
      }
    }
    out.push(...accountsInValues(doc, pair.value, depth + 1));
  }
  return out;
}
