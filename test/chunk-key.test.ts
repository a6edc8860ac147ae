// The cache key of a document's text (line-index.ts chunkKey): the editor keeps each document's
// analysis under it, so two texts must never share a key, and one text must always get the same
// one, wherever it sits in its file. A long text without surrogates is hashed as UTF-8 bytes, the
// rest a character at a time; these cases cross both ways and the encoder's blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fc from 'fast-check';
import { chunkKey } from '../server/src/engine/yaml/line-index';

const key = (text: string) => chunkKey(`prefix\n${text}`, 7, 7 + text.length);

test('one text, one key, wherever it sits; short and long, one-byte and two-byte texts', () => {
  for (const text of ['a: 1\n', 'x'.repeat(5000), 'é'.repeat(5000), '中'.repeat(300_000), `${'a'.repeat(4095)}😀`]) {
    assert.equal(key(text), chunkKey(text, 0, text.length));
  }
});

test('texts that differ get different keys (random edits of long texts, 300 cases)', () => {
  const base = `${'  key: value-0123456789\n'.repeat(12_000)}`; // 288,000 characters: two encoder blocks
  fc.assert(
    fc.property(fc.nat({ max: base.length - 1 }), fc.constantFrom('b', 'é', '中', '😀', '\ud800', '\ufffd', ''), (at, inserted) => {
      const edited = base.slice(0, at) + inserted + base.slice(at + 1);
      if (edited !== base) assert.notEqual(key(edited), key(base));
    }),
    { numRuns: 300, seed: 22 },
  );
});

test('texts that differ in their last bytes only (after the last whole four-byte word)', () => {
  for (const length of [5001, 5002, 5003, (1 << 18) + 1]) {
    const text = 'x'.repeat(length);
    assert.notEqual(key(`${text}a`), key(`${text}b`), `${length}`);
    assert.notEqual(key(`${text}é`), key(`${text}è`), `${length}`);
  }
});

test('a lone surrogate and the U+FFFD a UTF-8 encoder writes for it get different keys', () => {
  const long = 'a'.repeat(5000);
  assert.notEqual(key(`${long}\ud800`), key(`${long}\ufffd`));
  assert.notEqual(key(`${long}\udc00x`), key(`${long}\ufffdx`));
});
