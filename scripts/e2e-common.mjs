/* global document, window, getComputedStyle, performance, MutationObserver -- the functions given to page.evaluate and waitForFunction run in the workbench's page */
// What the three e2e runners (code-server, web, electron) share: a fresh copy
// of the fixture workspace per run, the control server the suite talks to
// (screenshots, results; see test/e2e/suite/control.ts), the run timeout and
// the final plain "N passed, N failed, N skipped" line.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE = path.join(root, 'test/e2e/fixtures/workspace');
export const SCREENSHOT_DIR = path.join(root, 'test-results/e2e-screenshots');
/** The pictures the READMEs show (the screen tour), copied from a green run with --docs-images. */
export const DOCS_IMAGES = {
  hover: 'docs/images/squiggle-hover.png',
  'quick-fix': 'docs/images/quick-fix-menu.png',
  completion: 'docs/images/variable-completion.png',
  rename: 'docs/images/variable-rename.png',
  'inlay-hints': 'docs/images/inlay-hints-and-lens.png',
  walkthrough: 'docs/images/walkthrough.png',
  'contract-completion': 'docs/images/contract-completion.png',
  'quick-fix-disable': 'docs/images/quick-fix-disable.png',
  'preview-failure': 'docs/images/preview-failure.png',
  'status-item': 'docs/images/status-item.png',
};
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  '--window-size=1280,800',
];
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
  // the pictures have room for the text (a preview beside its source)
  'editor.minimap.enabled': false,
};

/** Workbench log messages that say nothing about the extension (offline machine, features not in use). */
export const NOISE =
  /^\[(AgentHost|ChatModelSelection|AccountPolicyGate)|ENOPRO: No file system provider|Ignoring fetching additional builtin extensions|ENOTFOUND open-vsx\.org|authentication provider 'github'|^Canceled$|package\.nls\.json/;
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
const EXTENSION_FILES = ['package.json', 'syntaxes', 'schemas', 'images', 'README.md', 'LICENSE', 'CHANGELOG.md', 'media'];

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

/** How long the control server waits for a widget unless the suite says (generous: a busy machine is slow, not broken). */
const WIDGET_TIMEOUT_MS = 30_000;

/**
 * Waits until the first visible element matching `selector` shows `text` (when given) and has
 * settled: no finite animation running in it (a fade-in; a spinner's endless one does not count),
 * fully opaque, and the same box on two animation frames in a row (a widget fading or sliding in is
 * photographed once it is done). With `hidden`, waits until no element matching `selector` is
 * visible. Resolves { found: true }, or after `timeout` ms { found: false, seen } with what the
 * page showed for `selector` then (for the failure message).
 */
export async function waitForWidget(page, { selector, text = '', hidden = false, timeout = WIDGET_TIMEOUT_MS }) {
  await traceWidgets(page);
  const found = await page
    .waitForFunction(
      ({ selector, text, hidden }) => {
        const visible = [...document.querySelectorAll(selector)].filter((element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden');
        if (hidden) return visible.length === 0;
        const element = visible.find((candidate) => !text || candidate.textContent.includes(text));
        if (!element) return false;
        const fading = element.getAnimations({ subtree: true }).some((animation) => animation.playState === 'running' && animation.effect?.getComputedTiming().iterations !== Infinity);
        if (fading) return false;
        for (let up = element; up; up = up.parentElement) if (Number(getComputedStyle(up).opacity) < 1) return false;
        const box = JSON.stringify(element.getBoundingClientRect());
        const previous = window.__fjgWidgetBox;
        window.__fjgWidgetBox = box;
        return previous === box;
      },
      { selector, text, hidden },
      { timeout, polling: 'raf' },
    )
    .then(
      () => true,
      () => false,
    );
  if (found) return { found };
  const seen = await page
    .evaluate(
      (selector) =>
        [...document.querySelectorAll(selector)].map((element) => ({
          visible: element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden',
          opacity: getComputedStyle(element).opacity,
          animations: element
            .getAnimations({ subtree: true })
            .filter((animation) => animation.playState === 'running')
            .map((animation) => `${animation.animationName ?? animation.id}:${animation.effect?.getComputedTiming().iterations}`),
          text: element.textContent.replace(/\s+/g, ' ').trim().slice(0, 300),
        })),
      selector,
    )
    .catch((error) => String(error));
  const trace = await page.evaluate(() => window.__fjgTrace?.slice(-40)).catch(() => null);
  return { found, seen, trace, focused: await page.evaluate(() => document.activeElement?.className ?? null).catch(() => null) };
}

/**
 * Waits until the page of a frame (a webview: the Markdown preview) shows the element matching
 * `selector` with its top between `from` and `to` (fractions of the frame's view height: 0 its top
 * edge, 1 its bottom; negative above the view), the same on two looks in a row. Resolves
 * { found: true, top }, or after `timeout` ms { found: false, seen } with what each frame showed.
 */
export async function waitForFrameElement(page, { selector, from, to, loaded = false, timeout = WIDGET_TIMEOUT_MS }) {
  const until = Date.now() + timeout;
  let previous = null;
  let seen = [];
  while (Date.now() < until) {
    seen = [];
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const place = await frame
        .evaluate(
          ({ selector, loaded }) => {
            const element = document.querySelector(selector);
            if (!element) return { absent: document.body?.innerText.slice(0, 80) ?? '' };
            // an image that has loaded (decoded, with a size): what a user sees, not its alt text
            if (loaded && !(element.complete && element.naturalWidth > 0)) return { notLoaded: String(element.src ?? '').slice(0, 160), complete: element.complete };
            return { top: Math.round(element.getBoundingClientRect().top), height: window.innerHeight, scrollY: Math.round(window.scrollY) };
          },
          { selector, loaded },
        )
        .catch((error) => ({ error: String(error).slice(0, 120) }));
      seen.push({ url: frame.url().slice(0, 120), ...place });
    }
    const there = seen.find((place) => place.height > 0 && place.top >= from * place.height && place.top < to * place.height);
    if (there && previous && JSON.stringify(there) === JSON.stringify(previous)) return { found: true, top: there.top };
    previous = there ?? null;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return { found: false, seen };
}

/**
 * Records (once per page) when hover and action widgets appear, change class or go, with the time
 * in ms since the page loaded: what a failure message shows of how a widget came and went.
 */
async function traceWidgets(page) {
  await page
    .evaluate(() => {
      if (window.__fjgTrace) return;
      const trace = (window.__fjgTrace = []);
      const watched = (node) => node.nodeType === 1 && /monaco-hover|action-widget/.test(node.className);
      const note = (what, node) => {
        trace.push(`${Math.round(performance.now())} ${what} ${String(node.className).slice(0, 80)}`);
        if (trace.length > 200) trace.splice(0, trace.length - 200);
      };
      new MutationObserver((mutations) => {
        for (const mutation of mutations) {
          if (mutation.type === 'attributes' && watched(mutation.target)) note('class', mutation.target);
          for (const node of mutation.addedNodes) if (watched(node)) note('added', node);
          for (const node of mutation.removedNodes) if (watched(node)) note('removed', node);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
    })
    .catch(() => undefined);
}

/**
 * The HTTP server the suite calls. CORS is open: the web suite runs in a worker of the page's origin.
 *   POST /wait?selector=..&text=..&state=visible|hidden&timeout=ms   waits for a widget's state ({found})
 *   POST /screenshot?name=..&selector=..&text=..&timeout=ms          waits as /wait (visible), then
 *        photographs the page ({found, path}): the picture shows the widget with its content
 *   POST /frame-element?selector=..&from=..&to=..&timeout=ms   waits until a frame's page (a webview)
 *        shows the element with its top between from and to, fractions of its view's height ({found});
 *        &loaded=1: the element is an image that has loaded
 *   POST /mouse?selector=..   moves the mouse onto the top-most element matching selector ({moved});
 *        without a selector, parks it in the window's corner
 *   POST /result                                                     the mocha results
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
    const json = (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const widget = () => ({
      selector: url.searchParams.get('selector'),
      text: url.searchParams.get('text') ?? '',
      hidden: url.searchParams.get('state') === 'hidden',
      timeout: Number(url.searchParams.get('timeout')) || WIDGET_TIMEOUT_MS,
    });
    try {
      if (url.pathname === '/wait' || url.pathname === '/screenshot') {
        const page = getPage();
        if (!page) return response.writeHead(409).end('no page to look at');
        const wanted = widget();
        const state = wanted.selector ? await waitForWidget(page, wanted) : { found: true };
        if (!state.found) console.error(`${host}: ${url.pathname} ${JSON.stringify(wanted)} not met; the page shows ${JSON.stringify(state)}`);
        if (url.pathname === '/wait') return json(state);
        const name = (url.searchParams.get('name') || 'shot').replace(/[^\w.-]/g, '_');
        const file = path.join(SCREENSHOT_DIR, host, `${name}.png`);
        mkdirSync(path.dirname(file), { recursive: true });
        await page.screenshot({ path: file });
        // a missed attempt keeps its own picture too (the next attempt overwrites the main one)
        if (!state.found) await page.screenshot({ path: path.join(SCREENSHOT_DIR, host, `${name}-missed-${Date.now()}.png`) });
        shots[name] = { file, found: state.found };
        json({ ...state, path: path.relative(root, file) });
      } else if (url.pathname === '/frame-element') {
        const page = getPage();
        if (!page) return response.writeHead(409).end('no page to look at');
        const number = (name) => Number(url.searchParams.get(name));
        const wanted = {
          selector: url.searchParams.get('selector'),
          from: number('from'),
          to: number('to'),
          loaded: url.searchParams.get('loaded') === '1',
          timeout: number('timeout') || WIDGET_TIMEOUT_MS,
        };
        const state = await waitForFrameElement(page, wanted);
        if (!state.found) console.error(`${host}: /frame-element ${JSON.stringify(wanted)} not met; the frames show ${JSON.stringify(state.seen)}`);
        json(state);
      } else if (url.pathname === '/mouse') {
        // the mouse, as a user moves it: onto the top-most visible element matching `selector`, or
        // (park) to the window's top-left corner, away from every editor
        const page = getPage();
        if (!page) return response.writeHead(409).end('no page to point at');
        const selector = url.searchParams.get('selector');
        const box = selector
          ? await page.evaluate((selector) => {
              const boxes = [...document.querySelectorAll(selector)].map((element) => element.getBoundingClientRect()).filter((rect) => rect.width > 0 && rect.height > 0);
              boxes.sort((a, b) => a.top - b.top || a.left - b.left);
              return boxes[0] ? { x: boxes[0].left + boxes[0].width / 2, y: boxes[0].top + boxes[0].height / 2 } : null;
            }, selector)
          : { x: 1, y: 1 };
        if (box) {
          // from just beside it, so that the editor sees a move onto the target even if the mouse was there
          await page.mouse.move(box.x, box.y + 40);
          await page.mouse.move(box.x, box.y, { steps: 4 });
        }
        json({ moved: box !== null, ...box });
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
    /** The results, once posted; the suite posts them before it settles, so this waits only on a lost post (then `ms`). */
    resultWithin: (ms = 30_000) => Promise.race([resultPromise, new Promise((resolve) => setTimeout(resolve, ms).unref())]),
    shots,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The repository's web address as the packaged extension page names its pictures (vsce writes
 * `<repository>/raw/HEAD/<path>`), answered from this checkout: the runs are offline, and what the
 * test checks is that the page asks for the right picture and shows it.
 */
export async function servePicturesOffline(context) {
  const repository = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).repository.url.replace(/\.git$/, '');
  await context.route(`${repository}/raw/HEAD/**`, (route) => {
    const file = path.join(root, decodeURIComponent(new URL(route.request().url()).pathname.split('/raw/HEAD/')[1]));
    return existsSync(file) && file.startsWith(root + path.sep) ? route.fulfill({ path: file }) : route.fulfill({ status: 404 });
  });
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
  for (const test of result.tests.filter((t) => t.state === 'failed')) console.error(`${host}: FAILED ${test.title}${test.error ? `\n  ${test.error.split('\n').slice(0, 6).join('\n  ')}` : ''}`);
  if (runDir && existsSync(runDir)) {
    if (ok && !process.env.KEEP_RUN_DIR) rmSync(runDir, { recursive: true, force: true });
    else console.error(`${host}: run directory kept: ${runDir}`);
  }
  console.log(`${host} e2e ${ok ? 'passed' : 'FAILED'} in ${seconds}s`);
  console.log(`${result.passed} passed, ${failed} failed, ${result.skipped} skipped`);
  exitAfterOutput(ok ? 0 : code === 124 ? 124 : 1);
}

/**
 * Exits once everything written so far has left: on a full pipe (CI's tee on a busy machine)
 * the rest of stdout goes out asynchronously, and a plain exit() would cut off the summary.
 */
export function exitAfterOutput(code) {
  process.stderr.write('', () => process.stdout.write('', () => process.exit(code)));
}

/** A hard deadline for the whole run (RUN_TIMEOUT_S, default 300): a hang exits 124. */
export function deadline(onTimeout) {
  const limit = Number(process.env.RUN_TIMEOUT_S || 300);
  setTimeout(() => onTimeout(`no result after ${limit}s (hang)`), limit * 1000).unref();
}
