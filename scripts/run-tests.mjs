// Runs every compiled test file under out/test with node's built-in runner.
// The spec reporter ends with node's own summary; we add the plain
// "N passed, N failed, N skipped" line that CI reads last.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'e2e' ? [] : testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = testFiles('out/test').filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
const count = (key) => Number((run.stdout.match(new RegExp(`^ℹ ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const passed = count('pass'), failed = count('fail'), skipped = count('skipped') + count('todo');
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
