// The ecosystem check's comparison (test/ecosystem/triage.ts) goes red in
// each of the three ways it must: an untriaged finding, a finding triaged
// false, a true finding that disappears. And green when all agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonFinding } from '../server/src/cli/formats';
import { compareWithTriage, draftEntries, Triage } from './ecosystem/triage';

const finding = (line: number, rule = 'flux-substitution-undefined'): JsonFinding => ({
  rule,
  severity: 'error',
  file: 'a.yaml',
  line,
  column: 3,
  endLine: line,
  endColumn: 9,
  job: null,
  message: 'm',
});
const triage = (verdict: 'true' | 'false', lines = [4]): Triage => ({
  rules: ['flux-', 'kustomize-reference'],
  entries: [{ repo: 'r', file: 'a.yaml', rule: 'flux-substitution-undefined', lines, verdict, reason: 'why' }],
});

test('agreement: every finding in scope triaged true, every true one still reported; rules out of scope are ignored', () => {
  assert.deepEqual(compareWithTriage(triage('true'), 'r', [finding(4), finding(9, 'ttl-missing')]), []);
});

test('red: an untriaged finding, a finding triaged false, a true finding that disappears', () => {
  assert.match(compareWithTriage(triage('true'), 'r', [finding(4), finding(5)]).join('\n'), /a\.yaml:5:3 flux-substitution-undefined is not triaged/);
  assert.match(compareWithTriage(triage('false'), 'r', [finding(4)]).join('\n'), /was triaged false \(why\): fix the model/);
  assert.match(compareWithTriage(triage('true', [4, 7]), 'r', [finding(4)]).join('\n'), /a\.yaml:7 flux-substitution-undefined was a true hazard and is no longer reported/);
  assert.equal(compareWithTriage(triage('true'), 'other', [finding(4)]).length, 1, 'entries belong to their repository');
});

test('drafts: untriaged findings grouped per file and rule, never judged', () => {
  const drafts = draftEntries(triage('true'), 'r', [finding(4), finding(5), finding(6), finding(8, 'kustomize-reference')]);
  assert.deepEqual(
    drafts.map((d) => [d.rule, d.lines, d.verdict, d.reason.startsWith('UNTRIAGED')]),
    [
      ['flux-substitution-undefined', [5, 6], 'false', true],
      ['kustomize-reference', [8], 'false', true],
    ],
  );
});
