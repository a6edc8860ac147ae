// An in-memory repository for engine tests: paths to texts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { audit, AuditOptions, AuditResult } from '../../server/src/engine/pipeline/audit';
import type { ReadResult, RepoFs } from '../../server/src/engine/base/repo-fs';
import type { Finding } from '../../server/src/engine/base/types';

export function memoryFs(files: Record<string, string>): RepoFs {
  return {
    listFiles: () => Promise.resolve(Object.keys(files)),
    read: (path): Promise<ReadResult> => Promise.resolve(path in files ? { kind: 'text', text: files[path] } : { kind: 'missing' }),
  };
}

/** Every file below `dir` (a real repository of the corpus, say), by its path relative to it. */
export function filesOf(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix))) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (statSync(join(dir, path)).isDirectory()) Object.assign(out, filesOf(dir, path));
    else out[path] = readFileSync(join(dir, path), 'utf8');
  }
  return out;
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
