// What crosses to the audit workers in pass 2 (node/audit-workers.ts): each file's context goes
// without its world's definers (the Kustomizations whose postBuild defines each name), which are
// sent once per worker; the worker puts them back. On the bench's generated repository the
// definers, cloned into each of 9,555 contexts, were 5.5 GB of messages: the main thread spent
// 16 s posting them and two threads ran 1.6x slower than one.
import assert from 'node:assert/strict';
import { serialize } from 'node:v8';
import { test } from 'node:test';
import { audit, IndexData, indexFrom, readContract, scanFiles } from '../server/src/engine/pipeline/audit';
import { fileContext, type FileContext } from '../server/src/engine/pipeline/repo-analysis';
import { mayBeIndexed } from '../server/src/engine/pipeline/scope';
import { fullContext, sharedData, travelling } from '../server/src/node/audit-workers';
import { MemoryRepoFs, type World } from './helpers/arbitraries';
import { gotkSync, kustomization } from './helpers/flux-fixtures';

/** One cluster: `definers` Kustomizations define APP by postBuild; `plain` (no postBuild) builds plain/ with 10 ConfigMaps that write ${APP}. */
function repository(definers: number): World {
  const files: World = new Map([
    ['clusters/home/flux-system/gotk-sync.yaml', gotkSync('./clusters/home')],
    ['clusters/home/plain.yaml', kustomization('plain', './plain')],
  ]);
  for (let i = 0; i < definers; i++) {
    files.set(`clusters/home/app-${i}.yaml`, kustomization(`app-${i}`, `./apps/app-${i}`, `  postBuild:\n    substitute:\n      APP: app-${i}\n`));
    files.set(`apps/app-${i}/cm.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${i}\ndata:\n  name: \${APP}\n`);
  }
  for (let i = 0; i < 10; i++) files.set(`plain/cm-${i}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain-${i}\ndata:\n  name: \${APP}\n`);
  return files;
}

/** The pass-2 contexts of plain/ as the audit makes them. */
async function plainContexts(definers: number): Promise<FileContext[]> {
  const fs = new MemoryRepoFs(repository(definers));
  const files = await fs.listFiles();
  const { contract } = await readContract(fs, {});
  const scanned = await scanFiles(fs, contract, files.filter(mayBeIndexed));
  const data: IndexData = { files, summaries: scanned.summaries, inputs: [] };
  const index = indexFrom(data, contract);
  return files.filter((path) => path.startsWith('plain/')).map((path) => fileContext(index, contract, path));
}

const bytes = (value: unknown) => serialize(value).length;

test('a pass-2 context crosses without its definers, which go once; the worker gets back the same context', async () => {
  const contexts = await plainContexts(40);
  assert.ok(
    contexts.every((context) => (context.flux?.definers?.size ?? 0) > 0),
    'each file of plain/ reads its world definers',
  );
  const shared = sharedData(contexts, []);
  assert.equal(shared.definers.size, 1, 'one world');
  for (const context of contexts) {
    const lean = travelling(shared)(context);
    assert.equal(lean.flux?.definers, undefined);
    // What the worker analyses, after one clone each as postMessage makes: the same data.
    assert.deepEqual(fullContext(structuredClone(lean), structuredClone(shared)), context);
  }
  // The audit's findings of the rule that reads them: 10, one per ConfigMap of plain/.
  const result = await audit(new MemoryRepoFs(repository(40)));
  assert.equal(result.findings.filter((finding) => finding.rule === 'flux-substitution-no-postbuild').length, 10);
});

test("the messages of pass 2 do not grow with the world's definers (control: the whole contexts do)", async () => {
  const [few, many] = [await plainContexts(2), await plainContexts(80)];
  const lean = (contexts: FileContext[]) => bytes(contexts.map(travelling(sharedData(contexts, []))));
  const whole = (contexts: FileContext[]) => bytes(contexts);
  // the control: cloned whole, 40x the definers in every context
  assert.ok(whole(many) > 10 * whole(few), `whole contexts: ${whole(few)} → ${whole(many)} bytes`);
  assert.ok(lean(many) < 1.2 * lean(few), `lean contexts: ${lean(few)} → ${lean(many)} bytes`);
});

/** No Flux: `charts` HelmReleases whose values name no account (each may create any), and `pods` Deployments running as an account nothing declares. */
function podsBesideCharts(charts: number, pods: number): World {
  const files: World = new Map();
  for (let i = 0; i < charts; i++)
    files.set(
      `releases/chart-${i}.yaml`,
      `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: chart-${i}\n  namespace: apps\nspec:\n  chart:\n    spec:\n      chart: chart-${i}\n`,
    );
  for (let i = 0; i < pods; i++)
    files.set(
      `pods/app-${i}.yaml`,
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-${i}\n  namespace: apps\nspec:\n  template:\n    spec:\n      serviceAccountName: ghost\n      containers:\n        - name: app\n          image: app\n`,
    );
  return files;
}

async function podContexts(charts: number, pods: number): Promise<FileContext[]> {
  const fs = new MemoryRepoFs(podsBesideCharts(charts, pods));
  const files = await fs.listFiles();
  const { contract } = await readContract(fs, {});
  const index = indexFrom({ files, summaries: (await scanFiles(fs, contract, files.filter(mayBeIndexed))).summaries, inputs: [] }, contract);
  return files.filter((path) => path.startsWith('pods/')).map((path) => fileContext(index, contract, path));
}

test('the charts that may create a pod account cross once, not in every pod file; the worker gets back the same context', async () => {
  const contexts = await podContexts(30, 10);
  assert.ok(
    contexts.every((context) => context.accountCreators?.length === 30),
    'each pod file has every chart as a candidate',
  );
  const shared = sharedData(contexts, []);
  assert.equal(shared.creators.length, 30, 'each chart once');
  for (const context of contexts) {
    const lean = travelling(shared)(context);
    assert.deepEqual(lean.accountCreators, []);
    assert.deepEqual(fullContext(structuredClone(lean), structuredClone(shared)), context);
  }
  const [few, many] = [await podContexts(2, 10), await podContexts(60, 10)];
  const lean = (contexts: FileContext[]) => bytes(contexts.map(travelling(sharedData(contexts, []))));
  // the control: a context cloned whole carries every chart
  const whole = (contexts: FileContext[]) => contexts.reduce((sum, context) => sum + bytes(context), 0);
  assert.ok(whole(many) > 10 * whole(few), `whole contexts: ${whole(few)} → ${whole(many)} bytes`);
  assert.ok(lean(many) < 2 * lean(few), `lean contexts: ${lean(few)} → ${lean(many)} bytes`);
  const found = (await audit(new MemoryRepoFs(podsBesideCharts(30, 10)))).findings.filter((finding) => finding.rule === 'pod-service-account-undeclared');
  assert.equal(found.length, 10);
  assert.match(found[0].message, /the nearest of 30 charts installed there/);
});
