// Entry of the suite in the web extension host (a web worker): mocha's browser
// build, the suite bundled in (scripts/e2e-build.mjs).
import 'mocha/mocha';
import { postResult, readControl, RunResult } from './control';
import { createReporter } from './reporter';

declare const mocha: {
  setup(options: object): void;
  run(callback: (failures: number) => void): unknown;
};

export async function run(): Promise<void> {
  const control = await readControl();
  let result: RunResult | undefined;
  mocha.setup({ ui: 'tdd', timeout: 60_000, reporter: createReporter((r) => (result = r)) });
  // After setup, which defines the tdd globals (suite, test) the files call as they load.
  // esbuild bundles both in and runs each here, in this order; `.js` as node16 resolution wants (esbuild finds the .ts).
  await import('./extension.e2e.js');
  await import('./ux.e2e.js');
  await import('./types.e2e.js');
  await import('./depends-on.e2e.js');
  await import('./outside.e2e.js');
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  await postResult(control, result ?? { passed: 0, failed: 1, skipped: 0, tests: [] });
  if (failures > 0) throw new Error(`${failures} test(s) failed`);
}
