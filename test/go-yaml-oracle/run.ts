// `npm run oracle:go-yaml`: the project's parser against go-yaml v3's verdict on every corpus YAML
// file, the disagreements grouped by cause (see oracle.ts). Exits 1 when there is one that is not
// kustomize being stricter than the oracle.
//   --yaml-1.2            read as the `yaml` package alone does (YAML 1.2): the parser before go-yaml's reading
//   --values=<goyamldump> also compare what each document reads as, with go-yaml's own reading of it:
//                         build dump.go with Debian's golang-go and golang-gopkg-yaml.v3-dev, as the
//                         oracle's README says for its main.go (GOPATH=/usr/share/gocode GO111MODULE=off go build)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { decodeFile } from '../../server/src/engine/base/repo-fs';
import { parseYamlFile } from '../../server/src/engine/yaml/documents';
import { CORPUS } from '../ecosystem/corpus';
import { canonicalDocuments } from './canonical';
import { compareWithOracle, describeComparison, KUSTOMIZE_STRICTER, oracleAvailable, readOracle } from './oracle';

const reading = process.argv.includes('--yaml-1.2') ? 'yaml-1.2' : 'go-yaml';

/** Files go-yaml decodes whose documents we read otherwise (first difference shown). */
async function compareValues(dump: string, paths: string[]): Promise<number> {
  const child = spawn(dump, [], { cwd: CORPUS, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(paths.join('\n') + '\n');
  let differ = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    const { path, docs } = JSON.parse(line) as { path: string; docs: unknown[] };
    const read = decodeFile(readFileSync(join(CORPUS, path)), Number.MAX_SAFE_INTEGER);
    if (read.kind !== 'text') continue;
    const parsed = parseYamlFile(read.text, reading);
    if (parsed.some((doc) => doc.errors.length > 0)) continue; // counted by the verdicts
    const ours = JSON.stringify(canonicalDocuments(parsed));
    const theirs = JSON.stringify(docs.map((doc) => doc ?? ''));
    if (ours === theirs) continue;
    let at = 0;
    while (at < ours.length && ours[at] === theirs[at]) at++;
    if (++differ <= 20) console.log(`  reads otherwise: ${path}\n      us: …${ours.slice(Math.max(0, at - 60), at + 60)}\n      go: …${theirs.slice(Math.max(0, at - 60), at + 60)}`);
  }
  return differ;
}

async function main(): Promise<number> {
  if (!oracleAvailable()) {
    console.error('oracle:go-yaml: ../shared/oracles/go-yaml/corpus.tsv or ../shared/corpus is missing');
    return 2;
  }
  const rows = readOracle();
  const comparison = compareWithOracle(rows, (text) => parseYamlFile(text, reading));
  console.log(`reading: ${reading}\n${describeComparison(comparison)}`);
  const stricter = new Set<string>(Object.values(KUSTOMIZE_STRICTER));
  const wrong = [...comparison.weReject].filter(([cause]) => !stricter.has(cause)).length + comparison.weAccept.size;
  const dump = process.argv.find((arg) => arg.startsWith('--values='))?.slice('--values='.length);
  const differ = dump
    ? await compareValues(
        dump,
        rows.filter((row) => row.error === null).map((row) => row.path),
      )
    : 0;
  if (dump) console.log(`documents read otherwise than go-yaml reads them: ${differ}`);
  return wrong + differ === 0 ? 0 : 1;
}

void main().then((code) => process.exit(code));
