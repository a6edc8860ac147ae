// Hovers say each thing once: Kustomizations with the same outcome share one
// line (a long list cut short), the rendered line is shown only when there is
// something to show, a secret's value never appears.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRepoIndex } from '../server/src/engine/pipeline/audit';
import { defaultContract } from '../server/src/engine/contract/load';
import { hoverAt } from '../server/src/engine/editor/hover';
import { plainLink } from '../server/src/engine/editor/link';
import { memoryFs } from './helpers/memory-fs';

const ks = (name: string, extra: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n${extra}`;
const CONFIG = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  url: https://${HOST}/${PATH_PART}\n';

async function hover(files: Record<string, string>, needle: string, shown: ReadonlySet<string> = new Set()): Promise<string> {
  const contract = defaultContract('.flux-job-guard.yaml');
  const index = await buildRepoIndex(memoryFs(files), Object.keys(files), contract);
  const text = files['apps/config.yaml'];
  const found = hoverAt(
    index,
    contract,
    'apps/config.yaml',
    text,
    text.indexOf(needle) + 2,
    plainLink((file) => files[file]),
    undefined,
    shown,
  );
  assert.ok(found, 'a hover');
  return found.markdown;
}

test('eight Kustomizations with one outcome: one line, three named, "and 5 more"', async () => {
  const files: Record<string, string> = { 'apps/config.yaml': CONFIG };
  for (let i = 0; i < 8; i++) files[`flux/k${i}.yaml`] = ks(`k${i}`, '  postBuild:\n    substitute:\n      HOST: example.org\n      PATH_PART: x\n');
  const markdown = await hover(files, '${HOST}');
  assert.equal(markdown.match(/\*\*\$\{HOST\}\*\*/g)?.length, 1);
  assert.match(
    markdown,
    /= `example\.org` — from substitute of Kustomization "k0" \(flux\/k0\.yaml:13\), substitute of Kustomization "k1" \(flux\/k1\.yaml:13\), substitute of Kustomization "k2" \(flux\/k2\.yaml:13\), and 5 more;/,
  );
  assert.match(markdown, /substituted by Kustomizations `k0` \(flux\/k0\.yaml:2\), `k1` \(flux\/k1\.yaml:2\), `k2` \(flux\/k2\.yaml:2\), and 5 more\./);
  assert.match(markdown, /Flux renders this line as:\n\n```text\nhttps:\/\/example\.org\/x\n```/);
});

test('outcomes that differ get a line each; no empty rendering is shown', async () => {
  const files = {
    'apps/config.yaml': CONFIG.replace('/${PATH_PART}', ''),
    'flux/a.yaml': ks('a', '  postBuild:\n    substitute:\n      HOST: a.example.org\n'),
    'flux/b.yaml': ks('b', '  postBuild:\n    substitute:\n      OTHER: x\n'),
  };
  const markdown = await hover(files, '${HOST}');
  assert.match(markdown, /\*\*\$\{HOST\}\*\* = `a\.example\.org` — from substitute of Kustomization "a" \(flux\/a\.yaml:13\); substituted by Kustomization `a`/);
  assert.match(markdown, /\*\*\$\{HOST\}\*\* is not defined by Kustomization `b` \(flux\/b\.yaml:2\): Flux fails the reconcile/);
});

test('a line that would read empty is not shown as an empty block', async () => {
  const files = { 'apps/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  url: ${ONLY}\n', 'flux/a.yaml': ks('a', '  postBuild:\n    substitute:\n      OTHER: x\n') };
  const markdown = await hover(files, '${ONLY}');
  assert.match(markdown, /Flux fails: variable not set \(strict mode\): "ONLY"\.$/);
  assert.doesNotMatch(markdown, /would read/);
});

test('a secret is masked, never shown', async () => {
  const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: flux-system\nstringData:\n  HOST: hunter2.internal\n  PATH_PART: p\n';
  const files = { 'apps/config.yaml': CONFIG, 'flux/s.yaml': secret, 'flux/a.yaml': ks('a', '  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: s\n') };
  const markdown = await hover(files, '${HOST}');
  assert.match(markdown, /\*\*\$\{HOST\}\*\* = •••• — from Secret s/);
  assert.doesNotMatch(markdown, /hunter2/);
});

test('a diagnostic under the cursor that says the name is not defined: the hover does not say it again', async () => {
  const files = { 'apps/config.yaml': CONFIG, 'flux/a.yaml': ks('a', '  postBuild:\n    substitute:\n      HOST: a.example.org\n') };
  const alone = await hover(files, '${PATH_PART}');
  assert.match(alone, /\*\*\$\{PATH_PART\}\*\* is not defined by Kustomization `a` \(flux\/a\.yaml:2\): Flux fails the reconcile/, 'negative control: said where nothing else says it');
  assert.match(alone, /Flux fails: variable not set \(strict mode\): "PATH_PART"\. Without strict substitution the line would read:/);
  const withDiagnostic = await hover(files, '${PATH_PART}', new Set(['flux-substitution-undefined']));
  assert.match(
    withDiagnostic,
    /^\*\*\$\{PATH_PART\}\*\*: substituted by Kustomization `a` \(flux\/a\.yaml:2\)\.\n\nWithout strict substitution the line would read:\n\n```text\nhttps:\/\/a\.example\.org\/\n```$/,
  );
});

test('a name with a default that nothing defines: Flux writes the default, it does not fail', async () => {
  const files = { 'apps/config.yaml': CONFIG.replace('${PATH_PART}', '${PATH_PART:-x}'), 'flux/a.yaml': ks('a', '  postBuild:\n    substitute:\n      HOST: h\n') };
  const markdown = await hover(files, '${PATH_PART');
  assert.match(markdown, /\*\*\$\{PATH_PART\}\*\* is not defined by Kustomization `a` \(flux\/a\.yaml:2\): Flux writes the default\./);
  assert.doesNotMatch(markdown, /fails/);
  assert.match(markdown, /Flux renders this line as:\n\n```text\nhttps:\/\/h\/x\n```/);
});

test('the TTL hover leaves to the diagnostics what they say, and the converge advice to Jobs without the comment', async () => {
  const job = (comment: string) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n${comment}  ttlSecondsAfterFinished: 600\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n`;
  const files = (comment: string) => ({ 'apps/config.yaml': job(comment), 'flux/a.yaml': ks('a', '') });
  const alone = await hover(files(''), 'ttlSecondsAfterFinished');
  assert.match(alone, /^\*\*ttlSecondsAfterFinished: 600\*\* \(the required value is 86400/);
  assert.match(alone, /Flux re-creates this Job about 1 h after it finishes: it runs again about 24 times a day/);
  assert.match(alone, /A re-run must converge: say why in the `# converges:` comment\.$/);
  const shown = await hover(files(''), 'ttlSecondsAfterFinished', new Set(['ttl-shorter-than-interval', 'ttl-unexpected-value', 'ttl-convergence-note']));
  assert.equal(shown, '**ttlSecondsAfterFinished: 600**\n\nApplied by Flux Kustomization `a` (flux/a.yaml:2), interval 1h, prune true.');
  const noted = await hover(files('  # converges: it only reads\n'), 'ttlSecondsAfterFinished');
  assert.doesNotMatch(noted, /A re-run must converge/, 'the Job has its comment: no advice');
  assert.match(noted, /runs again about 24 times a day/);
});
