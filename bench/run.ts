// `npm run bench`: the performance figures of issue 5, each as a median over
// several runs and as a ratio to a baseline measured in the same run.
//
//   edit    didChange → the publishDiagnostics of the new text, over the real
//           server (stdio), for a one-character edit inside one document
//           that writes a character the place has not held before (typing,
//           not type-and-undo); baseline: parseAllDocuments (package `yaml`)
//           of the same file.
//   open    didOpen → publishDiagnostics, same files and baseline.
//   audit   `node dist/cli.js audit REPO --format json` over the generated
//           20,000-file repository; baseline: parsing every one of its files
//           with parseAllDocuments in one thread (bench/parse-all.ts).
//   memory  peak RSS of that CLI audit, and VmRSS/VmHWM of the server after
//           it indexed the repository, opened a file and ran fluxJobGuard/audit.
//   peer    yaml-language-server on the same edit and open: our time ÷ its time.
//   threads the same CLI audit with --threads 1 and --threads 2, and with the
//           default: 2 threads must beat 1 by 1.5× on 2 cores, the default must
//           pick the faster.
//   changed `audit --changed-since HEAD` after one Job changed in the generated
//           repository, against the whole audit (≤ 0.1×); and the same with a
//           --cache written before the change.
//   corpus  `audit ../shared/corpus` (every real repository, one run) against
//           parsing every YAML file of it in one thread (≤ 0.6×).
//   scale   generated repositories with 1,000 and 16,000 Flux Kustomizations
//           (6 files each, 96,000 for the larger): time and peak RSS; the larger
//           must cost about 16× the smaller plus the start-up, under 1 GB.
//
// The parse baseline is bundled with the same yaml as the CLI (its per-token
// debug switches compiled out), so the ratios compare like with like.
//
// Options: --only=edit,open,audit,memory,peer,threads,changed,corpus,scale  --edit-reps=N
//          --open-reps=N  --audit-reps=N  --regenerate  --json=FILE  --check (exit 1 on a miss)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseAllDocuments as parseWithYaml } from 'yaml';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureGenerated, ensureScalingRepo, Generated } from './generate';
import { BenchLspClient, fileUri, readProcMemory, snapshotBundle } from './lsp-client';
import { planEdit, type EditPlan } from './edit-plan';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { listYamlFiles } from './parse-all';

const repoRoot = join(__dirname, '..', '..');
const BUILT_CLI = join(repoRoot, 'dist', 'cli.js');
/** A copy of dist/cli.js taken when the run starts (see snapshotBundle). */
let CLI = BUILT_CLI;
/** The baseline, bundled at start with the CLI's yaml (see bundleBaseline). */
let PARSE_ALL = join(__dirname, 'parse-all.js');
const CORPUS = join(repoRoot, '..', 'shared', 'corpus');
const YAML_LS = join(repoRoot, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
const SHARED_BENCH = join(repoRoot, '..', 'shared', 'bench');
/** yaml-language-server waits this long after every open/change before it validates (yamlSettings.validationDelayMs, not configurable). */
const YAML_LS_VALIDATION_DELAY_MS = 200;

// ---- options ------------------------------------------------------------------

const argv = process.argv.slice(2);
function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}
const ALL_PARTS = ['edit', 'open', 'audit', 'memory', 'peer', 'threads', 'changed', 'corpus', 'scale'] as const;
type Part = (typeof ALL_PARTS)[number];
const only = new Set((option('only') ?? ALL_PARTS.join(',')).split(',').map((s) => s.trim()) as Part[]);
const EDIT_REPS = Number(option('edit-reps') ?? 7);
const OPEN_REPS = Number(option('open-reps') ?? 5);
const AUDIT_REPS = Number(option('audit-reps') ?? 3);
const jsonPath = option('json');

// ---- results ------------------------------------------------------------------

type Unit = 'ms' | 'MB';
interface Row {
  figure: string;
  unit: Unit;
  /** null: not measured (error). */
  median: number | null;
  samples: number[];
  baseline?: { name: string; value: number };
  /** ratio = median ÷ baseline, compared with `targetRatio`; or median compared with `targetValue`. */
  targetRatio?: number;
  targetValue?: number;
  note?: string;
  error?: string;
}
const rows: Row[] = [];
const notes: string[] = [];
const log = (line: string) => process.stderr.write(line + '\n');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// ---- inputs -------------------------------------------------------------------

interface EditInput {
  name: string;
  path: string;
  text: string;
  /** parseAllDocuments times of this text, taken between the server measurements (same machine load). */
  parseSamples: number[];
}

/**
 * One timed parseAllDocuments of `text`. (No forced GC first: right after a
 * full GC V8 shrinks the young generation and the parse runs ~40% slower,
 * which would flatter every ratio.)
 */
/** The baseline parser: the CLI's own yaml, bundled (bundleBaseline); `yaml` from node_modules until then. */
let parseAllDocuments: (text: string) => unknown = (text) => parseWithYaml(text);

function parseOnce(text: string): number {
  const started = performance.now();
  parseAllDocuments(text);
  return performance.now() - started;
}

function editInputs(generated: Generated): EditInput[] {
  const paths = [generated.jobsFile];
  if (existsSync(SHARED_BENCH)) {
    paths.push(
      ...readdirSync(SHARED_BENCH)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => join(SHARED_BENCH, f)),
    );
  } else {
    const warning = `!!! SKIPPED the real large manifests: ${SHARED_BENCH} does not exist (CI puts a copy of shared/ at ../shared beside the repository).`;
    log(warning);
    notes.push(warning);
  }
  return paths.map((path) => {
    const text = readFileSync(path, 'utf8');
    parseOnce(text); // warm-up
    return { name: basename(path), path, text, parseSamples: [] };
  });
}

function sizeLabel(text: string): string {
  return `${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB`;
}

/**
 * The text of open number `k`: a comment line at the top of every document,
 * so no document's text is one the server has seen (a content-keyed cache
 * must not turn "open" into "re-open"). Same shape, a few bytes longer.
 */
function openVariant(text: string, k: number): string {
  const mark = `# bench open ${k}\n`;
  return mark + text.replace(/^---[ \t]*\r?\n/gm, (marker) => marker + mark);
}

// ---- LSP measurements ---------------------------------------------------------

interface ServerKind {
  label: string;
  start: () => BenchLspClient;
}

const OURS: ServerKind = {
  label: 'flux-job-guard',
  start: () => new BenchLspClient({ script: CLI, args: ['lsp', '--stdio'], configuration: () => ({}) }),
};

const YAML_LS_SERVER: ServerKind = {
  label: 'yaml-language-server',
  start: () =>
    new BenchLspClient({
      script: YAML_LS,
      args: ['--stdio'],
      configuration: (section) => {
        if (section === 'yaml') {
          return {
            validate: true,
            hover: true,
            completion: true,
            format: { enable: false },
            schemaStore: { enable: false, url: '' },
            schemas: {},
            customTags: [],
            maxItemsComputed: 5000,
            keyOrdering: false,
            yamlVersion: '1.2',
          };
        }
        if (section === 'http') return { proxy: '', proxyStrictSSL: false };
        return {};
      },
    }),
};

interface FileTimes {
  open: number[];
  edit: number[];
  editKind: EditPlan['kind'];
}

async function measureServer(kind: ServerKind, workspace: string, inputs: EditInput[]): Promise<Map<string, FileTimes | Error>> {
  const results = new Map<string, FileTimes | Error>();
  const client = kind.start();
  try {
    await client.initialize(workspace);
    // A small document first: both servers are ready (configuration pulled, project loaded) before any timing.
    const warmUri = fileUri(join(workspace, 'warm-up.yaml'));
    const warm = client.nextPublish(warmUri);
    client.open(warmUri, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warm-up\n');
    await warm;
    client.close(warmUri);
    for (const input of inputs) {
      log(`  ${kind.label}: ${input.name}`);
      try {
        results.set(input.name, await measureFile(client, workspace, input, kind === OURS));
      } catch (error) {
        results.set(input.name, error instanceof Error ? error : new Error(String(error)));
        log(`    failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      }
    }
  } finally {
    await client.shutdown();
  }
  return results;
}

async function measureFile(client: BenchLspClient, workspace: string, input: EditInput, sampleParse: boolean): Promise<FileTimes> {
  const open: number[] = [];
  for (let k = 0; k <= OPEN_REPS; k++) {
    const uri = fileUri(join(workspace, `open-${k}-${input.name}`));
    await client.waitIdle();
    const published = client.nextPublish(uri);
    const sent = client.open(uri, openVariant(input.text, k));
    const { time } = await published;
    if (k > 0) open.push(time - sent); // k = 0 warms up
    client.close(uri);
    if (k > 0 && sampleParse) {
      await client.waitIdle();
      input.parseSamples.push(parseOnce(input.text));
    }
  }

  const uri = fileUri(join(workspace, input.name));
  const first = client.nextPublish(uri);
  client.open(uri, input.text);
  await first;
  const plan = planEdit(input.text);
  if (EDIT_REPS + 1 > plan.replacements.length) throw new Error(`--edit-reps=${EDIT_REPS}: this place takes ${plan.replacements.length - 1} edits of new text at most`);
  const edit: number[] = [];
  for (let k = 0; k <= EDIT_REPS; k++) {
    const written = plan.replacements[k];
    // Each TTL is another unexpected value: the publish of this text is the one whose finding names it.
    const namesTtl = (diagnostics: Diagnostic[]) =>
      diagnostics.some(
        (d) => d.code === 'ttl-unexpected-value' && d.range.start.line === plan.line && typeof d.message === 'string' && d.message.includes(`ttlSecondsAfterFinished: ${plan.ttlPrefix}${written},`),
      );
    const accept = plan.kind === 'neutral' || client.options.script === YAML_LS ? () => true : namesTtl;
    const range = { start: plan.position, end: { line: plan.position.line, character: plan.position.character + 1 } };
    await client.waitIdle(); // and only then listen: a late publish of the previous version must not count
    const published = client.nextPublish(uri, accept);
    const sent = client.change(uri, range, written);
    const { time } = await published;
    if (k > 0) edit.push(time - sent);
    if (k > 0 && sampleParse) {
      await client.waitIdle();
      input.parseSamples.push(parseOnce(input.text));
    }
  }
  client.close(uri);
  return { open, edit, editKind: client.options.script === YAML_LS ? 'neutral' : plan.kind };
}

async function lspFigures(generated: Generated, parts: Set<Part>): Promise<void> {
  const inputs = editInputs(generated);
  const workspace = join(generated.dir, 'lsp-workspace');
  mkdirSync(workspace, { recursive: true });
  log(`edit/open: ${inputs.map((i) => i.name).join(', ')}`);
  const ours = await measureServer(OURS, workspace, inputs);
  const peer = parts.has('peer') ? await measureServer(YAML_LS_SERVER, workspace, inputs) : null;

  for (const input of inputs) {
    const short = input.name.replace(/^[^_]+__/, '').replace(/\.ya?ml$/, '');
    const label = `${short} (${sizeLabel(input.text)})`;
    const mine = ours.get(input.name)!;
    const theirs = peer?.get(input.name);
    if (input.parseSamples.length === 0) for (let k = 0; k < 5; k++) input.parseSamples.push(parseOnce(input.text)); // our server failed on it
    const baseline = { name: 'parse', value: median(input.parseSamples) };
    for (const what of ['edit', 'open'] as const) {
      if (!parts.has(what)) continue;
      if (mine instanceof Error) {
        rows.push({ figure: `${what} ${label}`, unit: 'ms', median: null, samples: [], baseline, error: mine.message.split('\n')[0] });
        continue;
      }
      const samples = mine[what];
      const note =
        what === 'edit'
          ? mine.editKind === 'neutral'
            ? 'no Job in the file: a new letter in a scalar each time; diagnostics stay the same, so it waits for the next publish'
            : 'a new TTL each time (86401, 86402, ...); waits for the publish whose ttl-unexpected-value finding on that line names it'
          : undefined;
      rows.push({ figure: `${what} ${label}`, unit: 'ms', median: median(samples), samples, baseline, targetRatio: what === 'edit' ? 0.03 : openTarget(input.name), note });
      if (theirs && !(theirs instanceof Error)) {
        const peerMedian = median(theirs[what]);
        rows.push({
          figure: `${what} ${short} vs yaml-ls`,
          unit: 'ms',
          median: median(samples),
          samples,
          baseline: { name: 'yaml-ls', value: peerMedian },
          targetRatio: what === 'edit' ? 0.02 : undefined,
          note: `includes yaml-ls's fixed ${YAML_LS_VALIDATION_DELAY_MS} ms validation delay; without it the ratio is ${(median(samples) / Math.max(1, peerMedian - YAML_LS_VALIDATION_DELAY_MS)).toFixed(3)}`,
        });
      } else if (theirs instanceof Error) {
        rows.push({ figure: `${what} ${short} vs yaml-ls`, unit: 'ms', median: null, samples: [], error: theirs.message.split('\n')[0] });
      }
    }
  }
}

// ---- audit and memory ---------------------------------------------------------

interface ProcessRun {
  ms: number;
  code: number | null;
  peakRss: number | null;
  stdout: string;
  stderr: string;
}

const TIME = ['/usr/bin/time', '/bin/time'].find((p) => existsSync(p)) ?? null;

/** Runs node SCRIPT ARGS to its end; wall time, and peak RSS (GNU time -v, else sampled VmHWM). */
function runNode(script: string, args: string[], stdoutFile: string | null): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const out = stdoutFile ? openSync(stdoutFile, 'w') : 'pipe';
    const command = TIME ? TIME : process.execPath;
    const commandArgs = TIME ? ['-v', process.execPath, script, ...args] : [script, ...args];
    const started = performance.now();
    const child = spawn(command, commandArgs, { stdio: ['ignore', out, 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    let sampledPeak = 0;
    const sampler = TIME
      ? null
      : setInterval(() => {
          try {
            sampledPeak = Math.max(sampledPeak, readProcMemory(child.pid!).hwm);
          } catch {
            // gone
          }
        }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (sampler) clearInterval(sampler);
      if (typeof out === 'number') closeSync(out);
      const timed = TIME ? /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr) : null;
      const peakRss = timed ? Number(timed[1]) * 1024 : sampledPeak || null;
      resolve({ ms, code, peakRss, stdout, stderr });
    });
  });
}

function warmPageCache(dir: string): void {
  for (const file of listYamlFiles(dir)) readFileSync(join(dir, file));
}

async function auditFigures(generated: Generated, parts: Set<Part>): Promise<void> {
  const repo = generated.repoDir;
  const { files, bytes } = generated.manifest.repo;
  const label = `${files.toLocaleString('en-US')} files, ${(bytes / 1e6).toFixed(0)} MB`;
  warmPageCache(repo);
  const cliMs: number[] = [];
  const baseMs: number[] = [];
  const peaks: number[] = [];
  let error: string | undefined;
  const output = join(generated.dir, 'audit-output.json');
  for (let k = 0; k < AUDIT_REPS && !error; k++) {
    log(`  audit run ${k + 1}/${AUDIT_REPS}: parse-everything baseline, then the CLI`);
    const base = await runNode(PARSE_ALL, [repo], null);
    if (base.code !== 0) throw new Error(`parse-all failed: ${base.stderr}`);
    baseMs.push(base.ms);
    if (k === 0) notes.push(`parse-everything baseline: ${base.stdout.trim()}`);
    const cli = await runNode(CLI, ['audit', repo, '--format', 'json'], output);
    if (cli.code !== 0 && cli.code !== 1) {
      error = `the CLI exited with ${cli.code}: ${cli.stderr.split('\n').slice(0, 3).join(' ')}`;
      break;
    }
    cliMs.push(cli.ms);
    if (cli.peakRss) peaks.push(cli.peakRss);
    if (k === 0) {
      try {
        const result = JSON.parse(readFileSync(output, 'utf8')) as { summary: Record<string, number>; findings: Array<{ rule: string }> };
        const byRule = new Map<string, number>();
        for (const f of result.findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
        notes.push(`CLI audit summary: ${JSON.stringify(result.summary)}; findings by rule: ${[...byRule].map(([r, n]) => `${r} ${n}`).join(', ')}`);
      } catch (e) {
        notes.push(`CLI audit output is not JSON: ${(e as Error).message}`);
      }
    }
  }
  if (parts.has('audit')) {
    rows.push(
      error
        ? { figure: `audit CLI (${label})`, unit: 'ms', median: null, samples: [], error }
        : { figure: `audit CLI (${label})`, unit: 'ms', median: median(cliMs), samples: cliMs, baseline: { name: 'parse all', value: median(baseMs) }, targetRatio: 0.25 },
    );
  }
  if (parts.has('memory')) {
    rows.push(
      peaks.length > 0
        ? {
            figure: 'memory CLI audit peak RSS',
            unit: 'MB',
            median: Math.max(...peaks) / 1e6,
            samples: peaks.map((p) => p / 1e6),
            targetValue: 400,
            note: `max over ${peaks.length} runs (${TIME ? 'GNU time -v' : 'sampled VmHWM'})`,
          }
        : { figure: 'memory CLI audit peak RSS', unit: 'MB', median: null, samples: [], error: error ?? 'no measurement' },
    );
  }
}

/**
 * Open targets: issue 5 asks ≤ 0.65× the parse, where most documents need no
 * parse (no rule can fire in them); issue 12 sets ≤ 1.0× for the file of 2,000
 * Jobs, where every document must be parsed whole (the parse is the floor).
 */
function openTarget(name: string): number {
  return name.startsWith('jobs-') ? 1.0 : 0.65;
}

/** The CLI's wall time and peak RSS on one repository (median over `reps` runs), or an error. */
async function timeAudit(repo: string, args: string[], reps: number): Promise<{ ms: number[]; peaks: number[] } | { error: string }> {
  const ms: number[] = [];
  const peaks: number[] = [];
  for (let k = 0; k < reps; k++) {
    const run = await runNode(CLI, ['audit', repo, '--format', 'json', ...args], '/dev/null');
    if (run.code !== 0 && run.code !== 1) return { error: `the CLI exited with ${run.code}: ${run.stderr.split('\n').slice(0, 3).join(' ')}` };
    ms.push(run.ms);
    if (run.peakRss) peaks.push(run.peakRss);
  }
  return { ms, peaks };
}

/** Worker threads must pay: 2 threads at least 1.5× faster than 1 on 2 cores; the default picks the faster. */
async function threadFigures(generated: Generated): Promise<void> {
  const repo = generated.repoDir;
  warmPageCache(repo);
  const configurations = [
    ['1 thread', ['--threads', '1']],
    ['2 threads', ['--threads', '2']],
    ['default', []],
  ] as const;
  // Round robin, one run of each per round: a machine that slows down or speeds up during the
  // minutes this takes (a busy neighbour) shifts every configuration alike, not one of them.
  const results = new Map<string, Awaited<ReturnType<typeof timeAudit>>>();
  for (let round = 0; round < AUDIT_REPS; round++) {
    for (const [name, args] of configurations) {
      log(`  threads: audit with ${name} (round ${round + 1}/${AUDIT_REPS})`);
      const previous = results.get(name);
      if (previous && 'error' in previous) continue;
      const run = await timeAudit(repo, [...args], 1);
      results.set(name, 'error' in run || !previous ? run : { ms: [...previous.ms, ...run.ms], peaks: [...previous.peaks, ...run.peaks] });
    }
  }
  const one = results.get('1 thread')!;
  if ('error' in one) return void rows.push({ figure: 'threads: audit, 1 thread', unit: 'ms', median: null, samples: [], error: one.error });
  const oneMs = median(one.ms);
  rows.push({ figure: 'threads: audit, 1 thread (20,000 files)', unit: 'ms', median: oneMs, samples: one.ms, note: 'information: the baseline of the two rows below' });
  for (const name of ['2 threads', 'default'] as const) {
    const run = results.get(name)!;
    if ('error' in run) rows.push({ figure: `threads: audit, ${name}`, unit: 'ms', median: null, samples: [], error: run.error });
    else
      rows.push({
        figure: `threads: audit, ${name}`,
        unit: 'ms',
        median: median(run.ms),
        samples: run.ms,
        baseline: { name: '1 thread', value: oneMs },
        targetRatio: name === '2 threads' ? 0.67 : 1.0,
      });
  }
  const two = results.get('2 threads')!;
  const byDefault = results.get('default')!;
  if (!('error' in two) && !('error' in byDefault)) {
    const best = Math.min(oneMs, median(two.ms));
    rows.push({
      figure: 'threads: the default vs the faster of the two',
      unit: 'ms',
      median: median(byDefault.ms),
      samples: byDefault.ms,
      baseline: { name: 'faster', value: best },
      targetRatio: 1.1,
      note: 'within 10% of the faster choice',
    });
  }
}

/**
 * `audit --changed-since HEAD` after one Job's TTL changed in the generated repository (a git
 * repository), against the whole audit, alternating (issue 22.1: ≤ 0.1×); and the same with
 * `--cache` holding what a run before the change kept (its summaries and its model: a pull request's second
 * run, a pre-commit hook's next commit): copied in before each run, so every run finds one file
 * changed since the cache was written.
 */
async function changedFigures(generated: Generated): Promise<void> {
  const repo = generated.repoDir;
  const files = generated.manifest.repo.files.toLocaleString('en-US');
  const figure = `audit --changed-since HEAD, one Job changed (${files} files) vs whole`;
  const cachedFigure = `audit --changed-since HEAD --cache (warm), one Job changed (${files} files) vs whole`;
  const failed = (error: string) => void rows.push(...[figure, cachedFigure].map((name) => ({ figure: name, unit: 'ms' as const, median: null, samples: [], error })));
  if (!existsSync(join(repo, '.git'))) return failed('the generated repository is no git repository (git was missing when it was made)');
  const path = join(repo, findJobFile(repo));
  const original = readFileSync(path, 'utf8');
  const changed = original.replace(/ttlSecondsAfterFinished: (\d+)/, (_, value: string) => `ttlSecondsAfterFinished: ${Number(value) + 1}`);
  if (changed === original) return failed(`${path} sets no TTL to change`);
  warmPageCache(repo);
  const cacheBefore = join(generated.dir, 'cache-before-change');
  const cacheRun = join(generated.dir, 'cache-of-the-run');
  const since: number[] = [];
  const cached: number[] = [];
  const whole: number[] = [];
  try {
    log('  changed: the cache of the repository before the change (not timed)');
    rmSync(cacheBefore, { recursive: true, force: true });
    const fill = await timeAudit(repo, ['--changed-since', 'HEAD', '--cache-location', cacheBefore], 1);
    if ('error' in fill) return failed(fill.error);
    writeFileSync(path, changed);
    for (let k = 0; k < AUDIT_REPS; k++) {
      log(`  changed: whole audit, then --changed-since HEAD, then with the cache (${k + 1}/${AUDIT_REPS})`);
      rmSync(cacheRun, { recursive: true, force: true });
      cpSync(cacheBefore, cacheRun, { recursive: true });
      for (const [args, into] of [
        [[], whole],
        [['--changed-since', 'HEAD'], since],
        [['--changed-since', 'HEAD', '--cache-location', cacheRun], cached],
      ] as const) {
        const run = await timeAudit(repo, [...args], 1);
        if ('error' in run) return failed(run.error);
        into.push(run.ms[0]);
      }
    }
  } finally {
    writeFileSync(path, original);
    for (const cache of [cacheBefore, cacheRun]) rmSync(cache, { recursive: true, force: true });
  }
  const baseline = { name: 'whole audit', value: median(whole) };
  rows.push({ figure, unit: 'ms', median: median(since), samples: since, baseline, targetRatio: 0.1, note: 'default threads both' });
  rows.push({
    figure: cachedFigure,
    unit: 'ms',
    median: median(cached),
    samples: cached,
    baseline,
    targetRatio: 0.1,
    note: 'the cache written by a run before the change: its model is taken (no model built), the changed file and the files it reaches are audited; the files git reports unchanged are not read',
  });
}

/** The audit of every real repository in one run, against parsing all their YAML in one thread. */
async function corpusFigures(): Promise<void> {
  if (!existsSync(CORPUS)) return void rows.push({ figure: 'corpus: audit of ../shared/corpus', unit: 'ms', median: null, samples: [], error: `${CORPUS} is missing` });
  warmPageCache(CORPUS);
  const cli: number[] = [];
  const base: number[] = [];
  for (let k = 0; k < AUDIT_REPS; k++) {
    log(`  corpus run ${k + 1}/${AUDIT_REPS}`);
    const parse = await runNode(PARSE_ALL, [CORPUS], null);
    if (parse.code !== 0) throw new Error(`parse-all failed: ${parse.stderr}`);
    base.push(parse.ms);
    const run = await timeAudit(CORPUS, [], 1);
    if ('error' in run) return void rows.push({ figure: 'corpus: audit of ../shared/corpus', unit: 'ms', median: null, samples: [], error: run.error });
    cli.push(run.ms[0]);
  }
  rows.push({
    figure: `corpus: audit of ../shared/corpus (${readdirSync(CORPUS).length - 1} repositories, one run)`,
    unit: 'ms',
    median: median(cli),
    samples: cli,
    baseline: { name: 'parse all, 1 thread', value: median(base) },
    targetRatio: 0.6,
  });
}

/** The model stays linear: 16× the Kustomizations costs about 16× the time (after the start-up), under 1 GB. */
async function scaleFigures(): Promise<void> {
  const sizes = [1000, 16000];
  const measured: Array<{ ks: number; files: number; ms: number; peak: number | null }> = [];
  for (const ks of sizes) {
    const made = ensureScalingRepo(repoRoot, ks, log);
    warmPageCache(made.dir);
    log(`  scale: audit of ${ks} Kustomizations (${made.files} files)`);
    const run = await timeAudit(made.dir, [], 1);
    if ('error' in run) return void rows.push({ figure: `scale: ${ks} Kustomizations`, unit: 'ms', median: null, samples: [], error: run.error });
    measured.push({ ks, files: made.files, ms: run.ms[0], peak: run.peaks[0] ?? null });
  }
  const startup = await runNode(CLI, ['--version'], null);
  const [small, large] = measured;
  rows.push({
    figure: `scale: audit, ${small.ks.toLocaleString('en-US')} Kustomizations (${small.files.toLocaleString('en-US')} files)`,
    unit: 'ms',
    median: small.ms,
    samples: [small.ms],
    note: `information; CLI start-up ${fmt(startup.ms, 'ms')}`,
  });
  const expected = startup.ms + (small.ms - startup.ms) * (large.ks / small.ks);
  rows.push({
    figure: `scale: audit, ${large.ks.toLocaleString('en-US')} Kustomizations (${large.files.toLocaleString('en-US')} files)`,
    unit: 'ms',
    median: large.ms,
    samples: [large.ms],
    baseline: { name: '16× the smaller', value: expected },
    targetRatio: 1.2,
    note: 'linear means about 1.0: 16× the smaller run (less the start-up) plus the start-up',
  });
  if (large.peak) rows.push({ figure: `scale: peak RSS, ${large.ks.toLocaleString('en-US')} Kustomizations`, unit: 'MB', median: large.peak / 1e6, samples: [large.peak / 1e6], targetValue: 1000 });
}

/** The parse-everything baseline, bundled with the CLI's own yaml (debug switches compiled out). */
async function bundleBaseline(dir: string): Promise<void> {
  const esbuild = await import('esbuild');
  const { yamlDebugSwitchesOff } = (await import(join(repoRoot, 'scripts', 'yaml-debug-switches.mjs'))) as { yamlDebugSwitchesOff: import('esbuild').Plugin };
  const outfile = join(dir, 'bin', 'parse-all.js');
  await esbuild.build({
    entryPoints: [join(repoRoot, 'bench', 'parse-all.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    plugins: [yamlDebugSwitchesOff],
  });
  PARSE_ALL = outfile;
  // Loaded by path at run time: the bundle is written just above.
  parseAllDocuments = (createRequire(outfile)(outfile) as { parseDocuments: (text: string) => unknown }).parseDocuments;
}

async function serverMemory(generated: Generated, parseAllMs: number | undefined): Promise<void> {
  const repo = generated.repoDir;
  const client = OURS.start();
  try {
    const started = performance.now();
    await client.initialize(repo);
    const jobFile = findJobFile(repo);
    const uri = fileUri(join(repo, jobFile));
    const published = client.nextPublish(uri, () => true, 600_000);
    client.open(uri, readFileSync(join(repo, jobFile), 'utf8'));
    await published;
    const ready = performance.now() - started;
    const indexed = client.memory();
    const auditStarted = performance.now();
    await client.request('fluxJobGuard/audit');
    const auditMs = performance.now() - auditStarted;
    const memory = client.memory();
    notes.push(
      `server: initialize → first diagnostics of ${jobFile} took ${fmt(ready, 'ms')} (repository indexing included); fluxJobGuard/audit took ${fmt(auditMs, 'ms')}; ${client.publishes} publishes`,
    );
    rows.push({
      figure: 'memory server RSS after audit',
      unit: 'MB',
      median: memory.rss / 1e6,
      samples: [memory.rss / 1e6],
      targetValue: 250,
      note: 'VmRSS after initialize + open + fluxJobGuard/audit',
    });
    rows.push({ figure: 'memory server peak (VmHWM)', unit: 'MB', median: memory.hwm / 1e6, samples: [memory.hwm / 1e6], note: 'information' });
    rows.push({
      figure: 'memory server RSS before audit',
      unit: 'MB',
      median: indexed.rss / 1e6,
      samples: [indexed.rss / 1e6],
      note: 'information: after initialize (indexing) + open + first diagnostics',
    });
    rows.push({
      figure: 'audit server request (information)',
      unit: 'ms',
      median: auditMs,
      samples: [auditMs],
      baseline: parseAllMs ? { name: 'parse all', value: parseAllMs } : undefined,
      note: 'one run',
    });
    await saveScopedAudit(client, join(repo, jobFile), auditMs);
  } catch (error) {
    rows.push({ figure: 'memory server RSS after audit', unit: 'MB', median: null, samples: [], error: (error as Error).message.split('\n')[0] });
  } finally {
    await client.shutdown();
  }
}

/**
 * The server's audit after a save (issue 22.2): a Job's TTL changed in the editor, analysed, written
 * and saved, timed from didSave to the end of the audit it starts; against the whole audit
 * (fluxJobGuard/audit, the first run's time and two more, alternating with the saves).
 */
async function saveScopedAudit(client: BenchLspClient, path: string, firstAuditMs: number): Promise<void> {
  const uri = fileUri(path);
  const original = readFileSync(path, 'utf8');
  const at = original.indexOf('ttlSecondsAfterFinished: ');
  if (at === -1) throw new Error(`${path} sets no TTL to change`);
  const valueStart = at + 'ttlSecondsAfterFinished: '.length;
  const oldValue = /^\d+/.exec(original.slice(valueStart))![0];
  const position = (offset: number) => {
    const before = original.slice(0, offset);
    return { line: before.split('\n').length - 1, character: offset - before.lastIndexOf('\n') - 1 };
  };
  const range = { start: position(valueStart), end: position(valueStart + oldValue.length) };
  const saves: number[] = [];
  const wholes = [firstAuditMs];
  try {
    for (let k = 0; k < 6; k++) {
      // the last digit changed and back: the same length, so the range stays right
      const value = k % 2 === 1 ? oldValue : oldValue.slice(0, -1) + (oldValue.endsWith('1') ? '2' : '1');
      const analysed = client.nextPublish(uri);
      client.change(uri, range, value);
      await analysed;
      writeFileSync(path, original.slice(0, valueStart) + value + original.slice(valueStart + oldValue.length));
      await client.waitIdle();
      const ended = client.nextAuditEnd();
      const sent = client.save(uri);
      saves.push((await ended) - sent);
      if (k % 3 === 2) {
        await client.waitIdle();
        const started = performance.now();
        await client.request('fluxJobGuard/audit');
        wholes.push(performance.now() - started);
      }
    }
  } finally {
    writeFileSync(path, original);
  }
  const whole = median(wholes);
  rows.push({
    figure: 'audit server, after a save vs whole',
    unit: 'ms',
    median: median(saves),
    samples: saves,
    baseline: { name: 'whole audit', value: whole },
    targetRatio: 0.05,
    note: `a Job's TTL changed and saved, didSave → the audit's end (${saves.length} saves); the whole audit ${wholes.map((ms) => fmt(ms, 'ms')).join(', ')}`,
  });
}

function findJobFile(repo: string): string {
  const found = listYamlFiles(repo).find((f) => f.endsWith('/job.yaml'));
  if (!found) throw new Error('no job.yaml in the generated repository');
  return found;
}

// ---- the table ----------------------------------------------------------------

function fmt(value: number, unit: Unit): string {
  if (unit === 'MB') return `${value.toFixed(0)} MB`;
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

function verdict(row: Row): { ratio: string; target: string; result: string } {
  if (row.median === null) return { ratio: '', target: '', result: 'ERROR' };
  const ratio = row.baseline ? row.median / row.baseline.value : null;
  if (row.targetRatio !== undefined && ratio !== null) return { ratio: ratio.toFixed(3), target: `≤ ${row.targetRatio}`, result: ratio <= row.targetRatio ? 'ok' : 'miss' };
  if (row.targetValue !== undefined) return { ratio: ratio === null ? '' : ratio.toFixed(3), target: `≤ ${row.targetValue} ${row.unit}`, result: row.median <= row.targetValue ? 'ok' : 'miss' };
  return { ratio: ratio === null ? '' : ratio.toFixed(3), target: '', result: 'info' };
}

function printTable(): void {
  const header = ['figure', 'median', 'min–max', 'baseline', 'ratio', 'target', ''];
  const range = (row: Row) => (row.samples.length > 1 ? `${fmt(Math.min(...row.samples), row.unit).replace(/ (ms|s|MB)$/, '')}–${fmt(Math.max(...row.samples), row.unit)}` : '');
  const body = rows.map((row) => {
    const v = verdict(row);
    return [
      row.figure,
      row.median === null ? '—' : fmt(row.median, row.unit),
      range(row),
      row.baseline ? `${row.baseline.name} ${fmt(row.baseline.value, row.unit)}` : '',
      v.ratio,
      v.target,
      v.result,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : i === cells.length - 1 ? c : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) console.log(line(r));
  const footnotes = rows.filter((r) => r.note || r.error).map((r) => `- ${r.figure.trim()}: ${r.error ? 'ERROR ' + r.error : r.note}`);
  if (footnotes.length + notes.length > 0) console.log('');
  for (const n of [...footnotes, ...notes]) console.log(n);
}

// ---- main ---------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  const generated = ensureGenerated(repoRoot, argv.includes('--regenerate'), log);
  CLI = snapshotBundle(BUILT_CLI, join(generated.dir, 'bin'));
  log(`flux-job-guard bench: node ${process.version}, ${cpus().length} CPUs; reps: edit ${EDIT_REPS}, open ${OPEN_REPS}, audit ${AUDIT_REPS}; parts: ${[...only].join(',')}`);
  await bundleBaseline(generated.dir);
  if (only.has('edit') || only.has('open')) await lspFigures(generated, only);
  if (only.has('audit') || only.has('memory')) await auditFigures(generated, only);
  if (only.has('threads')) await threadFigures(generated);
  if (only.has('changed')) await changedFigures(generated);
  if (only.has('corpus')) await corpusFigures();
  if (only.has('scale')) await scaleFigures();
  if (only.has('memory')) {
    const parseAll = rows.find((r) => r.figure.startsWith('audit CLI'))?.baseline?.value;
    await serverMemory(generated, parseAll);
  }
  console.log('');
  const load = `load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`;
  console.log(`flux-job-guard bench — medians; node ${process.version}, ${cpus().length} CPUs, ${load}, ${new Date().toISOString()}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (Math.max(loadAtStart, loadavg()[0]) > cpus().length)
    notes.push(`!!! the machine was busy (${load}, ${cpus().length} CPUs): absolute times are inflated; the ratios, whose baselines ran in between, are the figures to trust.`);
  printTable();
  const out = jsonPath ?? join(generated.dir, 'results.json');
  writeFileSync(out, JSON.stringify({ node: process.version, cpus: cpus().length, date: new Date().toISOString(), rows: rows.map((r) => ({ ...r, ...verdict(r) })), notes }, null, 2) + '\n');
  const failed = rows.some((r) => r.median === null);
  const missed = rows.some((r) => verdict(r).result === 'miss');
  process.exitCode = failed || (argv.includes('--check') && missed) ? 1 : 0;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
