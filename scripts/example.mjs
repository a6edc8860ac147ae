// `npm run example`: the audit of the bundled example repository, the main
// job of the tool. The example is built to break every rule once, so the
// audit is expected to fail (exit 1); anything else means the tool is broken.
import { spawnSync } from 'node:child_process';

const run = spawnSync(process.execPath, ['dist/cli.js', 'audit', 'examples/flux-repo', ...process.argv.slice(2)], { stdio: 'inherit' });
if (run.status !== 1) {
  console.error(`\nexpected the example audit to exit 1 (it holds findings on purpose), got ${run.status}`);
  process.exit(1);
}
console.error('\n(exit 1 is expected: the example repository breaks every rule once on purpose)');
