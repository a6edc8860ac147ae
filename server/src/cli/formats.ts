// The CLI's output formats (cli.md): text, json and SARIF 2.1.0. Lines and
// columns are 1-based; columns count UTF-16 code units, as LSP does.
import type { AuditResult } from '../engine/pipeline/audit';
import { summaryLine } from '../engine/pipeline/summary-line';
import { ALL_RULES } from '../engine/rules/registry';
import type { Finding } from '../engine/base/types';
import { docsUrl } from '../engine/rules/docs';

export function formatText(result: AuditResult, findings: Finding[]): string {
  const lines = findings.map((f) => `${f.file}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} ${f.rule} ${f.message}`);
  return [...lines, summaryLine(result.summary)].join('\n') + '\n';
}

/** One finding of the json format (cli.md): 1-based, UTF-16 columns. */
export interface JsonFinding {
  rule: string;
  severity: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  job: string | null;
  message: string;
}

/** The json format's one object. */
export interface JsonReport {
  version: 1;
  summary: AuditResult['summary'];
  findings: JsonFinding[];
}

export function formatJson(result: AuditResult, findings: Finding[]): string {
  const json: JsonReport = {
    version: 1,
    summary: result.summary,
    findings: findings.map((f) => ({
      rule: f.rule,
      severity: f.severity,
      file: f.file,
      line: f.range.start.line + 1,
      column: f.range.start.character + 1,
      endLine: f.range.end.line + 1,
      endColumn: f.range.end.character + 1,
      job: f.job,
      message: f.message,
    })),
  };
  return JSON.stringify(json, null, 2) + '\n';
}

const SARIF_LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

export function formatSarif(result: AuditResult, findings: Finding[], version: string): string {
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'flux-job-guard',
            version,
            informationUri: docsUrl(),
            rules: ALL_RULES.map((rule) => ({
              id: rule.id,
              shortDescription: { text: rule.summary },
              helpUri: docsUrl(rule.id),
              defaultConfiguration: { level: rule.defaultSeverity === 'off' ? 'none' : SARIF_LEVEL[rule.defaultSeverity] },
            })),
          },
        },
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: ALL_RULES.findIndex((rule) => rule.id === f.rule),
          level: SARIF_LEVEL[f.severity],
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                // A relative URI reference: each segment escaped (encodeURI would leave `#` and `?`, which end a path).
                artifactLocation: { uri: f.file.split('/').map(encodeURIComponent).join('/') },
                region: {
                  startLine: f.range.start.line + 1,
                  startColumn: f.range.start.character + 1,
                  endLine: f.range.end.line + 1,
                  endColumn: f.range.end.character + 1,
                },
              },
            },
          ],
        })),
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + '\n';
}
