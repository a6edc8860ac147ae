// Runs every compiled test file under out/test with node's built-in runner.
// The spec reporter ends with node's own summary; we add the plain
// "N passed, N failed, N skipped" line that CI reads last. TMPDIR is a folder
// of this run that the tests must leave empty (a leftover counts as a failure).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
// No file at all would let `node --test` look for tests itself (and run the e2e suites outside their workbench).
if (files.length === 0) {
  console.error(`no compiled test file under out/test matches ${filter.map((s) => JSON.stringify(s)).join(' or ')} (run tsc -p . first?)`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
// The tests' temporary folders go into one folder of this run (TMPDIR), which each test must leave
// empty: what is still there at the end was left behind, and that counts as a failure.
const scratch = mkdtempSync(join(tmpdir(), 'fjg-tests-'));
const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, TMPDIR: scratch } });
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
const leftovers = readdirSync(scratch);
rmSync(scratch, { recursive: true, force: true });
if (leftovers.length > 0) console.error(`\n✖ the tests left ${leftovers.length} temporary file(s) behind (each test removes what it makes): ${leftovers.join(', ')}`);
const count = (key) => Number((run.stdout.match(new RegExp(`^ℹ ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const passed = count('pass'),
  failed = count('fail') + (leftovers.length > 0 ? 1 : 0),
  skipped = count('skipped') + count('todo');
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
// exitCode, not exit(): a pipe that is full (CI's tee on a busy machine) takes the rest of the
// report asynchronously, and exit() would cut it off, summary line included.
process.exitCode = run.status === 0 && failed === 0 && passed > 0 ? 0 : 1;
