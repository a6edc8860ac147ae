// The .vsix holds exactly what ships: the five production bundles (minified,
// no sourcemaps), the grammar, the contract's JSON Schema, the manifest, README,
// LICENSE, CHANGELOG and the icon. It builds the package with scripts/package.mjs into a temporary folder
// and reads the zip's central directory itself (no zip library).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { inflateRawSync } from 'node:zlib';

const root = resolve(__dirname, '..', '..');

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** The entries of a zip file, from its central directory. */
export function zipEntries(zip: Buffer): ZipEntry[] {
  const EOCD = 0x06054b50;
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, 'end of central directory record found');
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(offset), 0x02014b50, `central directory entry ${i}`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
      method: zip.readUInt16LE(offset + 10),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeaderOffset: zip.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function contentOf(zip: Buffer, entry: ZipEntry): Buffer {
  const local = entry.localHeaderOffset;
  assert.equal(zip.readUInt32LE(local), 0x04034b50, `local header of ${entry.name}`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(data);
  assert.equal(entry.method, 8, `${entry.name} is stored or deflated`);
  return inflateRawSync(data);
}

const BUNDLES = ['extension/dist/client.js', 'extension/dist/server.js', 'extension/dist/audit-worker.js', 'extension/dist/browser/client.js', 'extension/dist/browser/server.js'];

/** The walkthrough's media, as package.json names them (contributes.walkthroughs). */
const manifestJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { walkthroughs: Array<{ steps: Array<{ media: { markdown?: string; image?: string } }> }> };
};
const WALKTHROUGH_MEDIA = manifestJson.contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps.map((step) => `extension/${step.media.markdown ?? step.media.image}`));
/** The pictures of the users' README (the extension page), every one it shows, as paths in the repository. */
const README_PICTURES = [...readFileSync(join(root, 'README.marketplace.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((match) => match[1]);
/** Where vsce points them: the repository's web address (package.json), as GitHub serves a file at HEAD. */
const PICTURES_AT = `${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url}/raw/HEAD/`;

let dir: string;
let zip: Buffer;
let entries: ZipEntry[];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'fjg-vsix-'));
  const vsix = join(dir, 'flux-job-guard.vsix');
  const run = spawnSync(process.execPath, ['scripts/package.mjs', `--out=${vsix}`], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, `scripts/package.mjs failed:\n${run.stdout}\n${run.stderr}`);
  zip = readFileSync(vsix);
  entries = zipEntries(zip);
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('the .vsix holds exactly the allowlist of .vscodeignore', () => {
  const grammars = readdirSync(join(root, 'syntaxes'))
    .filter((name) => name.endsWith('.tmLanguage.json'))
    .map((name) => `extension/syntaxes/${name}`);
  const expected = [
    '[Content_Types].xml', // vsce's own two files
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/readme.md', // README.marketplace.md (readmePath); vsce lower-cases CHANGELOG.md and names LICENSE LICENSE.txt
    'extension/changelog.md',
    'extension/LICENSE.txt',
    'extension/images/icon.png',
    'extension/schemas/flux-job-guard.schema.json', // contributes.yamlValidation
    ...WALKTHROUGH_MEDIA,
    ...grammars,
    ...BUNDLES,
  ].sort();
  assert.deepEqual(entries.map((entry) => entry.name).sort(), expected);
});

test("the extension page is the users' README, its pictures and the rule docs are in the package", () => {
  const readme = contentOf(
    zip,
    entries.find((e) => e.name === 'extension/readme.md')!,
  ).toString('utf8');
  // The workbench's extension page shows media only from http(s) addresses (relative paths are dropped):
  // every picture is the repository's address of a PNG that is in the repository, and none is packaged.
  const shown = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((match) => match[1]);
  assert.equal(README_PICTURES.length, 4);
  assert.deepEqual(
    shown,
    README_PICTURES.map((picture) => PICTURES_AT + picture),
  );
  assert.equal(readme.replaceAll(PICTURES_AT, ''), readFileSync(join(root, 'README.marketplace.md'), 'utf8'), 'README.marketplace.md, only its pictures readdressed');
  assert.doesNotMatch(readme, /npm ci/, "not the developers' README");
  for (const picture of README_PICTURES) {
    assert.deepEqual([...readFileSync(join(root, picture)).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${picture} is a PNG in the repository`);
    assert.ok(!entries.some((e) => e.name === `extension/${picture}`), `${picture} is not packaged`);
  }
  assert.equal(WALKTHROUGH_MEDIA.length, 4);
  // the rule docs travel in the client bundles (shown offline from each finding)
  const rules = readFileSync(join(root, 'docs', 'rules.md'), 'utf8');
  for (const name of ['extension/dist/client.js', 'extension/dist/browser/client.js']) {
    const text = contentOf(
      zip,
      entries.find((e) => e.name === name)!,
    ).toString('utf8');
    const headings = rules.split('\n').filter((line) => line.startsWith('### '));
    assert.ok(headings.length >= 30, `${headings.length} rule headings`);
    assert.deepEqual(
      headings.filter((heading) => !text.includes(heading)),
      [],
      `${name} holds docs/rules.md`,
    );
  }
});

test('the bundles are production builds: minified, no sourcemaps, entry points present', () => {
  const sizes: string[] = [];
  for (const name of BUNDLES) {
    const entry = entries.find((e) => e.name === name)!;
    const bytes = contentOf(zip, entry);
    assert.equal(bytes.length, entry.size, `${name} inflates to its recorded size`);
    const text = bytes.toString('utf8');
    assert.ok(!/sourceMappingURL/.test(text), `${name} has no sourcemap reference`);
    const lines = text.split('\n').length;
    assert.ok(text.length / lines > 500, `${name} is minified (${lines} lines for ${text.length} bytes)`);
    sizes.push(`${name.slice('extension/'.length)} ${(entry.size / 1024).toFixed(1)} KiB (${(entry.compressedSize / 1024).toFixed(1)} KiB zipped)`);
  }
  const manifest = JSON.parse(
    contentOf(
      zip,
      entries.find((e) => e.name === 'extension/package.json')!,
    ).toString('utf8'),
  ) as { main: string; browser: string; icon: string };
  for (const entry of [manifest.main, manifest.browser]) {
    assert.ok(
      entries.some((e) => e.name === `extension/${entry.replace(/^\.\//, '')}`),
      `entry point ${entry} is in the package`,
    );
  }
  assert.equal(manifest.icon, 'images/icon.png');
  const icon = contentOf(
    zip,
    entries.find((e) => e.name === 'extension/images/icon.png')!,
  );
  assert.deepEqual([...icon.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the icon is a PNG');
  console.log(`bundle sizes: ${sizes.join('; ')}; .vsix ${(zip.length / 1024).toFixed(1)} KiB`);
});

test('the browser bundles carry no Node-only code', () => {
  for (const name of BUNDLES.filter((n) => n.includes('/browser/'))) {
    const text = contentOf(
      zip,
      entries.find((e) => e.name === name)!,
    ).toString('utf8');
    const required = [...text.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((match) => match[1]);
    assert.deepEqual(
      [...new Set(required)].filter((module) => module !== 'vscode'),
      [],
      `${name} requires only vscode`,
    );
    assert.ok(!/NodeRepoFs|node:fs|child_process/.test(text), `${name} holds no Node file-system code`);
  }
});
