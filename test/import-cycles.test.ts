// The lint check that forbids import cycles (scripts/import-cycles.mjs, run by `npm run lint`):
// red on a planted cycle (values or types only, two files or a longer circle), each reported as
// the chain of its files; green on an acyclic tree; and green on this repository.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

after(removeTempRepos);

interface CycleChecker {
  importCycles(root: string, folders?: string[]): string[][];
}

const ROOT = join(__dirname, '..', '..');
const checker = () => import(pathToFileURL(join(ROOT, 'scripts', 'import-cycles.mjs')).href) as Promise<CycleChecker>;

const cyclesIn = async (files: Record<string, string>) => (await checker()).importCycles(tempRepo('fjg-cycles-', files), ['src']);

test('two modules that import each other are a cycle, reported as the chain of files', async () => {
  const cycles = await cyclesIn({ 'src/a.ts': "import { b } from './b';\nexport const a = () => b;\n", 'src/b.ts': "import { a } from './a';\nexport const b = () => a;\n" });
  assert.deepEqual(cycles, [['src/a.ts', 'src/b.ts', 'src/a.ts']]);
});

test('a circle through a folder, a re-export and a type-only import is a cycle too', async () => {
  const cycles = await cyclesIn({
    'src/a.ts': "import { b } from './room/b';\nexport const a = b;\n",
    'src/room/b.ts': "export { c as b } from '../c';\n",
    'src/c.ts': "import type { A } from './d';\nexport const c: A = 1;\n",
    'src/d.ts': "import { a } from './a';\nexport type A = typeof a;\n",
  });
  assert.deepEqual(cycles, [['src/a.ts', 'src/room/b.ts', 'src/c.ts', 'src/d.ts', 'src/a.ts']]);
});

test('an acyclic tree (shared modules below, imports of packages and of files outside) has no cycle', async () => {
  const cycles = await cyclesIn({
    'src/a.ts': "import { c } from './c';\nimport { b } from './b';\nimport { readFileSync } from 'node:fs';\nexport const a = [b, c, readFileSync];\n",
    'src/b.ts': "import { c } from './c';\nimport { outside } from '../outside';\nexport const b = [c, outside];\n",
    'src/c.ts': 'export const c = 1;\n',
    'outside.ts': 'export const outside = 2;\n',
  });
  assert.deepEqual(cycles, []);
});

test('server/src and client/src have no import cycle', async () => {
  assert.deepEqual((await checker()).importCycles(ROOT), []);
});
