// flux-substitution-needless-escape on a Grafana dashboard (vrozaksen__home-ops
// snmp-exporter/grafanadashboard.yaml: `$${DS_PROMETHEUS}` copied from a
// sibling under postBuild, in a Kustomization without one): Grafana receives
// `$${DS_PROMETHEUS}`. Negative controls: the same dashboard under postBuild
// (Flux makes it `${DS_PROMETHEUS}`), and `$${x}` in text that is neither a
// shell nor a dashboard (a Terraform file, where `$${` is Terraform's own escape).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { kustomization } from './helpers/flux-fixtures';
import { auditFiles } from './helpers/memory-fs';
import { applyFileEdits } from './helpers/table';

const POST_BUILD = '  postBuild:\n    substitute:\n      APP: snmp\n';

const dashboard = (uid: string) =>
  `apiVersion: grafana.integreatly.org/v1beta1\nkind: GrafanaDashboard\nmetadata:\n  name: snmp\nspec:\n  datasources:\n    - datasourceName: prometheus\n      inputName: DS_PROMETHEUS\n  json: |-\n    {\n      "panels": [\n        {"datasource": {"type": "prometheus", "uid": "${uid}"}}\n      ]\n    }\n`;

const TERRAFORM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tf\ndata:\n  main.tf: |\n    output "x" { value = "$${var.x}" }\n';

async function findings(postBuild: boolean, text: string) {
  const files = { '.flux-job-guard.yaml': 'flux:\n  roots: [flux]\n', 'flux/apps.yaml': kustomization('apps', './apps', postBuild ? POST_BUILD : ''), 'apps/file.yaml': text };
  return (await auditFiles(files)).findings.filter((f) => f.rule.startsWith('flux-substitution'));
}

describe('needless-escape: a Grafana dashboard is a consumer no layer unescapes', () => {
  test('$${DS_PROMETHEUS} in a dashboard built without postBuild: reported, fixed to ${DS_PROMETHEUS}', async () => {
    const text = dashboard('$${DS_PROMETHEUS}');
    const [finding, ...rest] = await findings(false, text);
    assert.deepEqual(rest, []);
    assert.equal(finding.rule, 'flux-substitution-needless-escape');
    assert.deepEqual(finding.range, { start: { line: 11, character: 54 }, end: { line: 11, character: 56 } });
    assert.match(finding.message, /^Kustomization "apps" builds this file without postBuild, so nothing turns \$\$ into \$: Grafana receives \$\$\{…\} in this dashboard/);
    const fixed = applyFileEdits(text, finding.fixes![0].edits);
    assert.equal(fixed, dashboard('${DS_PROMETHEUS}'));
    assert.deepEqual(await findings(false, fixed), []);
  });

  test('negative controls: the same dashboard under postBuild; $${…} in a Terraform file', async () => {
    assert.deepEqual(await findings(true, dashboard('$${DS_PROMETHEUS}')), []);
    assert.deepEqual(await findings(false, TERRAFORM), []);
  });
});
