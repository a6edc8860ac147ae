// Runs the e2e suite in desktop VS Code (Electron) with @vscode/test-electron:
// the same suite and Node extension host bundle as code-server, on a copy of the
// fixture workspace. Desktop VS Code is not on npm: test-electron downloads it
// from update.code.visualstudio.com. Where that is impossible (offline CI) or
// there is no display, the run is SKIPPED loudly and exits 0; a real failure
// of the suite exits 1, a hang 124.
//
//   node scripts/e2e-electron.mjs [--no-build] [--extension=<dir>]   (as scripts/e2e-code-server.mjs)
// env: VSCODE_EXECUTABLE (an installed `code` binary, skips the download), VSCODE_VERSION (stable),
//      DOWNLOAD_TIMEOUT_S (90), RUN_TIMEOUT_S (300), KEEP_RUN_DIR=1
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildSuite, createRun, deadline, extensionFor, finish, root, startControlServer, writeControl } from './e2e-common.mjs';

const HOST = 'electron';
const started = Date.now();
const require = createRequire(import.meta.url);
const { downloadAndUnzipVSCode, runTests } = require('@vscode/test-electron');

function skip(reason, hint) {
  const lines = [`SKIPPED: the e2e suite did NOT run in desktop VS Code (Electron).`, `reason: ${reason}`, hint, `The same suite runs in code-server and the web workbench: npm run test:e2e`];
  const width = Math.max(...lines.map((line) => line.length)) + 4;
  const bar = '#'.repeat(width + 2);
  console.error(['', bar, ...lines.map((line) => `#  ${line.padEnd(width - 2)}#`), bar, ''].join('\n'));
  console.log(`${HOST} e2e SKIPPED in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}

buildSuite();

let executable = process.env.VSCODE_EXECUTABLE;
if (executable && !existsSync(executable)) skip(`VSCODE_EXECUTABLE=${executable} does not exist`, 'Point VSCODE_EXECUTABLE at the `code` binary of an installed VS Code.');
if (!executable) {
  const limit = Number(process.env.DOWNLOAD_TIMEOUT_S || 90);
  try {
    executable = await Promise.race([
      downloadAndUnzipVSCode({ version: process.env.VSCODE_VERSION || 'stable', cachePath: path.join(root, '.vscode-test'), timeout: 15_000 }),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no download after ${limit}s`)), limit * 1000).unref()),
    ]);
  } catch (error) {
    skip(`desktop VS Code could not be downloaded: ${String(error?.message ?? error).split('\n')[0]}`, 'Allow update.code.visualstudio.com, or set VSCODE_EXECUTABLE to an installed `code` binary.');
  }
}

// Electron needs a display: use the one there is, or start Xvfb.
let xvfb;
const env = { ...process.env };
if (!env.DISPLAY) {
  const which = spawnSync('sh', ['-c', 'command -v Xvfb'], { encoding: 'utf8' });
  if (which.status !== 0) skip('no display (DISPLAY is unset) and no Xvfb', 'apt-get install -y xvfb, or run under a desktop session.');
  const display = `:${90 + (process.pid % 9)}`;
  xvfb = spawn(which.stdout.trim(), [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  env.DISPLAY = display;
  // the display is up once its socket exists (polled; Xvfb exiting early ends the wait too)
  const socket = `/tmp/.X11-unix/X${display.slice(1)}`;
  const xvfbDeadline = Date.now() + 30_000;
  while (!existsSync(socket) && xvfb.exitCode === null && Date.now() < xvfbDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!existsSync(socket)) skip(`Xvfb did not open ${display} within 30 s`, 'Check that Xvfb runs here (apt-get install -y xvfb).');
}

const run = createRun('el');
const extension = extensionFor(run.dir);
const control = await startControlServer({ host: HOST, getPage: () => undefined });
writeControl(run.workspace, { host: 'electron', mode: 'dev', url: control.url, screenshots: false });
for (const dir of ['user-data', 'extensions']) mkdirSync(path.join(run.dir, dir), { recursive: true });

let finishing = false;
async function end(code, reason) {
  if (finishing) return;
  finishing = true;
  xvfb?.kill();
  await control.close();
  finish({ host: HOST, started, result: control.result(), code, reason, runDir: run.dir });
}
deadline((reason) => void end(124, reason));

try {
  Object.assign(process.env, { DISPLAY: env.DISPLAY });
  const code = await runTests({
    vscodeExecutablePath: executable,
    extensionDevelopmentPath: extension,
    extensionTestsPath: path.join(root, 'out/e2e/node/index-node.js'),
    launchArgs: [
      run.workspace,
      '--user-data-dir',
      path.join(run.dir, 'user-data'),
      '--extensions-dir',
      path.join(run.dir, 'extensions'),
      '--disable-workspace-trust',
      '--disable-extensions', // other installed extensions; the one under test still loads
      '--skip-welcome',
      '--skip-release-notes',
      '--disable-gpu',
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ],
  });
  await control.resultWithin();
  await end(code === 0 ? 0 : 1, code === 0 ? undefined : `VS Code exited with ${code}`);
} catch (error) {
  await end(1, String(error?.message ?? error));
}
