// The text tests the editor runs on every keystroke (which documents to parse, where documents
// start) are written with indexOf, not with a regex that tries every position of a megabyte
// document. Each must answer as the regex it replaced does: a property over random texts made of
// the characters those regexes look at, with the regexes as the oracle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fc from 'fast-check';
import { documentMayMatter } from '../server/src/engine/pipeline/incremental';
import { documentBoundaries, mayAlias } from '../server/src/engine/yaml/documents';
import { goYamlMayRefuse } from '../server/src/engine/yaml/go-yaml';

/** The regexes as they were written before (the oracle). */
const regexes = {
  goYamlMayRefuse: (text: string) => /\\\/|\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]/.test(text) || /^(?:%|\.\.\.)/m.test(text) || /(?:^[ \t]*(?:-[ \t]+)*|[:,[{?][ \t]*)[*&][^\s,[\]{}*&]/m.test(text),
  documentBoundaries: (text: string) => [0, ...[...text.matchAll(/^---(?=[ \t\r\n]|$)/gm)].map((match) => match.index).filter((index) => index > 0)],
  documentMayMatter: (text: string, bareDollar: boolean) =>
    /Job\b|\$\{|\$\$/.test(text) || (bareDollar && text.includes('$')) || /\/tmp\/|serviceAccount/.test(text) || text.includes('{{') || mayAlias(text),
};

const pieces = [
  ' ',
  '  ',
  '\t',
  '-',
  '- ',
  '&',
  '*',
  '&a',
  '*a',
  ':',
  ': ',
  ',',
  '[',
  '{',
  '?',
  'a',
  'x',
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '%',
  '...',
  '.',
  '---',
  '--- ',
  '\\',
  '\\/',
  '\\u',
  'd8',
  'D9',
  '\\U0000',
  '$',
  '${',
  '$$',
  'Job',
  'Jobs',
  'CronJob ',
  '/tmp/',
  'serviceAccount',
  '{{',
  '#',
];
const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 24 }).map((parts) => parts.join(''));

test('goYamlMayRefuse answers as its regexes did (5,000 random texts)', () => {
  fc.assert(
    fc.property(textArb, (text) => assert.equal(goYamlMayRefuse(text), regexes.goYamlMayRefuse(text), JSON.stringify(text))),
    { numRuns: 5000, seed: 22 },
  );
});

test('documentBoundaries answers as its regex did (5,000 random texts)', () => {
  fc.assert(
    fc.property(textArb, (text) => {
      // The regex gives the markers; directives before a marker move its document's start (the same step for both).
      const markers = regexes.documentBoundaries(text);
      const found = documentBoundaries(text);
      assert.equal(found.length, markers.length, JSON.stringify(text));
      found.forEach((start, i) => assert.ok(start <= markers[i] && (start === markers[i] || text[start] === '%'), JSON.stringify(text)));
    }),
    { numRuns: 5000, seed: 22 },
  );
});

test('documentMayMatter answers as its regexes did (5,000 random texts, with and without bare dollars)', () => {
  fc.assert(
    fc.property(textArb, fc.boolean(), (text, bareDollar) => assert.equal(documentMayMatter(text, bareDollar), regexes.documentMayMatter(text, bareDollar), JSON.stringify(text))),
    { numRuns: 5000, seed: 22 },
  );
});

test('controls: each test says yes where it must', () => {
  assert.equal(goYamlMayRefuse('a: 1\n'), false);
  assert.equal(goYamlMayRefuse('a: &x 1\n'), true, 'an anchor after a colon');
  assert.equal(goYamlMayRefuse('- - *x\n'), true, 'an alias after items');
  assert.equal(goYamlMayRefuse('a: b\n...\n'), true, 'a document end');
  assert.equal(goYamlMayRefuse('a: "\\/"\n'), true, 'an escape go-yaml refuses');
  assert.equal(goYamlMayRefuse('text: a **bold** word\n'), false, 'prose');
  assert.deepEqual(documentBoundaries('a: 1\n---\nb: 2\n--- x\n----\n'), [0, 5, 14]);
  assert.equal(documentMayMatter('kind: CronJob\n', false), true);
  assert.equal(documentMayMatter('kind: Jobs\n', false), false);
});
