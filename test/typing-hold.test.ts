// Which syntax findings the editor holds while the user types (engine/editor/typing-hold.ts):
// a table of lines, the edit just made, and whether the finding on the line waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanSubstitutions } from '../server/src/engine/flux/substitution/envsubst/occurrences';
import { holdWhileTyping } from '../server/src/engine/editor/typing-hold';
import type { Finding } from '../server/src/engine/base/types';

/** The syntax findings of a one-line text, as the rule reports them (range from the lexer). */
function syntaxFindings(text: string): Finding[] {
  return scanSubstitutions(text)
    .filter((occurrence) => occurrence.kind === 'syntax-error')
    .map((occurrence) => ({
      rule: 'flux-substitution-syntax',
      severity: 'error',
      file: 'a.yaml',
      job: null,
      message: '',
      range: { start: { line: 0, character: occurrence.start }, end: { line: 0, character: occurrence.end } },
    }));
}

const cases: Array<[string, string, [number, number] | null, boolean]> = [
  ['`${}` just auto-closed', 'a: ${}', [4, 6], true],
  ['`${` typed without auto-close', 'a: ${', [3, 5], true],
  ['a name being typed, not closed yet', 'a: ${BACKU', [9, 10], true],
  ['`${}` typed before a later expression on the line', 'a: ${} ${B}', [4, 6], true],
  ['(shown) `${arr[@]}` finished: its own `}` is there', 'a: ${arr[@]}', [11, 12], false],
  ['(shown) the last edit was elsewhere on the line', 'a: ${} b', [7, 8], false],
  ['(shown) no edit recorded (a whole-text change)', 'a: ${}', null, false],
];
for (const [name, text, edit, held] of cases) {
  test(name, () => {
    const findings = syntaxFindings(text);
    assert.equal(findings.length, 1, `one syntax finding in ${text}`);
    const shown = holdWhileTyping(findings, text, edit && { start: edit[0], end: edit[1] });
    assert.equal(shown.length, held ? 0 : 1);
  });
}

test('other rules are never held', () => {
  const other: Finding = {
    rule: 'flux-substitution-undefined',
    severity: 'error',
    file: 'a.yaml',
    job: null,
    message: '',
    range: { start: { line: 0, character: 3 }, end: { line: 0, character: 6 } },
  };
  assert.deepEqual(holdWhileTyping([other], 'a: ${}', { start: 4, end: 6 }), [other]);
});
