// Bundles the extension (client), the language server and the CLI with
// esbuild. tsc only type-checks and compiles the tests; what ships is here.
import * as esbuild from 'esbuild';
import { readFileSync, chmodSync } from 'node:fs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = process.argv.includes('--production');
const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  define: { FLUX_JOB_GUARD_VERSION: JSON.stringify(version) },
};

await Promise.all([
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['server/src/cli.ts'], outfile: 'dist/cli.js' }),
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['server/src/server-node.ts'], outfile: 'dist/server.js' }),
  esbuild.build({ ...common, platform: 'node', target: 'node20', format: 'cjs', entryPoints: ['client/src/extension-node.ts'], outfile: 'dist/client.js', external: ['vscode'] }),
]);
chmodSync('dist/cli.js', 0o755);
