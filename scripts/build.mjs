// Bundles the extension (client), the language server and the CLI with
// esbuild. tsc only type-checks and compiles the tests; what ships is here.
//   --production     minified, no sourcemaps (what the .vsix ships)
//   --outdir=<dir>   write the bundles there instead of dist/ (scripts/package.mjs stages a package)
import * as esbuild from 'esbuild';
import { readFileSync, chmodSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { yamlDebugSwitchesOff } from './yaml-debug-switches.mjs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = process.argv.includes('--production');
const out = process.argv.find((arg) => arg.startsWith('--outdir='))?.slice('--outdir='.length) ?? 'dist';
const common = {
  bundle: true,
  plugins: [yamlDebugSwitchesOff],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  define: { FLUX_JOB_GUARD_VERSION: JSON.stringify(version) },
  // The client bundles docs/rules.md (the rule docs it shows offline); the server bundles the contract's JSON Schema.
  loader: { '.md': 'text' },
};
// The web build: the extension in the browser's extension host, the server in a web worker.
const browser = { ...common, platform: 'browser', target: 'es2022', metafile: true };

const [, , , , browserClient, browserServer] = await Promise.all([
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['server/src/cli.ts'], outfile: `${out}/cli.js` }),
  // The CLI's audit spreads its passes over worker threads running this.
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['server/src/audit-worker.ts'], outfile: `${out}/audit-worker.js` }),
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['server/src/server-node.ts'], outfile: `${out}/server.js` }),
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['client/src/extension-node.ts'], outfile: `${out}/client.js`, external: ['vscode'] }),
  esbuild.build({ ...browser, format: 'cjs', entryPoints: ['client/src/extension-browser.ts'], outfile: `${out}/browser/client.js`, external: ['vscode'] }),
  esbuild.build({ ...browser, format: 'iife', entryPoints: ['server/src/server-browser.ts'], outfile: `${out}/browser/server.js` }),
]);
chmodSync(`${out}/cli.js`, 0o755);

// The browser bundles must not carry Node-only code: esbuild already refuses to
// resolve `node:*` for platform browser; this also catches the Node RepoFs and
// shimmed builtins (a package's "browser" field mapping `fs` to a stub, say).
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const offenders = [browserClient, browserServer].flatMap((result) =>
  Object.entries(result.metafile.inputs).flatMap(([input, info]) => [
    ...(/(^|\/)server\/src\/(node\/|server-node\.ts|cli)/.test(input) ? [input] : []),
    ...info.imports.filter((imported) => builtins.has(imported.path)).map((imported) => `${input} imports ${imported.path}`),
  ]),
);
if (offenders.length > 0) {
  console.error(`Node-only code in the browser build:\n  ${offenders.join('\n  ')}`);
  process.exit(1);
}
