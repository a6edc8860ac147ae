// The kustomize oracle (../shared/oracles/kustomize/corpus.jsonl: what
// kustomize v5.5.0 itself builds from every kustomization folder of the
// shared corpus) and the model's answer for the same folder, compared.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildOutcome, KustomizeBuilder, SUBSTITUTE_OPT_OUT } from '../../server/src/engine/kustomize/build';
import type { KustomizeFiles } from '../../server/src/engine/kustomize/files';
import { ROOT } from '../ecosystem/corpus';

export const ORACLE = join(ROOT, '..', 'shared', 'oracles', 'kustomize', 'corpus.jsonl');

/** [apiVersion, kind, namespace, name, annotation, label] of one built resource. */
export type OracleResource = [string, string, string | null, string, string | null, string | null];

export type OracleEntry = { dir: string; ok: true; resources: OracleResource[] } | { dir: string; ok: false; kind: 'build' | 'remote' | 'helm'; error: string };

export function readOracle(path = ORACLE): OracleEntry[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as OracleEntry);
}

/** Every file and folder below `root` (one walk: cheaper than a stat per question), relative with `/`. */
function walk(root: string): { files: Set<string>; dirs: Set<string> } {
  const files = new Set<string>();
  const dirs = new Set<string>(['']);
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        dirs.add(path);
        visit(path);
      } else if (entry.isFile()) files.add(path);
    }
  };
  visit('');
  return { files, dirs };
}

/** The corpus on disk as the model reads a repository: paths relative to the corpus root. */
export function diskFiles(root: string): KustomizeFiles {
  const { files, dirs } = walk(root);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return {
    isFile: (path) => files.has(path),
    isDir: (path) => dirs.has(path),
    read: (path) => {
      if (!files.has(path)) return undefined;
      try {
        const text = decoder.decode(readFileSync(join(root, path)));
        return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      } catch {
        return undefined;
      }
    },
  };
}

/** What the model says for a folder, in the oracle's words: [ok, resources] or a failure. */
export function modelAnswer(outcome: BuildOutcome): { ok: true; resources: Array<OracleResource & { nameKnown?: boolean }> } | { ok: false; kind: string; error: string } {
  if (outcome.status === 'ok') {
    return {
      ok: true,
      resources: outcome.resources.map((res) => {
        const row: OracleResource = [res.apiVersion, res.kind, res.namespace, res.name, res.annotations.get(SUBSTITUTE_OPT_OUT) ?? null, res.labels.get(SUBSTITUTE_OPT_OUT) ?? null];
        return Object.assign(row, { nameKnown: res.nameKnown });
      }),
    };
  }
  if (outcome.status === 'failed') return { ok: false, kind: 'build', error: `${outcome.failure.reason}: ${outcome.failure.message} (${outcome.failure.file})` };
  return { ok: false, kind: outcome.reason, error: `${outcome.reason} at ${outcome.file}` };
}

const HASH = /-[0-9a-z]{10}$/;

/** Why the model's answer differs from kustomize's, or null when they agree. */
export function disagreement(oracle: OracleEntry, outcome: BuildOutcome): string | null {
  const model = modelAnswer(outcome);
  if (!oracle.ok) {
    if (model.ok) return `kustomize fails (${oracle.error.slice(-200)}), the model builds ${model.resources.length} resources`;
    if (model.kind !== 'build') return `kustomize fails (${oracle.error.slice(-160)}), the model says ${model.error}`;
    return null;
  }
  if (!model.ok) return `kustomize builds ${oracle.resources.length} resources, the model says ${model.error}`;
  const key = (row: OracleResource, stripHash: boolean) => JSON.stringify([row[0], row[1], row[2], stripHash ? row[3].replace(HASH, '') : row[3], row[4], row[5]]);
  const unknownNames = model.resources.some((row) => row.nameKnown === false);
  const expected = oracle.resources.map((row) => key(row, unknownNames)).sort();
  const actual = model.resources.map((row) => key(row, unknownNames)).sort();
  if (expected.length === actual.length && expected.every((row, i) => row === actual[i])) return null;
  const missing = expected.filter((row) => !actual.includes(row));
  const extra = actual.filter((row) => !expected.includes(row));
  return `resources differ: kustomize only ${missing.slice(0, 3).join(' ')}${missing.length > 3 ? ` (+${missing.length - 3})` : ''}; model only ${extra.slice(0, 3).join(' ')}${extra.length > 3 ? ` (+${extra.length - 3})` : ''}`;
}

/** Builds every folder of the oracle that the model covers (no remote, no Helm). */
export function compareAll(builder: KustomizeBuilder, entries: OracleEntry[]): Map<string, string | null> {
  const results = new Map<string, string | null>();
  for (const entry of entries) {
    if (!entry.ok && entry.kind !== 'build') continue;
    results.set(entry.dir, disagreement(entry, builder.build(entry.dir)));
  }
  return results;
}
