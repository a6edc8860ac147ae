// A table-test harness for the Job rules, in the style of ESLint's RuleTester:
// each case is a YAML text (and, optionally, the contract file's text), run
// through the engine's own loadContract + analyzeFile, and compared with the
// exact findings it must give: rule, severity, 0-based range, the Job, and for
// every quick fix the exact full text of each file after applying its edits.
// After each fix the files are analysed again and the fixed finding must be
// gone (the fix's negative control); a fix that writes the contract must also
// leave a contract that loads without a problem.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeFile, FileAnalysis } from '../../server/src/engine/pipeline/analyze';
import { FileRole } from '../../server/src/engine/pipeline/repo-index';
import { checkContractEntries } from '../../server/src/engine/contract/checks';
import { loadContract } from '../../server/src/engine/contract/load';
import type { Contract, Settings } from '../../server/src/engine/contract/model';
import { RULE_IDS } from '../../server/src/engine/rules/registry';
import type { FileEdit, Finding, Fix, Severity } from '../../server/src/engine/base/types';

export const CONTRACT_PATH = '.flux-job-guard.yaml';
export const DEFAULT_FILE = 'kubernetes/apps/job.yaml';

/** Lines joined with `\n`, with a final `\n`: `lines(...)[i]` is 0-based line i. */
export function lines(...text: string[]): string {
  return text.join('\n') + '\n';
}

/** The same text with CRLF line endings. */
export function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** [startLine, startCharacter, endLine, endCharacter], 0-based, UTF-16 units. */
export type RangeTuple = [number, number, number, number];

export interface ExpectedFix {
  /** The fix's exact title, or a pattern it must match. */
  title: string | RegExp;
  preferred?: boolean;
  /** The manifest's full text after the fix; omitted: the fix must not edit the manifest. */
  output?: string;
  /** The contract's full text after the fix; omitted: the fix must not edit the contract. */
  contract?: string;
  /** Rule ids of the manifest's findings after re-analysing the fixed files, sorted. */
  after: string[];
  /** Rule ids of the contract entry checks after the fix (default: none). */
  contractAfter?: string[];
}

export interface ExpectedFinding {
  rule: string;
  severity: Severity;
  range: RangeTuple;
  /** metadata.name of the Job the finding is about (checked when given). */
  job?: string | null;
  /** The message must match (checked when given). */
  message?: RegExp;
  /** Every fix, in order; omitted means the finding offers none. */
  fixes?: ExpectedFix[];
}

export interface TableCase {
  name: string;
  text: string;
  /** Repository-relative path of the manifest (default kubernetes/apps/job.yaml). */
  file?: string;
  role?: FileRole;
  /** The contract file's text; omitted: there is no contract file. */
  contract?: string;
  settings?: Settings;
  /** Only when set: runs just this case (for debugging). */
  only?: boolean;
}

export interface InvalidCase extends TableCase {
  findings: ExpectedFinding[];
}

export interface AnalysisResult {
  contract: Contract;
  contractFindings: Finding[];
  analysis: FileAnalysis;
}

/** The engine's view of one manifest under one contract. */
export function analyse(text: string, options: { file?: string; role?: FileRole; contract?: string; settings?: Settings } = {}): AnalysisResult {
  const loaded = loadContract(CONTRACT_PATH, options.contract, options.settings ?? {}, RULE_IDS);
  const analysis = analyzeFile({ file: options.file ?? DEFAULT_FILE, text, role: options.role ?? 'resource', contract: loaded.contract });
  return { contract: loaded.contract, contractFindings: loaded.findings, analysis };
}

// ---- applying edits, independently of the engine's own LineIndex ------------------------------

function offsetOf(text: string, position: { line: number; character: number }, what: string): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    assert.notEqual(next, -1, `${what}: line ${position.line} is past the end of the text`);
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset) === -1 ? text.length : text.indexOf('\n', offset);
  const contentEnd = lineEnd > offset && text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
  assert.ok(position.character <= contentEnd - offset, `${what}: character ${position.character} is past the end of line ${position.line}`);
  return offset + position.character;
}

/** Applies LSP-style edits (same-start edits in array order) to a text. */
/** A repository after a fix: each file's edits applied to it (a fix may edit several files). */
export function applyRepositoryEdits(files: Record<string, string>, edits: FileEdit[]): Record<string, string> {
  const out = { ...files };
  for (const file of new Set(edits.map((edit) => edit.file)))
    out[file] = applyFileEdits(
      files[file],
      edits.filter((edit) => edit.file === file),
    );
  return out;
}

export function applyFileEdits(text: string, edits: FileEdit[]): string {
  const resolved = edits.map((edit, index) => ({
    start: offsetOf(text, edit.range.start, 'edit start'),
    end: offsetOf(text, edit.range.end, 'edit end'),
    newText: edit.newText,
    index,
  }));
  resolved.sort((a, b) => b.start - a.start || b.index - a.index);
  for (let i = 1; i < resolved.length; i++) {
    assert.ok(resolved[i].end <= resolved[i - 1].start || resolved[i].start === resolved[i - 1].start, 'the edits of one fix overlap');
  }
  let out = text;
  for (const edit of resolved) out = out.slice(0, edit.start) + edit.newText + out.slice(edit.end);
  return out;
}

export interface FixResult {
  /** The manifest after the fix (unchanged when the fix does not touch it). */
  text: string;
  /** The contract after the fix (undefined when there is still none). */
  contract: string | undefined;
  editedManifest: boolean;
  editedContract: boolean;
}

export function applyFix(fix: Fix, file: string, text: string, contract: string | undefined): FixResult {
  const manifestEdits = fix.edits.filter((edit) => edit.file === file);
  const contractEdits = fix.edits.filter((edit) => edit.file === CONTRACT_PATH);
  assert.equal(manifestEdits.length + contractEdits.length, fix.edits.length, `fix "${fix.title}" edits a file other than ${file} and ${CONTRACT_PATH}`);
  for (const edit of contractEdits) {
    assert.equal(edit.create === true, contract === undefined, `fix "${fix.title}": create must be set exactly when the contract file does not exist`);
  }
  return {
    text: manifestEdits.length > 0 ? applyFileEdits(text, manifestEdits) : text,
    contract: contractEdits.length > 0 ? applyFileEdits(contract ?? '', contractEdits) : contract,
    editedManifest: manifestEdits.length > 0,
    editedContract: contractEdits.length > 0,
  };
}

const tuple = (finding: Finding): RangeTuple => [finding.range.start.line, finding.range.start.character, finding.range.end.line, finding.range.end.character];
const sortedRules = (findings: Finding[]) => findings.map((finding) => finding.rule).sort();

function describeFindings(findings: Finding[]): string {
  return JSON.stringify(
    findings.map((f) => ({ rule: f.rule, severity: f.severity, range: tuple(f), job: f.job, fixes: f.fixes?.map((x) => x.title) })),
    null,
    1,
  );
}

function checkFix(testCase: TableCase, finding: Finding, fix: Fix, expected: ExpectedFix, where: string): void {
  const file = testCase.file ?? DEFAULT_FILE;
  if (typeof expected.title === 'string') assert.equal(fix.title, expected.title, `${where}: title`);
  else assert.match(fix.title, expected.title, `${where}: title`);
  assert.equal(fix.preferred === true, expected.preferred === true, `${where}: preferred`);
  const result = applyFix(fix, file, testCase.text, testCase.contract);
  if (expected.output === undefined) assert.equal(result.editedManifest, false, `${where}: the fix must not edit the manifest`);
  else assert.equal(result.text, expected.output, `${where}: manifest text after the fix`);
  if (expected.contract === undefined) assert.equal(result.editedContract, false, `${where}: the fix must not edit the contract`);
  else assert.equal(result.contract, expected.contract, `${where}: contract text after the fix`);

  // Negative control: the fixed files, analysed again.
  const again = analyse(result.text, { ...testCase, contract: result.contract });
  // A contract entry the fix wrote carries a placeholder reason for a person to replace: flagged, and nothing else.
  const placeholder = (f: { rule: string; message: string }) => f.rule === 'contract-reason-missing' && f.message.includes('placeholder');
  const wrotePlaceholder = result.editedContract && (result.contract ?? '').includes('reason: TODO');
  assert.deepEqual(
    again.contractFindings.filter((f) => !(wrotePlaceholder && placeholder(f))).map((f) => `${f.rule}: ${f.message}`),
    [],
    `${where}: the contract after the fix must load cleanly (but for the placeholder reason it wrote)`,
  );
  if (wrotePlaceholder) assert.ok(again.contractFindings.some(placeholder), `${where}: the placeholder reason is flagged`);
  const rulesAfter = sortedRules(again.analysis.findings);
  assert.deepEqual(rulesAfter, [...expected.after].sort(), `${where}: findings after the fix\n${describeFindings(again.analysis.findings)}`);
  const sameBefore = analyse(testCase.text, testCase).analysis.findings.filter((f) => f.rule === finding.rule && f.job === finding.job).length;
  const sameAfter = again.analysis.findings.filter((f) => f.rule === finding.rule && f.job === finding.job).length;
  assert.ok(sameAfter < sameBefore, `${where}: the fixed ${finding.rule} finding must be gone after the fix (${sameBefore} before, ${sameAfter} after)`);
  if (result.editedContract) {
    const jobs = again.analysis.jobs;
    const entryChecks = checkContractEntries(again.contract, (path) => (path === file ? { exists: true, jobs } : { exists: false }));
    assert.deepEqual(sortedRules(entryChecks), [...(expected.contractAfter ?? [])].sort(), `${where}: contract entry checks after the fix\n${describeFindings(entryChecks)}`);
  }
}

const byPosition = (a: { rule: string; range: RangeTuple }, b: { rule: string; range: RangeTuple }) => a.range[0] - b.range[0] || a.range[1] - b.range[1] || a.rule.localeCompare(b.rule);

export function checkInvalid(testCase: InvalidCase): void {
  const { analysis, contractFindings } = analyse(testCase.text, testCase);
  assert.deepEqual(
    contractFindings.map((f) => `${f.rule}: ${f.message}`),
    [],
    "the case's contract must load cleanly",
  );
  // The engine's order of findings is not part of the contract: compare by position, then rule.
  const actual = [...analysis.findings].sort((a, b) => byPosition({ rule: a.rule, range: tuple(a) }, { rule: b.rule, range: tuple(b) }));
  const expectedFindings = [...testCase.findings].sort(byPosition);
  assert.deepEqual(
    actual.map((f) => ({ rule: f.rule, severity: f.severity, range: tuple(f) })),
    expectedFindings.map((f) => ({ rule: f.rule, severity: f.severity, range: f.range })),
    `findings differ:\n${describeFindings(actual)}`,
  );
  expectedFindings.forEach((expected, i) => {
    const finding = actual[i];
    const where = `finding #${i} (${finding.rule})`;
    assert.ok(finding.message.length > 20, `${where}: a message that says what is wrong and what to do`);
    if (expected.job !== undefined) assert.equal(finding.job, expected.job, `${where}: job`);
    if (expected.message) assert.match(finding.message, expected.message, `${where}: message`);
    const fixes = finding.fixes ?? [];
    const wanted = expected.fixes ?? [];
    assert.equal(fixes.length, wanted.length, `${where}: ${wanted.length} fix(es) expected, got ${JSON.stringify(fixes.map((f) => f.title))}`);
    fixes.forEach((fix, j) => checkFix(testCase, finding, fix, wanted[j], `${where} fix #${j} "${fix.title}"`));
  });
}

export function checkValid(testCase: TableCase): void {
  const { analysis, contractFindings } = analyse(testCase.text, testCase);
  assert.deepEqual(
    contractFindings.map((f) => `${f.rule}: ${f.message}`),
    [],
    "the case's contract must load cleanly",
  );
  assert.deepEqual(
    analysis.findings.map((f) => f.rule),
    [],
    `a valid case gives no finding:\n${describeFindings(analysis.findings)}`,
  );
}

/** One `describe` per table: each valid case must give no finding, each invalid case exactly its findings. */
export function ruleTable(name: string, table: { valid: TableCase[]; invalid: InvalidCase[] }): void {
  describe(name, () => {
    for (const testCase of table.valid) test(`valid: ${testCase.name}`, { only: testCase.only }, () => checkValid(testCase));
    for (const testCase of table.invalid) test(`invalid: ${testCase.name}`, { only: testCase.only }, () => checkInvalid(testCase));
  });
}
