// Entry of the suite in a Node extension host (code-server, desktop VS Code):
// the workbench calls run() and exits with its outcome.
import * as path from 'node:path';
import Mocha from 'mocha';
import { postResult, readControl, RunResult } from './control';
import { createReporter } from './reporter';

export async function run(): Promise<void> {
  const control = await readControl();
  let result: RunResult | undefined;
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000, reporter: createReporter((r) => (result = r)) as never });
  mocha.addFile(path.resolve(__dirname, 'extension.e2e.js'));
  mocha.addFile(path.resolve(__dirname, 'ux.e2e.js'));
  mocha.addFile(path.resolve(__dirname, 'types.e2e.js'));
  mocha.addFile(path.resolve(__dirname, 'depends-on.e2e.js'));
  mocha.addFile(path.resolve(__dirname, 'outside.e2e.js'));
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  await postResult(control, result ?? { passed: 0, failed: 1, skipped: 0, tests: [] });
  if (failures > 0) throw new Error(`${failures} test(s) failed`);
}
