// The CLI as an npm package, as a CI gets it: `npm run pack:cli` writes the
// tarball and prints its path last; `npm install --offline <tarball>` into an
// empty folder brings a working `flux-job-guard` with no other package: the
// audit of the example repository, envsubst, --version and the language server
// over stdio. The package stays small and ships no tests, sources or dev files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { describeRun, EXAMPLE, installCli, ROOT, run } from './helpers/cli-package';
import { removeTempRepos, tempDir } from './helpers/temp-repo';

const MAX_FILES = 40;
const MAX_BYTES = 2 * 1024 * 1024;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

let tarball: string;
let bin: string;
let packOutput: string;

before(() => {
  // through npm, as the README says: `npm run pack:cli`
  const out = tempDir('fjg-cli-tgz-');
  const packed = run('npm', ['run', '-s', 'pack:cli', '--', `--out-dir=${out}`], { cwd: ROOT });
  assert.equal(packed.status, 0, describeRun('npm run pack:cli', packed));
  packOutput = packed.stdout;
  tarball = packed.stdout.trimEnd().split('\n').at(-1)!;
  bin = installCli(tarball);
});

after(removeTempRepos);

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

test('pack:cli prints the tarball path last: flux-job-guard-<version>.tgz, an absolute path that exists', () => {
  assert.equal(basename(tarball), `flux-job-guard-${version}.tgz`, `last line of:\n${packOutput}`);
  assert.ok(tarball.startsWith('/'), `absolute: ${tarball}`);
  assert.ok(statSync(tarball).size > 0);
});

test('the package holds the bin, the worker, the README, the license and the hook file, and nothing else (≤ 40 files, ≤ 2 MB)', () => {
  const packageDir = join(dirname(dirname(bin)), 'flux-job-guard');
  const files = filesBelow(packageDir);
  assert.deepEqual(files, ['.pre-commit-hooks.yaml', 'LICENSE', 'README.md', 'dist/audit-worker.js', 'dist/cli.js', 'package.json']);
  assert.ok(files.length <= MAX_FILES, `${files.length} files`);
  const bytes = files.reduce((sum, file) => sum + statSync(join(packageDir, file)).size, 0);
  assert.ok(bytes <= MAX_BYTES, `${bytes} bytes unpacked`);
  assert.ok(statSync(tarball).size <= MAX_BYTES, `${statSync(tarball).size} bytes packed`);
  for (const bundle of ['dist/cli.js', 'dist/audit-worker.js']) {
    const text = readFileSync(join(packageDir, bundle), 'utf8');
    assert.ok(!/sourceMappingURL/.test(text), `${bundle}: no sourcemap`);
  }
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(
    { name: manifest.name, version: manifest.version, bin: manifest.bin, engines: manifest.engines, license: manifest.license, dependencies: manifest.dependencies, scripts: manifest.scripts },
    { name: 'flux-job-guard', version, bin: { 'flux-job-guard': 'dist/cli.js' }, engines: { node: '>=20' }, license: 'MIT', dependencies: undefined, scripts: undefined },
  );
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  assert.ok(readme.includes(`flux-job-guard@${version}`) && !readme.includes('VERSION'), 'the README names this version');
  console.log(`tarball ${(statSync(tarball).size / 1024).toFixed(1)} KiB, ${files.length} files, ${(bytes / 1024).toFixed(1)} KiB unpacked`);
});

test('the installed bin: --version, and the audit of the example repository fails with its summary line', () => {
  const versionRun = run(bin, ['--version']);
  assert.equal(versionRun.status, 0, describeRun('--version', versionRun));
  assert.equal(versionRun.stdout.trim(), version);
  for (const threads of ['1', '2']) {
    const audit = run(bin, ['audit', EXAMPLE, '--threads', threads], { env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(audit.status, 1, describeRun(`audit --threads ${threads}`, audit));
    assert.match(audit.stdout.trimEnd().split('\n').at(-1)!, /^FAIL: \d+ error\(s\), \d+ warning\(s\) in \d+ Job\(s\) in \d+ file\(s\)$/);
  }
  const sarif = run(bin, ['audit', EXAMPLE, '--format', 'sarif']);
  assert.equal(sarif.status, 1);
  assert.equal((JSON.parse(sarif.stdout) as { version: string }).version, '2.1.0');
});

test('the installed bin: envsubst replaces ${A} from --var on stdin', () => {
  const result = run(bin, ['envsubst', '--var', 'A=b'], { input: 'value: ${A}\nkept: $${A}\n' });
  assert.equal(result.status, 0, describeRun('envsubst', result));
  assert.equal(result.stdout, 'value: b\nkept: ${A}\n');
});

test('the installed bin: lsp --stdio answers initialize with its capabilities, then shuts down', { timeout: 60_000 }, async () => {
  const server = spawn(bin, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  const send = (message: object) => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    server.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  // responses by id, read from the Content-Length framed stream
  const responses = new Map<number, (message: { result?: unknown }) => void>();
  let buffer = Buffer.alloc(0);
  server.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as { id?: unknown; method?: string; result?: unknown };
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (typeof message.id === 'number' && !('method' in message)) responses.get(message.id)?.(message);
    }
  });
  const request = (id: number, method: string, params: unknown) =>
    new Promise<{ result?: unknown }>((resolve) => {
      responses.set(id, resolve);
      send({ id, method, params });
    });
  try {
    const initialized = (await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} })) as {
      result: { capabilities: Record<string, unknown>; serverInfo?: { name: string } };
    };
    const { capabilities } = initialized.result;
    assert.ok(capabilities.textDocumentSync !== undefined, `textDocumentSync in ${JSON.stringify(capabilities)}`);
    assert.ok(capabilities.codeActionProvider, 'code actions');
    assert.ok(capabilities.hoverProvider, 'hover');
    send({ method: 'initialized', params: {} });
    await request(2, 'shutdown', null);
    send({ method: 'exit' });
    assert.equal(await exited, 0, `the server exits cleanly after shutdown/exit; stderr: ${stderr}`);
  } finally {
    server.kill();
  }
});

test("the README's CI examples name this version of the package", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const named = [...readme.matchAll(/flux-job-guard(?:@|-)v?(\d+\.\d+\.\d+)/g)].map((match) => match[1]);
  assert.ok(named.length >= 4, `the README names the package with its version (${named.length} times)`);
  assert.deepEqual([...new Set(named)], [version]);
});
