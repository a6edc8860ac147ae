// `npm run ecosystem`: the audit of every corpus repository, compared with the
// triage file (see triage.ts). Prints one line per repository with its counts,
// then every disagreement; exits 1 when there is one.
//   --update        append the untriaged findings to triage.json as drafts (verdict false, reason UNTRIAGED: …) to read and judge
//   --repo=NAME     only that repository (repeatable)
import { writeFileSync } from 'node:fs';
import { auditCorpus, CORPUS, corpusRepos, readTriage, TRIAGE_FILE } from './corpus';
import { compareWithTriage, draftEntries, inScope } from './triage';

async function main(): Promise<number> {
  const wanted = process.argv.filter((arg) => arg.startsWith('--repo=')).map((arg) => arg.slice('--repo='.length));
  const repos = corpusRepos().filter((repo) => wanted.length === 0 || wanted.includes(repo));
  if (repos.length === 0) {
    console.error(`ecosystem: no repository in ${CORPUS}`);
    return 2;
  }
  const triage = readTriage();
  const problems: string[] = [];
  let total = 0;
  for (const run of await auditCorpus(repos)) {
    if (!run.report || (run.status !== 0 && run.status !== 1)) {
      problems.push(`${run.repo}: the audit failed (exit ${run.status}): ${run.stderr.slice(0, 400)}`);
      continue;
    }
    const scoped = run.report.findings.filter((f) => inScope(triage, f.rule));
    total += scoped.length;
    const verdicts = { true: 0, false: 0 };
    for (const f of scoped) {
      const entry = triage.entries.find((e) => e.repo === run.repo && e.file === f.file && e.rule === f.rule && e.lines.includes(f.line));
      if (entry) verdicts[entry.verdict]++;
    }
    const byRule = new Map<string, number>();
    for (const f of scoped) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
    const rules = [...byRule]
      .sort()
      .map(([rule, n]) => `${rule}=${n}`)
      .join(' ');
    const { summary } = run.report;
    console.log(
      `${run.repo}: ${scoped.length} finding(s) in scope (${verdicts.true} true, ${verdicts.false} false, ${scoped.length - verdicts.true - verdicts.false} untriaged)${rules ? `: ${rules}` : ''}; ${summary.jobs} Job(s), ${summary.errors} error(s), ${summary.warnings} warning(s)`,
    );
    problems.push(...compareWithTriage(triage, run.repo, run.report.findings));
    if (process.argv.includes('--update')) triage.entries.push(...draftEntries(triage, run.repo, run.report.findings));
  }
  if (process.argv.includes('--update')) writeFileSync(TRIAGE_FILE, JSON.stringify(triage, null, 2) + '\n');
  for (const problem of problems) console.log(`  ${problem}`);
  console.log(`${repos.length} repositories, ${total} finding(s) in scope, ${problems.length} disagreement(s) with the triage`);
  return problems.length === 0 ? 0 : 1;
}

void main().then((code) => process.exit(code));
