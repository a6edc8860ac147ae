// Grafana dashboards that Flux substitutes (issue 18): `${DS_PROMETHEUS}` in an
// exported dashboard is Grafana's variable. The finding stays (strict
// substitution fails the reconcile), but its message leads with turning
// substitution off for the ConfigMap or its generator (or `$${…}`), and that
// opt-out is the preferred fix. Negative controls: a ConfigMap that is no
// dashboard keeps the "define it" message, and a dashboard that also uses a
// Flux variable is offered the escape, not the opt-out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../server/src/engine/base/types';
import { auditFiles, brief } from './helpers/memory-fs';
import { gotkSync, kustomization } from './helpers/flux-fixtures';
import { applyFileEdits } from './helpers/table';

const SUBSTITUTE = '  postBuild:\n    substitute:\n      CLUSTER: home\n';

const DASHBOARD_JSON = '{\n  "__inputs": [{ "name": "DS_PROMETHEUS", "type": "datasource" }],\n  "panels": [{ "datasource": "${DS_PROMETHEUS}" }]\n}\n';

/** A dashboard ConfigMap; `data` is its JSON, indented under the key. */
function dashboardConfigMap(json: string): string {
  const indented = json
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nodes-dashboard # exported from Grafana\n  labels:\n    grafana_dashboard: "1"\ndata:\n  nodes.json: |\n${indented}\n`;
}

function repo(files: Record<string, string>): Record<string, string> {
  return {
    'clusters/home/flux-system/gotk-sync.yaml': gotkSync('./clusters/home'),
    'clusters/home/apps.yaml': kustomization('apps', './apps', SUBSTITUTE),
    ...files,
  };
}

async function undefinedFindings(files: Record<string, string>): Promise<Finding[]> {
  return (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('flux-substitution'));
}

const fixSummary = (finding: Finding) => finding.fixes!.map((fix) => [fix.title, fix.preferred ?? false]);

describe('Grafana dashboards: the opt-out leads', () => {
  test('a dashboard ConfigMap: message and preferred fix are the annotation on its metadata (comments kept); applied, the finding is gone', async () => {
    const files = repo({ 'apps/kustomization.yaml': 'resources:\n  - dashboard.yaml\n', 'apps/dashboard.yaml': dashboardConfigMap(DASHBOARD_JSON) });
    const findings = await undefinedFindings(files);
    assert.deepEqual(findings.map(brief), ['flux-substitution-undefined apps/dashboard.yaml:11:35']);
    const [finding] = findings;
    assert.equal(finding.severity, 'error');
    assert.equal(
      finding.message,
      '${DS_PROMETHEUS} is a Grafana dashboard variable: turn off Flux substitution for ConfigMap "nodes-dashboard" (kustomize.toolkit.fluxcd.io/substitute: disabled), or write $${DS_PROMETHEUS}. Kustomization "apps" substitutes it and does not define it: Flux fails the reconcile (strict substitution).',
    );
    assert.deepEqual(fixSummary(finding), [
      ['Turn off Flux substitution for ConfigMap "nodes-dashboard" (its ${…} are Grafana\'s)', true],
      ['Escape ${DS_PROMETHEUS} from Flux ($${ → Grafana sees ${)', false],
      ['Define DS_PROMETHEUS in the postBuild.substitute of Kustomization "apps" (a value to fill in)', false],
      ['Give ${DS_PROMETHEUS} a default: ${DS_PROMETHEUS:=…}', false],
    ]);
    const optedOut = applyFileEdits(files['apps/dashboard.yaml'], finding.fixes![0].edits);
    assert.equal(
      optedOut,
      dashboardConfigMap(DASHBOARD_JSON).replace('    grafana_dashboard: "1"\n', '    grafana_dashboard: "1"\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n'),
    );
    assert.deepEqual(await undefinedFindings({ ...files, 'apps/dashboard.yaml': optedOut }), []);
    const escaped = applyFileEdits(files['apps/dashboard.yaml'], finding.fixes![1].edits);
    assert.deepEqual(await undefinedFindings({ ...files, 'apps/dashboard.yaml': escaped }), []);
  });

  test('a generated dashboard ConfigMap: the preferred fix is the generator opt-out', async () => {
    const files = repo({ 'apps/kustomization.yaml': 'configMapGenerator:\n  - name: dashboards\n    files:\n      - nodes.json\n', 'apps/nodes.json': DASHBOARD_JSON });
    const [finding, ...rest] = await undefinedFindings(files);
    assert.equal(rest.length, 0);
    assert.equal(brief(finding), 'flux-substitution-undefined apps/nodes.json:3:31');
    assert.match(finding.message, /^\$\{DS_PROMETHEUS\} is a Grafana dashboard variable: turn off Flux substitution for configMapGenerator "dashboards" /);
    assert.deepEqual(fixSummary(finding), [
      ['Turn off Flux substitution for configMapGenerator "dashboards" (nothing in this file is meant for Flux)', true],
      ['Escape ${DS_PROMETHEUS} from Flux ($${ → Grafana sees ${)', false],
      ['Define DS_PROMETHEUS in the postBuild.substitute of Kustomization "apps" (a value to fill in)', false],
      ['Give ${DS_PROMETHEUS} a default: ${DS_PROMETHEUS:=…}', false],
    ]);
    const optedOut = applyFileEdits(files['apps/kustomization.yaml'], finding.fixes![0].edits);
    assert.deepEqual(await undefinedFindings({ ...files, 'apps/kustomization.yaml': optedOut }), []);
  });

  test('negative control: a ConfigMap that is no dashboard keeps "define it"', async () => {
    const plain = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  url: https://${HOSTNAME}/\n';
    const [finding] = await undefinedFindings(repo({ 'apps/kustomization.yaml': 'resources:\n  - app.yaml\n', 'apps/app.yaml': plain }));
    assert.match(finding.message, /^\$\{HOSTNAME\} is not defined by Kustomization "apps": .* Define HOSTNAME in the Kustomization's postBuild/);
    assert.ok(!finding.fixes!.some((fix) => fix.title.startsWith('Turn off')));
  });

  test('negative control: a dashboard that uses a Flux variable too is offered the escape (preferred), not the opt-out', async () => {
    const json = DASHBOARD_JSON.replace('"panels"', '"title": "Nodes in ${CLUSTER}",\n  "panels"');
    const [finding, ...rest] = await undefinedFindings(repo({ 'apps/kustomization.yaml': 'resources:\n  - dashboard.yaml\n', 'apps/dashboard.yaml': dashboardConfigMap(json) }));
    assert.equal(rest.length, 0);
    assert.match(finding.message, /^\$\{DS_PROMETHEUS\} is a Grafana dashboard variable: write \$\$\{DS_PROMETHEUS\} \(this text uses Flux's variables too/);
    assert.deepEqual(fixSummary(finding)[0], ['Escape ${DS_PROMETHEUS} from Flux ($${ → Grafana sees ${)', true]);
    assert.ok(!finding.fixes!.some((fix) => fix.title.startsWith('Turn off')));
  });
});
