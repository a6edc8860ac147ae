/**
 * pod-service-account-undeclared (warning): a pod runs as a ServiceAccount (`serviceAccountName`,
 * or the old `serviceAccount`) that no ServiceAccount document in the repository declares in that
 * namespace (the Kustomization's `targetNamespace`, else the workload's), and that the contract's
 * `serviceAccounts.external` does not list. `default`, and names with `${`, are exempt. Where a
 * HelmRelease applied in the same world and namespace installs a chart that may create it, or a
 * custom resource of the same name and namespace is declared (its operator's), the finding is an
 * info naming it (k8s/account-creators.ts); so is a chart in that namespace whose templates the
 * repository cannot show (it may create any name), app-template excepted.
 *
 * Why it matters: whatever created the account can delete it, and then every pod fails before
 * its first container starts.
 *
 * Example:
 *   serviceAccountName: postgres-pod   # ← made by the postgres operator, declared nowhere
 *
 * Fix: declare it here, or list it in `serviceAccounts.external` with a reason (quick fix).
 */
import { podSpecOf } from '../k8s/pods';
import { findPair, getString, nodeSpan, scalarText } from '../yaml/documents';
import type { Rule } from './rule';
import { yamlString } from '../yaml/edit';
import { CONTRACT_ENTRY_REASON_PLACEHOLDER } from '../base/placeholders';

/** How many leading folders two paths share: the chart nearest the pod is the likeliest creator. */
function sharedFolders(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let n = 0;
  while (n < x.length - 1 && n < y.length - 1 && x[n] === y[n]) n++;
  return n;
}

export const podServiceAccountUndeclared: Rule = {
  meta: {
    id: 'pod-service-account-undeclared',
    defaultSeverity: 'warning',
    summary: 'A pod runs as a ServiceAccount nothing in the repository declares (info where a chart or an operator beside it probably creates it).',
  },
  check: {
    document(parsed, context) {
      const { doc } = parsed;
      const spec = podSpecOf(doc);
      const pair = findPair(spec, 'serviceAccountName') ?? findPair(spec, 'serviceAccount');
      if (!pair) return [];
      const name = scalarText(doc, pair.value);
      if (!name || name === 'default' || name.includes('${')) return [];
      const own = getString(doc, doc.contents, 'metadata', 'namespace');
      // Flux's targetNamespace moves every namespaced resource it applies: it wins over the file's own.
      const namespace = context.builders.find((b) => b.kustomization.targetNamespace)?.kustomization.targetNamespace ?? own;
      if (context.repository.declaresServiceAccount(name, namespace) || (own !== namespace && context.repository.declaresServiceAccount(name, own))) return [];
      const listed = context.contract.externalAccounts.some((account) => account.name === name && (account.namespace === null || namespace === null || account.namespace === namespace));
      if (listed) return [];
      const where = namespace ? ` in namespace ${namespace}` : '';
      const here = context.accountCreators.filter((c) => (c.name === name || c.name === null) && (c.namespace === null || namespace === null || c.namespace === namespace));
      const charts = [
        ...new Set(
          here
            .filter((c) => !c.certain)
            .sort((a, b) => sharedFolders(b.file, context.file) - sharedFolders(a.file, context.file))
            .map((c) => c.by),
        ),
      ];
      const creator = here.find((c) => c.certain) ?? here[0];
      const maybe = charts.length > 1 ? `${charts[0]} (the nearest of ${charts.length} charts installed there)` : charts[0];
      const message = creator
        ? `ServiceAccount "${name}"${where} is not declared in this repository: ${creator.certain ? `it is probably created by ${creator.by}` : `its chart's templates are not in the repository, so it may be created by ${maybe}`}. Whatever creates it can delete it, and then every pod fails before its first container starts. List it in serviceAccounts.external with that reason to record it.`
        : `ServiceAccount "${name}"${where} is not declared in this repository: whatever created it can delete it, and then every pod fails before its first container starts. Declare it here, or list it in serviceAccounts.external with the reason it lives elsewhere.`;
      const itemLines = [`name: ${yamlString(name)}`, ...(namespace ? [`namespace: ${yamlString(namespace)}`] : []), `reason: ${CONTRACT_ENTRY_REASON_PLACEHOLDER}`];
      const fix = context.contractListFix(`List ServiceAccount "${name}" in serviceAccounts.external of ${context.contract.path}`, ['serviceAccounts', 'external'], itemLines);
      const found = context.finding(
        podServiceAccountUndeclared.meta,
        nodeSpan(parsed, pair.value)!,
        message,
        fix ? [fix] : [],
        getString(doc, doc.contents, 'kind') === 'Job' ? getString(doc, doc.contents, 'metadata', 'name') : null,
      );
      return [creator ? { ...found, severity: 'info' } : found];
    },
  },
};
