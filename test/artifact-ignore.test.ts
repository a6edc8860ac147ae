// The artifact's membership is narrowed folder by folder (matchUnder) for
// speed: it must answer exactly what scanning every pattern for every file
// answers (excludedBy, the go-git semantics the flux-model tests pin down).
// A property over random ignore files, spec.ignore texts and paths, and tables
// of matchUnder with a negative control for each verdict.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as fc from 'fast-check';
import { ArtifactIndex, makeArtifact } from '../server/src/engine/flux/model/artifact';
import { excludedBy, matchUnder, parsePattern, segmentMatch } from '../server/src/engine/flux/model/gitignore';

const SEGMENT = fc.constantFrom('a', 'b', 'apps', 'deploy', 'crds', 'x.yaml', 'y.md', '.github', 'flux-system');
const PATH = fc.array(SEGMENT, { minLength: 1, maxLength: 5 }).map((segments) => segments.join('/'));
const PATTERN_PART = fc.constantFrom('a', 'b', 'apps', 'deploy', 'crds', '*', '*.yaml', '*.md', '**', 'c?ds', '[ab]', 'flux-*');
const PATTERN = fc
  .record({
    negate: fc.boolean(),
    lead: fc.boolean(),
    parts: fc.array(PATTERN_PART, { minLength: 1, maxLength: 3 }),
    dirOnly: fc.boolean(),
  })
  .map(({ negate, lead, parts, dirOnly }) => `${negate ? '!' : ''}${lead ? '/' : ''}${parts.join('/')}${dirOnly ? '/' : ''}`);
const IGNORE_TEXT = fc.array(PATTERN, { maxLength: 5 }).map((lines) => lines.join('\n'));
const IGNORE_FILES = fc.dictionary(fc.constantFrom('', 'a', 'apps', 'a/b', 'deploy'), IGNORE_TEXT, { maxKeys: 3 });

describe('artifact membership narrowed by folder', () => {
  test('equals excludedBy over every pattern, for every file (property)', () => {
    fc.assert(
      fc.property(IGNORE_FILES, fc.option(IGNORE_TEXT, { nil: null }), fc.constantFrom('', 'a', 'apps'), fc.array(PATH, { minLength: 1, maxLength: 30 }), (folders, spec, root, paths) => {
        const ignoreFiles = new Map(Object.entries(folders).map(([dir, text]) => [dir === '' ? '.sourceignore' : `${dir}/.sourceignore`, text]));
        const artifact = makeArtifact('k', 'label', root, ignoreFiles, spec, 'spec.ignore');
        const index = new ArtifactIndex(artifact);
        for (const path of paths) {
          const full = root === '' ? path : `${root}/${path}`;
          assert.equal(index.exclusion(full), excludedBy(artifact.patterns, full), `${full} under ${JSON.stringify({ folders, spec, root })}`);
          // A folder said to hold nothing holds no file the scan keeps.
          for (let dir = full.slice(0, full.lastIndexOf('/') + 1 || 0).replace(/\/$/, ''); ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))) {
            if (index.holdsNothingUnder(dir)) assert.notEqual(excludedBy(artifact.patterns, full), null, `${dir} holds ${full}`);
            if (dir === '') break;
          }
        }
      }),
      { numRuns: 400, seed: 7 },
    );
  });
});

describe('matchUnder', () => {
  const under = (line: string, dir: string, domain = '') => matchUnder(parsePattern(line, domain === '' ? [] : domain.split('/'), 'test'), dir === '' ? [] : dir.split('/'));
  const table: Array<[string, string, string, 'none' | 'all' | 'some']> = [
    ['/*', '', '', 'some'], // a file at the top matches; the folder alone cannot say for `/*` at ''
    ['/*', 'apps', '', 'all'],
    ['!/deploy/crds', 'deploy', '', 'some'],
    ['!/deploy/crds', 'deploy/crds', '', 'all'],
    ['!/deploy/crds', 'apps', '', 'none'], // negative control of the line above
    ['crds', 'x/crds/y', '', 'all'],
    ['crds', 'x/y', '', 'some'], // a deeper folder or file may be named crds
    ['*.md', 'apps', 'other', 'none'], // another folder's ignore file
    ['*.md', 'other', 'other', 'some'],
    ['**/crds', 'apps', '', 'some'],
  ];
  for (const [line, dir, domain, expected] of table) {
    test(`${line} (read in '${domain}') under '${dir}': ${expected}`, () => assert.equal(under(line, dir, domain), expected));
  }
});

describe('segmentMatch (filepath.Match for one segment)', () => {
  // A name and `*` with a literal end are matched without a regular expression: each row holds both
  // ways to the same answers, with a negative control on every side.
  const rows: Array<[pattern: string, name: string, matches: boolean]> = [
    ['*.png', 'a.png', true],
    ['*.png', '.png', true], // `*` matches nothing too
    ['*.png', 'a.PNG', false],
    ['*.png', 'a.png.bak', false],
    ['**.tar.gz', 'x.tar.gz', true],
    ['*', '', true],
    ['*', 'anything', true],
    ['name', 'name', true],
    ['name', 'Name', false],
    ['\\*.png', '*.png', true],
    ['\\*.png', 'a.png', false],
    ['*a?', 'xab', true],
    ['*a?', 'xa', false],
    ['[ab]*.c', 'b1.c', true],
    ['[ab]*.c', 'c1.c', false],
    ['[ab', 'a', false], // a bad pattern matches nothing
  ];
  for (const [pattern, name, matches] of rows) {
    test(`${JSON.stringify(pattern)} ${matches ? 'matches' : 'does not match'} ${JSON.stringify(name)}`, () => assert.equal(segmentMatch(pattern, name), matches));
  }
});
