// Packages the extension as a .vsix with @vscode/vsce, from a staging folder so
// dist/ (the development build) is never touched:
//   1. scripts/build.mjs --production --outdir=<staging>/dist   (minified, no sourcemaps)
//   2. copy package.json, .vscodeignore and what ships (the users' README, LICENSE, CHANGELOG, icon,
//      grammars, the schema, the walkthrough's media)
//   3. vsce package --no-dependencies (everything the extension runs is bundled), with the
//      allowlist .vscodeignore deciding what goes in (test/package.test.ts checks it), and
//      README.marketplace.md as the extension page (vsce's readmePath): the repository's README is
//      for developers. vsce rewrites its relative links to the repository's web address (package.json
//      `repository`, /raw/HEAD/ for pictures): the workbench's extension page renders media only from
//      http(s) addresses (its sanitizer drops relative paths and data: URLs), so a packaged picture
//      could never show there, and the pictures stay out of the package.
//
//   node scripts/package.mjs [--out=<file.vsix>]    default: flux-job-guard-<version>.vsix here
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.resolve(process.argv.find((arg) => arg.startsWith('--out='))?.slice(6) ?? path.join(root, `${manifest.name}-${manifest.version}.vsix`));
/** Shipped as they are (the bundles come from the build). */
const README = 'README.marketplace.md';
const COPIED = ['package.json', '.vscodeignore', README, 'LICENSE', 'CHANGELOG.md', 'images/icon.png', 'syntaxes', 'schemas', 'media'];

const missing = COPIED.filter((file) => !existsSync(path.join(root, file)));
if (missing.length > 0) {
  console.error(`package: missing ${missing.join(', ')}`);
  process.exit(1);
}

const staging = mkdtempSync(path.join(os.tmpdir(), 'fjg-package-'));
try {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--production', `--outdir=${path.join(staging, 'dist')}`], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the production build failed');
  for (const file of COPIED) cpSync(path.join(root, file), path.join(staging, file), { recursive: true });

  const { createVSIX } = require('@vscode/vsce');
  mkdirSync(path.dirname(out), { recursive: true });
  await createVSIX({ cwd: staging, packagePath: out, dependencies: false, allowStarActivation: false, readmePath: README });

  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  for (const bundle of ['client.js', 'server.js', 'browser/client.js', 'browser/server.js']) {
    console.log(`  dist/${bundle.padEnd(18)} ${kib(statSync(path.join(staging, 'dist', bundle)).size).padStart(10)}`);
  }
  console.log(`  ${path.relative(root, out) || out}: ${kib(statSync(out).size)}`);
} catch (error) {
  console.error(`package: ${error?.message ?? error}`);
  process.exitCode = 1;
} finally {
  rmSync(staging, { recursive: true, force: true });
}
