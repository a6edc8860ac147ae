// The audit's baseline: list a folder the way the CLI does (skipping .git and
// node_modules), read every YAML file and parseAllDocuments it, one file after
// the other in one thread. Run as its own process so its wall time compares
// with the CLI's (both include node's start-up, the listing and the reads).
//   node out/bench/parse-all.js DIR   → prints one JSON line {files, bytes, documents, ms}
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseAllDocuments } from 'yaml';

/** The parse the baselines time (exported so the bench times the very same bundled parser in-process). */
export function parseDocuments(text: string): unknown[] {
  const docs = parseAllDocuments(text);
  return Array.isArray(docs) ? docs : [];
}

export function listYamlFiles(root: string): string[] {
  const files: string[] = [];
  const pending = [''];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && entry.name !== 'node_modules') pending.push(path);
      } else if (entry.isFile() && /\.ya?ml$/i.test(entry.name)) files.push(path);
    }
  }
  return files.sort();
}

if (require.main === module) {
  const started = performance.now();
  const root = process.argv[2];
  if (!root) {
    console.error('usage: node out/bench/parse-all.js DIR');
    process.exit(2);
  }
  let bytes = 0;
  let documents = 0;
  const files = listYamlFiles(root);
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    bytes += text.length;
    documents += parseDocuments(text).length;
  }
  console.log(JSON.stringify({ files: files.length, bytes, documents, ms: performance.now() - started }));
}
