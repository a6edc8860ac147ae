// Where the user looks: the hover on a `$$`, a `${…}` or a `$(NAME)` in a
// container's command, args or env shows the line in the file, after Flux,
// after the kubelet; the substitution preview ends each resource with the
// lines the kubelet changes. Text the kubelet never sees (a ConfigMap) gets
// neither (the negative controls).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRepoIndex } from '../server/src/engine/pipeline/audit';
import { loadContract } from '../server/src/engine/contract/load';
import { hoverAt } from '../server/src/engine/editor/hover';
import { plainLink } from '../server/src/engine/editor/link';
import { renderAsFlux } from '../server/src/engine/editor/substitution-info';
import { RULE_IDS } from '../server/src/engine/rules/registry';
import { job, kustomization } from './helpers/flux-fixtures';
import { memoryFs } from './helpers/memory-fs';

const CONTRACT = 'flux:\n  roots: [flux]\n';
const POST_BUILD = '  postBuild:\n    substitute:\n      CLUSTER: home\n';

const JOB = job(
  'j',
  'it only reads',
  '          env:\n            - {name: PORT, value: "8080"}\n          command:\n            - /bin/sh\n            - -c\n            - |\n              kill $$ ; echo ${CLUSTER} $(PORT) $(hostname)\n',
);
const SCRIPT = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    kill $$\n';

async function repo(files: Record<string, string>) {
  const all: Record<string, string> = { '.flux-job-guard.yaml': CONTRACT, ...files };
  const contract = loadContract('.flux-job-guard.yaml', CONTRACT, {}, RULE_IDS).contract;
  return { index: await buildRepoIndex(memoryFs(all), Object.keys(all), contract), contract, files: all };
}

async function hover(files: Record<string, string>, path: string, needle: string, shift = 1): Promise<{ markdown: string; span: [number, number] } | null> {
  const { index, contract, files: all } = await repo(files);
  const text = all[path];
  return hoverAt(
    index,
    contract,
    path,
    text,
    text.indexOf(needle) + shift,
    plainLink((file) => all[file]),
  );
}

describe('the hover shows each layer', () => {
  const substituted = { 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/job.yaml': JOB };

  test('a $$ in a Job under postBuild: the file, after Flux, after the kubelet', async () => {
    const found = await hover(substituted, 'apps/job.yaml', '$$');
    assert.ok(found);
    assert.equal(
      found.markdown,
      [
        "`$$` is an escape: Flux, then the kubelet (a container's command, args or env) turn each `$$` into `$`.",
        '',
        '```text',
        'in the file:                                   kill $$ ; echo ${CLUSTER} $(PORT) $(hostname)',
        'after Flux (Kustomization "apps"):             kill $ ; echo home $(PORT) $(hostname)',
        'after the kubelet (what the process receives): kill $ ; echo home 8080 $(hostname)',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(found.span, [JOB.indexOf('$$'), JOB.indexOf('$$') + 2]);
  });

  test('a ${NAME} in a Job: the variable, then the layers', async () => {
    const found = await hover(substituted, 'apps/job.yaml', '${CLUSTER}', 3);
    assert.ok(found);
    assert.match(found.markdown, /^\*\*\$\{CLUSTER\}\*\* = `home`/);
    assert.match(found.markdown, /after the kubelet \(what the process receives\): kill \$ ; echo home 8080 \$\(hostname\)/);
  });

  test("$(PORT) is the kubelet's, replaced by the container's variable; $(hostname) is the shell's", async () => {
    const port = await hover(substituted, 'apps/job.yaml', '$(PORT)', 3);
    assert.ok(port);
    assert.match(port.markdown, /^\*\*`\$\(PORT\)`\*\* is the kubelet's: it replaces it with the container's variable `PORT` \(= `8080`\) before the process starts, so no shell sees `\$\(PORT\)`\./);
    assert.deepEqual(port.span, [JOB.indexOf('$(PORT)'), JOB.indexOf('$(PORT)') + 7]);
    const hostname = await hover(substituted, 'apps/job.yaml', '$(hostname)', 3);
    assert.ok(hostname);
    assert.match(hostname.markdown, /^\*\*`\$\(hostname\)`\*\* names none of the container's variables: the kubelet leaves it as written, and the shell runs it as a command substitution\./);
  });

  test('without Flux, the kubelet alone; a ConfigMap script meets neither layer: no hover (negative control)', async () => {
    const plain = await hover({ 'apps/job.yaml': JOB }, 'apps/job.yaml', '$$');
    assert.ok(plain);
    assert.match(plain.markdown, /^`\$\$` is an escape: the kubelet \(a container's command, args or env\) turns each `\$\$` into `\$`\./);
    assert.match(
      plain.markdown,
      /in the file: +kill \$\$ ; echo \$\{CLUSTER\} \$\(PORT\) \$\(hostname\)\nafter the kubelet \(what the process receives\): kill \$ ; echo \$\{CLUSTER\} 8080 \$\(hostname\)/,
    );
    assert.equal(await hover({ 'apps/script.yaml': SCRIPT }, 'apps/script.yaml', '$$'), null);
    // Under Flux the ConfigMap's $$ meets Flux only.
    const flux = await hover({ 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/script.yaml': SCRIPT }, 'apps/script.yaml', '$$');
    assert.ok(flux);
    assert.match(flux.markdown, /in the file: +kill \$\$\nafter Flux \(Kustomization "apps"\): kill \$\n```$/);
  });
});

describe('the substitution preview ends with what the kubelet changes', () => {
  test('a Job under postBuild: the rendered resource, then the kubelet lines', async () => {
    const { index, contract, files } = await repo({ 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/job.yaml': JOB });
    const preview = renderAsFlux(index, contract, 'apps/job.yaml', files['apps/job.yaml']);
    assert.match(preview, /kill \$ ; echo home \$\(PORT\) \$\(hostname\)\n/);
    assert.match(
      preview,
      /# After the kubelet: it expands the containers’ command, args and env before each process starts \(\$\$ → \$, \$\(NAME\) → the variable\):\n# {3}kill \$ ; echo home \$\(PORT\) \$\(hostname\)\n# {3}→ kill \$ ; echo home 8080 \$\(hostname\)\n$/,
    );
  });

  test('no Flux: the file as written, then the kubelet lines; a ConfigMap script has none (negative control)', async () => {
    const { index, contract, files } = await repo({ 'apps/job.yaml': JOB, 'apps/script.yaml': SCRIPT });
    assert.match(renderAsFlux(index, contract, 'apps/job.yaml', files['apps/job.yaml']), /# {3}→ kill \$ ; echo \$\{CLUSTER\} 8080 \$\(hostname\)\n$/);
    assert.doesNotMatch(renderAsFlux(index, contract, 'apps/script.yaml', files['apps/script.yaml']), /After the kubelet/);
  });
});
