// An in-memory repository for engine tests: paths to texts.
import { audit, AuditOptions, AuditResult } from '../../server/src/engine/pipeline/audit';
import type { ReadResult, RepoFs } from '../../server/src/engine/base/repo-fs';
import type { Finding } from '../../server/src/engine/base/types';

export function memoryFs(files: Record<string, string>): RepoFs {
  return {
    listFiles: () => Promise.resolve(Object.keys(files)),
    read: (path): Promise<ReadResult> => Promise.resolve(path in files ? { kind: 'text', text: files[path] } : { kind: 'missing' }),
  };
}

export function auditFiles(files: Record<string, string>, options?: AuditOptions): Promise<AuditResult> {
  return audit(memoryFs(files), options);
}

/** `rule file:line:column` (1-based), the compact form tables compare. */
export function brief(finding: Finding): string {
  return `${finding.rule} ${finding.file}:${finding.range.start.line + 1}:${finding.range.start.character + 1}`;
}

/** Dedents a template literal so test YAML can be written indented. */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((out, part, i) => out + part + (i < values.length ? String(values[i]) : ''), '');
  const lines = text.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length));
  return lines
    .map((line) => line.slice(indent))
    .join('\n')
    .replace(/[ ]+$/, '');
}
