// Silencing one finding where it stands, as ESLint does:
//
//   # flux-job-guard-disable-next-line ttl-missing -- the Job is deleted by its own CronJob
//
// on the line above the finding (in YAML, or in a script or env file a
// generator reads). The reason after `--` is required: a directive without
// one (or with the placeholder a quick fix writes) is reported, and so is a
// directive that silences nothing (a rule that no longer fires, a misspelt id).
import { RULE_IDS } from '../rules/registry';
import { directiveReasonMissing, reasonMissingFinding } from '../rules/directive-reason-missing';
import { directiveUnused, idleDirectiveFinding, unknownRulesFinding } from '../rules/directive-unused';
import { DIRECTIVE } from '../rules/support/directive';
import { applySeverities } from './severity';
import { LineIndex } from '../yaml/line-index';
import type { Finding, Fix, SeveritySetting } from '../base/types';
import { DIRECTIVE_REASON_PLACEHOLDER } from '../base/placeholders';

/** The rules a directive reports: never silenced by one, never offered the fix that writes one. */
const DIRECTIVE_RULES: ReadonlySet<string> = new Set([directiveUnused.meta.id, directiveReasonMissing.meta.id]);

interface Directive {
  line: number;
  /** Rule ids it names (none: every rule). */
  rules: string[];
  reason: string;
  /** [start, end) of the comment in the file. */
  span: [number, number];
  used: Set<string>;
}

const DIRECTIVE_LINE = new RegExp(`^[ \\t]*#[ \\t]*${DIRECTIVE}(?=\\s|$)(.*)$`);

/** The directives of a text, one per comment line. */
function directivesOf(lines: LineIndex): Directive[] {
  const found: Directive[] = [];
  for (let line = 0; line < lines.lineCount; line++) {
    const text = lines.lineText(line);
    if (!text.includes(DIRECTIVE)) continue;
    const match = DIRECTIVE_LINE.exec(text);
    if (!match) continue;
    const [list, ...reason] = match[1].split(/\s--(?:\s|$)/);
    const start = lines.lineStart(line) + text.indexOf('#');
    found.push({ line, rules: list.split(/[\s,]+/).filter((rule) => rule !== ''), reason: reason.join(' -- ').trim(), span: [start, lines.lineStart(line) + text.length], used: new Set() });
  }
  return found;
}

/**
 * The findings of one file with its directives applied: silenced findings
 * dropped, and the directives' own problems added. `knownRules` are the ids a
 * directive may name.
 */
export function applyDirectives(file: string, text: string, findings: Finding[], knownRules: ReadonlySet<string>): Finding[] {
  if (!text.includes(DIRECTIVE)) return findings;
  const lines = new LineIndex(text);
  const directives = directivesOf(lines);
  if (directives.length === 0) return findings;
  const byLine = new Map(directives.map((directive) => [directive.line, directive]));
  const kept = findings.filter((finding) => {
    const directive = byLine.get(finding.range.start.line - 1);
    if (!directive || finding.file !== file || DIRECTIVE_RULES.has(finding.rule)) return true;
    if (directive.rules.length > 0 && !directive.rules.includes(finding.rule)) return true;
    directive.used.add(finding.rule);
    return false;
  });
  for (const directive of directives) {
    const unknown = directive.rules.filter((rule) => !knownRules.has(rule));
    const idle = directive.rules.filter((rule) => knownRules.has(rule) && !directive.used.has(rule));
    const remove: Fix = {
      title: 'Remove the directive',
      edits: [
        {
          file,
          range: lines.range(lines.lineStart(directive.line), lines.lineStart(directive.line + 1) === lines.lineStart(directive.line) ? text.length : lines.lineStart(directive.line + 1)),
          newText: '',
        },
      ],
    };
    if (unknown.length > 0) kept.push(unknownRulesFinding(file, lines, directive.span, unknown));
    else if (directive.used.size === 0 || idle.length > 0) kept.push(idleDirectiveFinding(file, lines, directive.span, directive.rules, idle, directive.used.size === 0 ? [remove] : undefined));
    if (directive.reason === '' || directive.reason.startsWith('TODO')) kept.push(reasonMissingFinding(file, lines, directive.span));
  }
  return kept;
}

/**
 * Every file's directives applied to `findings` (severities already applied,
 * so a directive over a rule that is off counts as unused); `texts` holds the
 * files that have directives.
 */
export function withDirectives(findings: Finding[], texts: ReadonlyMap<string, string>, severities: Record<string, SeveritySetting>): Finding[] {
  if (texts.size === 0) return findings;
  const byFile = new Map<string, Finding[]>([...texts.keys()].map((file) => [file, []]));
  const others: Finding[] = [];
  for (const finding of findings) (byFile.get(finding.file) ?? others).push(finding);
  for (const [file, own] of byFile) others.push(...applySeverities(applyDirectives(file, texts.get(file)!, own, RULE_IDS), severities));
  return others;
}

/** Files where a comment line can stand: YAML, and the scripts and env or config files generators read. */
const HASH_COMMENTS = /\.(ya?ml|sh|bash|zsh|ksh|env|conf|cfg|ini|toml|py|rb|properties)$|(^|\/)Kustomization$/i;
/** A line a comment can safely stand above: a mapping key or a list item (never inside a multi-line scalar). */
const KEY_OR_ITEM = /^[ \t]*(-[ \t]+)?("[^"]*"|'[^']*'|[^\s#'"][^:#]*):([ \t]|$)|^[ \t]*-([ \t]|$)/;

const BLOCK_SCALAR_HEADER = /(^|[ \t])(:|-)[ \t]+(!\S*[ \t]+)?(&\S+[ \t]+)?[|>][-+0-9]*[ \t]*(#.*)?$|^[ \t]*[|>][-+0-9]*[ \t]*$/;

/**
 * Whether a line is content of a block scalar (`script: |`): walking up the
 * lines that are less indented than everything below them (its ancestors),
 * one of them opens a block scalar. A comment line there would change the value.
 */
function insideBlockScalar(lines: LineIndex, line: number): boolean {
  let indent = /^[ \t]*/.exec(lines.lineText(line))![0].length;
  for (let above = line - 1; above >= 0 && indent > 0; above--) {
    const text = lines.lineText(above);
    if (text.trim() === '') continue;
    const own = /^[ \t]*/.exec(text)![0].length;
    if (own >= indent) continue;
    if (BLOCK_SCALAR_HEADER.test(text)) return true;
    indent = own;
  }
  return false;
}

/**
 * "Disable for this line": a directive above the finding's line, at its
 * indentation, with the placeholder reason (which stays reported until a
 * person writes one). Offered where a comment line cannot change a value: on
 * a YAML key or list item line, or anywhere in a script or env file.
 */
/**
 * `findings` with the "Disable … for this line" fix added to those of `file` that can take it.
 * The editor asks for it only when code actions are requested (the line index of a 1 MB file is
 * too much work for every keystroke); `text` must be the text the findings were computed on.
 */
export function withDisableFixes(findings: Finding[], file: string, text: string): Finding[] {
  let lines: LineIndex | undefined;
  return findings.map((finding) => {
    if (finding.file !== file) return finding;
    const disable = disableFix(finding, text, (lines ??= new LineIndex(text)));
    return disable ? { ...finding, fixes: [...(finding.fixes ?? []), disable] } : finding;
  });
}

function disableFix(finding: Finding, text: string, lines: LineIndex): Fix | null {
  if (DIRECTIVE_RULES.has(finding.rule) || !HASH_COMMENTS.test(finding.file)) return null;
  const line = finding.range.start.line;
  const content = lines.lineText(line);
  const yaml = /\.ya?ml$|(^|\/)Kustomization$/i.test(finding.file);
  if (yaml && (!KEY_OR_ITEM.test(content) || insideBlockScalar(lines, line))) return null;
  const indent = /^[ \t]*/.exec(content)![0];
  const eol = text.slice(lines.lineEnd(line), lines.lineEnd(line) + 2).startsWith('\r\n') ? '\r\n' : '\n';
  const at = { line, character: 0 };
  return {
    title: `Disable ${finding.rule} for this line`,
    edits: [{ file: finding.file, range: { start: at, end: at }, newText: `${indent}# ${DIRECTIVE} ${finding.rule} -- ${DIRECTIVE_REASON_PLACEHOLDER}${eol}` }],
  };
}
