// Bundles the end-to-end suite (test/e2e/suite) for the two kinds of extension host:
//   out/e2e/node/index.js + extension.e2e.js + ux.e2e.js + types.e2e.js + depends-on.e2e.js + outside.e2e.js   Node host (code-server, desktop VS Code): mocha from node_modules
//   out/e2e/browser/index.js                   web worker host (@vscode/test-web): mocha's browser build, npm 'assert'
// The extension itself is built by scripts/build.mjs; these bundles never ship.
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const suite = path.join(root, 'test/e2e/suite');
const common = { absWorkingDir: root, bundle: true, sourcemap: 'inline', logLevel: 'warning', external: ['vscode'] };

/** The web build reads and kills nothing on a machine: host.ts → host-browser.ts. */
const browserHost = {
  name: 'e2e-browser-host',
  setup(build) {
    build.onResolve({ filter: /^\.\/host$/ }, (args) => (args.resolveDir === suite ? { path: path.join(suite, 'host-browser.ts') } : undefined));
  },
};

await Promise.all([
  esbuild.build({
    ...common,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    entryPoints: [
      'test/e2e/suite/index-node.ts',
      'test/e2e/suite/extension.e2e.ts',
      'test/e2e/suite/ux.e2e.ts',
      'test/e2e/suite/types.e2e.ts',
      'test/e2e/suite/depends-on.e2e.ts',
      'test/e2e/suite/outside.e2e.ts',
    ],
    outdir: 'out/e2e/node',
    external: ['vscode', 'mocha'],
  }),
  esbuild.build({
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'cjs',
    entryPoints: ['test/e2e/suite/index-browser.ts'],
    outfile: 'out/e2e/browser/index.js',
    define: { global: 'globalThis', 'process.env.NODE_DEBUG': 'false' },
    inject: ['test/e2e/suite/process-shim.js'],
    plugins: [browserHost],
  }),
]);
