// `npm run pack:cli`: the CLI as an npm package of its own, the one CI installs
// (`npx flux-job-guard`, the GitHub Action in action.yml, the pre-commit hook).
// The repository's package.json is the extension's development manifest
// (private, hundreds of dev dependencies); this stages a generated one instead:
//
//   package.json            name flux-job-guard, the root's version, bin, engines node >= 20, no dependencies
//   dist/cli.js             the production bundle of the CLI (it holds the language server: `lsp --stdio`)
//   dist/audit-worker.js    the worker threads the audit starts (server/src/node/audit-workers.ts finds it beside cli.js)
//   README.md               from docs/cli-package-README.md (VERSION replaced by the version)
//   LICENSE
//   .pre-commit-hooks.yaml  from scripts/pre-commit-mirror-hooks.yaml: the package doubles as a
//                           pre-commit hook repository (a mirror, see the README)
//
// then `npm pack` writes flux-job-guard-<version>.tgz into the repository root (or --out-dir)
// and the last line printed is the tarball's absolute path.
//
//   node scripts/pack-cli.mjs [--out-dir=<dir>] [--keep-staging=<dir>]
//     --keep-staging   stage into <dir> (created, must be empty or absent) and leave it there:
//                      the unpacked package, e.g. to make a pre-commit mirror repository of it
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const outDir = path.resolve(option('out-dir') ?? root);
const keep = option('keep-staging');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The package's own manifest: only what an installed CLI needs. */
function cliManifest(source) {
  return {
    name: 'flux-job-guard',
    version: source.version,
    description: 'The flux-job-guard CLI: audits the Kubernetes Jobs and Flux post-build substitution of a Flux GitOps repository (also a language server: `flux-job-guard lsp --stdio`).',
    keywords: ['flux', 'gitops', 'kubernetes', 'job', 'kustomize', 'lint', 'cli', 'language-server'],
    license: source.license,
    repository: source.repository,
    bin: { 'flux-job-guard': 'dist/cli.js' },
    engines: { node: '>=20' },
  };
}

function fail(message) {
  console.error(`pack:cli: ${message}`);
  process.exit(1);
}

let staging;
if (keep) {
  staging = path.resolve(keep);
  mkdirSync(staging, { recursive: true });
  if (readdirSync(staging).length > 0) fail(`--keep-staging=${keep} is not empty`);
} else {
  staging = mkdtempSync(path.join(os.tmpdir(), 'fjg-pack-cli-'));
}
const build = mkdtempSync(path.join(os.tmpdir(), 'fjg-pack-cli-build-'));
try {
  // the production build writes every bundle; the package takes the two the CLI runs
  const run = spawnSync(process.execPath, ['scripts/build.mjs', '--production', `--outdir=${build}`], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) fail('the production build failed');
  mkdirSync(path.join(staging, 'dist'));
  for (const bundle of ['cli.js', 'audit-worker.js']) copyFileSync(path.join(build, bundle), path.join(staging, 'dist', bundle));
  chmodSync(path.join(staging, 'dist/cli.js'), 0o755);
  // VERSION in the README's examples is this package's version
  writeFileSync(path.join(staging, 'README.md'), readFileSync(path.join(root, 'docs/cli-package-README.md'), 'utf8').replaceAll('VERSION', manifest.version));
  copyFileSync(path.join(root, 'LICENSE'), path.join(staging, 'LICENSE'));
  copyFileSync(path.join(root, 'scripts/pre-commit-mirror-hooks.yaml'), path.join(staging, '.pre-commit-hooks.yaml'));
  writeFileSync(path.join(staging, 'package.json'), JSON.stringify(cliManifest(manifest), null, 2) + '\n');

  mkdirSync(outDir, { recursive: true });
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', outDir], { cwd: staging, encoding: 'utf8' });
  if (pack.status !== 0) fail(`npm pack failed:\n${pack.stdout}\n${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout);
  const tarball = path.join(outDir, info.filename);
  console.log(`flux-job-guard ${info.version}: ${info.entryCount} files, ${(info.size / 1024).toFixed(1)} KiB packed, ${(info.unpackedSize / 1024).toFixed(1)} KiB unpacked`);
  for (const file of info.files) console.log(`  ${file.path.padEnd(24)} ${(file.size / 1024).toFixed(1).padStart(8)} KiB`);
  if (keep) console.log(`staged package kept in ${staging}`);
  console.log(tarball);
} finally {
  rmSync(build, { recursive: true, force: true });
  if (!keep) rmSync(staging, { recursive: true, force: true });
}
