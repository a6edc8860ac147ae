// Real repositories: every folder of ../shared/corpus/ (public Flux GitOps
// repositories, kept next to the project) audited by the CLI with `--format
// json`. No crash, exit 0 or 1 (never 2), yaml-syntax exactly where go-yaml
// (the oracle, ../shared/oracles/go-yaml/corpus.tsv: Flux's decoder) rejects a
// file Flux reads, and on no file go-yaml decodes nor any file nothing reads, no
// unknown rule, every position inside its file, and every substitution,
// reference and pod finding as the triage file says (the ecosystem check,
// test/ecosystem/). Prints one summary line per repository.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeFile, DEFAULT_MAX_FILE_SIZE } from '../server/src/engine/base/repo-fs';
import { RULE_IDS } from '../server/src/engine/rules/registry';
import { defaultContract } from '../server/src/engine/contract/load';
import { CONTRACT_FILE_NAME } from '../server/src/engine/contract/model';
import { isAudited, syntaxScope } from '../server/src/engine/pipeline/scope';
import { buildRepoIndex, readContract } from '../server/src/engine/pipeline/audit';
import { NodeRepoFs } from '../server/src/node/node-repo-fs';
import { oracleAvailable, readOracle } from './go-yaml-oracle/oracle';
import { LspText, rangeOffsets } from './helpers/arbitraries';
import { auditCorpus, CORPUS, corpusRepos, readTriage } from './ecosystem/corpus';
import { compareWithTriage } from './ecosystem/triage';

/** Every file of a repository (no .git, no node_modules, no symlinks: the corpus has none). */
function allFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name === '.git' || entry.name === 'node_modules' ? [] : allFiles(dir, path);
    return entry.isFile() ? [path] : [];
  });
}

/** The YAML files the audit looks at without a contract (the default include, hidden folders left out). */
function auditedFiles(dir: string): string[] {
  const contract = defaultContract(CONTRACT_FILE_NAME);
  return allFiles(dir).filter((path) => isAudited(contract, path));
}

/** A file in the templates/ folder of a Helm chart (next to a Chart.yaml): skipped quietly by design. */
function isChartTemplate(dir: string, path: string): boolean {
  const parts = path.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    if (parts[i] === 'templates' && existsSync(join(dir, ...parts.slice(0, i), 'Chart.yaml'))) return true;
  }
  return false;
}

/** go-yaml's verdict per corpus file (`<repository>/<path>`): its error, or null where it decodes the file. */
function oracleVerdicts(): Map<string, string | null> {
  return new Map(readOracle().map((row) => [row.path, row.error]));
}

/** Where the model puts a file's YAML errors (pipeline/scope.ts), from the repository's own index: built once per repository, when asked. */
function scopeOf(dir: string): (path: string) => Promise<ReturnType<typeof syntaxScope>> {
  let made: Promise<(path: string) => ReturnType<typeof syntaxScope>> | undefined;
  const make = async () => {
    const fs = new NodeRepoFs(dir, DEFAULT_MAX_FILE_SIZE, true);
    const { contract } = await readContract(fs, {});
    const index = await buildRepoIndex(fs, (await fs.listFiles()).sort(), contract);
    return (path: string) => syntaxScope(contract, index, path);
  };
  return async (path) => (await (made ??= make()))(path);
}

test('the CLI audits every corpus repository: no crash, exit 0 or 1, yaml-syntax exactly where go-yaml fails on what Flux reads, positions inside, findings as triaged', async (t) => {
  if (!existsSync(CORPUS)) {
    const message = `CORPUS MISSING: ${CORPUS} does not exist, so no real repository was audited. Put the shared corpus next to the repository to run this test.`;
    console.warn(`\n!!! ${message}\n`);
    t.skip(message);
    return;
  }
  const repos = corpusRepos();
  assert.ok(repos.length > 0, `no repository in ${CORPUS}`);
  const triage = readTriage();
  assert.ok(oracleAvailable(), 'the go-yaml oracle (../shared/oracles/go-yaml/corpus.tsv) is next to the corpus');
  const oracle = oracleVerdicts();
  const syntaxCounts = { reported: 0, unread: 0 };
  const problems: string[] = [];
  for (const { repo, status, stderr, report } of await auditCorpus(repos)) {
    const dir = join(CORPUS, repo);
    if ((status !== 0 && status !== 1) || !report) {
      problems.push(`${repo}: exit ${status}: ${stderr.slice(0, 500)}`);
      continue;
    }
    const counts = new Map<string, number>();
    const texts = new Map<string, LspText>();
    for (const f of report.findings) {
      counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
      if (!RULE_IDS.has(f.rule)) problems.push(`${repo}: unknown rule ${f.rule} (${f.file}:${f.line})`);
      if (!texts.has(f.file)) {
        const path = join(dir, f.file);
        const read = existsSync(path) ? decodeFile(readFileSync(path), Number.MAX_SAFE_INTEGER) : null;
        texts.set(f.file, new LspText(read?.kind === 'text' ? read.text : ''));
      }
      const where = rangeOffsets(texts.get(f.file)!, { start: { line: f.line - 1, character: f.column - 1 }, end: { line: f.endLine - 1, character: f.endColumn - 1 } });
      if (typeof where === 'string') problems.push(`${repo}: ${f.rule} ${f.file}:${f.line}:${f.column}: ${where}`);
    }
    // yaml-syntax exactly on the files go-yaml rejects that Flux reads (chart templates and over-size files aside):
    // never on a file go-yaml decodes, and a file it rejects without one is one the model says nothing reads.
    const syntax = new Set(report.findings.filter((f) => f.rule === 'yaml-syntax').map((f) => f.file));
    const scope = scopeOf(dir);
    for (const file of auditedFiles(dir)) {
      const bytes = readFileSync(join(dir, file));
      if (bytes.length > DEFAULT_MAX_FILE_SIZE || isChartTemplate(dir, file)) continue;
      const text = decodeFile(bytes, Number.MAX_SAFE_INTEGER).kind === 'text';
      const verdict = oracle.get(`${repo}/${file}`);
      if (text && verdict === undefined) {
        problems.push(`${repo}: ${file}: the go-yaml oracle does not list it`);
        continue;
      }
      const rejected = !text || verdict !== null;
      if (!rejected && syntax.has(file)) problems.push(`${repo}: ${file}: go-yaml decodes it, but it has a yaml-syntax finding`);
      if (rejected && !syntax.has(file) && (await scope(file)) !== null)
        problems.push(`${repo}: ${file}: go-yaml rejects it (${verdict ?? 'no text'}) and Flux reads it, but it has no yaml-syntax finding`);
      if (rejected && syntax.has(file)) syntaxCounts.reported++;
      else if (rejected) syntaxCounts.unread++;
    }
    problems.push(...compareWithTriage(triage, repo, report.findings));
    const rules = [...counts]
      .sort()
      .map(([rule, n]) => `${rule}=${n}`)
      .join(' ');
    console.log(
      `corpus ${repo}: exit ${status}, ${report.summary.jobs} Job(s) in ${report.summary.files} file(s), ${report.summary.errors} error(s), ${report.summary.warnings} warning(s); ${rules || 'no finding'}`,
    );
  }
  // Not vacuous: files go-yaml rejects were met and each was decided (reported, or shown by the model to be read by
  // nothing). Since sylva-core's values.schema.yaml (a chart file Helm never parses) the corpus holds no rejected file
  // Flux reads; test/yaml-syntax-scope.test.ts has those cases, each with its negative control.
  assert.ok(syntaxCounts.reported + syntaxCounts.unread > 0, 'some corpus file go-yaml rejects was checked against the scope (the comparison is not vacuous)');
  console.log(`corpus: ${syntaxCounts.reported} file(s) go-yaml rejects reported as yaml-syntax, ${syntaxCounts.unread} that nothing reads left alone`);
  assert.deepEqual(problems, []);
});
