// What the three e2e runners (code-server, web, electron) share: a fresh copy
// of the fixture workspace per run, the control server the suite talks to
// (screenshots, results; see test/e2e/suite/control.ts), the run timeout and
// the final plain "N passed, N failed, N skipped" line.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE = path.join(root, 'test/e2e/fixtures/workspace');
export const SCREENSHOT_DIR = path.join(root, 'test-results/e2e-screenshots');
/** The pictures the README shows, copied from a green run with --docs-images. */
export const DOCS_IMAGES = {
  hover: 'docs/images/squiggle-hover.png',
  'quick-fix': 'docs/images/quick-fix-menu.png',
  completion: 'docs/images/variable-completion.png',
  rename: 'docs/images/variable-rename.png',
  'inlay-hints': 'docs/images/inlay-hints-and-lens.png',
};
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic', '--window-size=1280,800'];
export const VIEWPORT = { width: 1280, height: 800 };
/** User settings for a quiet workbench: the screenshots show the editor, not the chat panel or a welcome page. */
export const WORKBENCH_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'files.exclude': { '**/.vscode': true },
};

/** Workbench log messages that say nothing about the extension (offline machine, features not in use). */
export const NOISE = /^\[(AgentHost|ChatModelSelection|AccountPolicyGate)|ENOPRO: No file system provider|Ignoring fetching additional builtin extensions|ENOTFOUND open-vsx\.org|authentication provider 'github'|^Canceled$|package\.nls\.json/;
export const isNoise = (text) => !process.env.VERBOSE && NOISE.test(text);

export const flag = (name) => process.argv.includes(`--${name}`);
export const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

/** Bundles the suite (out/e2e) unless --no-build. */
export function buildSuite() {
  if (flag('no-build')) return;
  const run = spawnSync(process.execPath, ['scripts/e2e-build.mjs'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error('scripts/e2e-build.mjs failed');
    console.log('0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
}

/** What an extension folder holds besides its bundles (those that exist). */
const EXTENSION_FILES = ['package.json', 'syntaxes', 'images', 'README.md', 'LICENSE', 'CHANGELOG.md'];

/**
 * The extension under test as a folder of its own: a development build of the
 * bundles (scripts/build.mjs --outdir) plus the manifest and assets. The hosts load
 * it from there, never from dist/, so a build someone runs meanwhile cannot swap
 * the server under a running suite.
 */
export function prepareExtension(target) {
  const run = spawnSync(process.execPath, ['scripts/build.mjs', `--outdir=${path.join(target, 'dist')}`], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error('scripts/build.mjs failed');
    console.log('0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
  for (const file of EXTENSION_FILES) {
    if (existsSync(path.join(root, file))) cpSync(path.join(root, file), path.join(target, file), { recursive: true });
  }
  return target;
}

/** --extension=<dir>: an extension folder prepared before (scripts/e2e-run.mjs builds one for all hosts); else build one into the run dir. */
export function extensionFor(runDir) {
  const given = option('extension');
  return given ? path.resolve(given) : prepareExtension(path.join(runDir, 'extension'));
}

/**
 * A run directory (mkdtemp) holding a copy of the fixture workspace, so the
 * repository's fixtures never change. Short paths: VS Code puts IPC sockets in TMPDIR.
 */
export function createRun(host) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `fjg-${host}-`));
  const workspace = path.join(dir, 'workspace');
  cpSync(FIXTURE, workspace, { recursive: true });
  return { dir, workspace };
}

/** Tells the suite which host it runs in and where the control server listens. */
export function writeControl(workspace, control) {
  mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  writeFileSync(path.join(workspace, '.vscode/e2e-control.json'), JSON.stringify(control, null, 2) + '\n');
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The HTTP server the suite calls: POST /screenshot?name=..&selector=.. (waits up
 * to 5 s for the selector, photographs the page, answers {found, path}) and
 * POST /result (the mocha results). CORS is open: the web suite runs in a worker
 * of the page's origin.
 */
export async function startControlServer({ host, getPage }) {
  let result = null;
  let resolveResult;
  const resultPromise = new Promise((resolve) => (resolveResult = resolve));
  const shots = {};
  const server = http.createServer(async (request, response) => {
    response.setHeader('access-control-allow-origin', '*');
    response.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS');
    response.setHeader('access-control-allow-headers', 'content-type');
    response.setHeader('access-control-allow-private-network', 'true');
    if (request.method === 'OPTIONS') return response.writeHead(204).end();
    const url = new URL(request.url, 'http://127.0.0.1');
    try {
      if (url.pathname === '/screenshot') {
        const page = getPage();
        if (!page) return response.writeHead(409).end('no page to photograph');
        const name = (url.searchParams.get('name') || 'shot').replace(/[^\w.-]/g, '_');
        const selector = url.searchParams.get('selector');
        let found = false;
        if (selector) {
          found = await page.waitForSelector(selector, { state: 'visible', timeout: 5000 }).then(() => true, () => false);
          await new Promise((r) => setTimeout(r, 400)); // let the widget's fade-in finish
        }
        const file = path.join(SCREENSHOT_DIR, host, `${name}.png`);
        mkdirSync(path.dirname(file), { recursive: true });
        await page.screenshot({ path: file });
        shots[name] = { file, found };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ found, path: path.relative(root, file) }));
      } else if (url.pathname === '/result') {
        let body = '';
        for await (const chunk of request) body += chunk;
        result = JSON.parse(body);
        resolveResult(result);
        response.writeHead(204).end();
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      response.writeHead(500).end(String(error?.stack ?? error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    result: () => result,
    resultPromise,
    shots,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Copies the README's pictures from this run's screenshots (only with --docs-images). */
export function copyDocsImages(shots) {
  if (!flag('docs-images')) return;
  for (const [name, target] of Object.entries(DOCS_IMAGES)) {
    const shot = shots[name];
    if (!shot?.found) {
      console.error(`--docs-images: no good "${name}" screenshot in this run; ${target} left as it was`);
      continue;
    }
    mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
    copyFileSync(shot.file, path.join(root, target));
    console.log(`copied ${path.relative(root, shot.file)} -> ${target}`);
  }
}

/**
 * Prints the per-host verdict and the last line, "N passed, N failed, N skipped",
 * and exits: 0 green, 1 red, 124 hang. Without results from the suite, the run counts as one failure.
 */
export function finish({ host, started, result, code, reason, runDir }) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!result) result = { passed: 0, failed: 1, skipped: 0, tests: [] };
  const failed = code !== 0 && result.failed === 0 ? 1 : result.failed;
  const ok = code === 0 && failed === 0 && result.passed > 0;
  if (reason) console.error(`${host}: ${reason}`);
  for (const test of result.tests.filter((t) => t.state === 'failed')) console.error(`${host}: FAILED ${test.title}`);
  if (runDir && existsSync(runDir)) {
    if (ok && !process.env.KEEP_RUN_DIR) rmSync(runDir, { recursive: true, force: true });
    else console.error(`${host}: run directory kept: ${runDir}`);
  }
  console.log(`${host} e2e ${ok ? 'passed' : 'FAILED'} in ${seconds}s`);
  console.log(`${result.passed} passed, ${failed} failed, ${result.skipped} skipped`);
  process.exit(ok ? 0 : code === 124 ? 124 : 1);
}

/** A hard deadline for the whole run (RUN_TIMEOUT_S, default 300): a hang exits 124. */
export function deadline(onTimeout) {
  const limit = Number(process.env.RUN_TIMEOUT_S || 300);
  setTimeout(() => onTimeout(`no result after ${limit}s (hang)`), limit * 1000).unref();
}
