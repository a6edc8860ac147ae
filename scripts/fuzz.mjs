// The long fuzz run: the properties of test/fuzz.test.ts for as many cases as asked.
//   npm run -s build && node scripts/fuzz.mjs [--cases N] [--seed S] [--only analyzeFile|audit|decode]
// The cases are shared out among the properties (analyzeFile 50%, audit 40%, decode 10%) and run in
// rounds of 1,000 with seeds S, S+1, ... so progress shows and a failure names the seed to replay.
// Prints the number of cases it ran; exits 1 on the first counterexample (shrunk, with its seed).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

const require = createRequire(import.meta.url);
const helpers = new URL('../out/test/helpers/arbitraries.js', import.meta.url);
if (!existsSync(helpers)) {
  console.error('fuzz: out/test/helpers/arbitraries.js is missing: run `npx tsc -p .` (or `npm run build`) first.');
  process.exit(2);
}
const fc = require('fast-check');
const { properties } = require(helpers.pathname);

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const total = Number(option('cases', 100000));
const seed = Number(option('seed', Date.now() % 2147483647));
const only = option('only', null);
if (!Number.isSafeInteger(total) || total <= 0 || !Number.isSafeInteger(seed)) {
  console.error('usage: node scripts/fuzz.mjs [--cases N] [--seed S] [--only analyzeFile|audit|decode]');
  process.exit(2);
}

const shares = only ? { [only]: 1 } : { analyzeFile: 0.5, audit: 0.4, decode: 0.1 };
const stats = { cases: 0, fixesApplied: 0 };
const props = properties(stats);
const started = Date.now();
const ROUND = 1000;
let round = 0;
console.log(`fuzz: ${total} cases, seed ${seed}`);
for (const [name, share] of Object.entries(shares)) {
  if (!(name in props)) {
    console.error(`fuzz: no property ${name}`);
    process.exit(2);
  }
  let left = Math.round(total * share);
  while (left > 0) {
    const numRuns = Math.min(ROUND, left);
    const roundSeed = seed + round++;
    const details = await fc.check(props[name], { numRuns, seed: roundSeed });
    if (details.failed) {
      console.error(`fuzz: property ${name} failed (seed ${roundSeed}, after ${stats.cases} cases in all)`);
      console.error(fc.defaultReportMessage(details));
      if (details.errorInstance instanceof Error) console.error(`\nviolations:\n${details.errorInstance.message}`);
      console.log(`ran ${stats.cases} cases (${stats.fixesApplied} quick fixes applied and re-analysed): FAILED`);
      process.exit(1);
    }
    left -= numRuns;
    process.stdout.write(`  ${name}: ${Math.round(total * share) - left} cases (${stats.cases} in all, ${stats.fixesApplied} fixes, ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
}
console.log(`ran ${stats.cases} cases (${stats.fixesApplied} quick fixes applied and re-analysed) in ${((Date.now() - started) / 1000).toFixed(1)} s: no property failed`);
