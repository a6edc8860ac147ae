// CPU profiles of the bench scenarios, summarised by original source file
// (through dist/cli.js.map), so "where does the time go" has an answer:
//   node out/bench/profile.js [lsp] [audit] [server-audit] [--top=N]
//     lsp           the server: open + 5 one-character edits of each edit/open input
//     edit          the server: open + 40 one-character edits of each (mostly the edit path)
//                   (--file=TEXT keeps only the inputs whose name contains TEXT, e.g. --file=jobs-2000)
//     audit         the CLI audit of the generated repository
//     corpus        the CLI audit of ../shared/corpus with one thread (all work on one profile)
//                   (--cli=PATH profiles another build's dist/cli.js, e.g. an older commit's worktree)
//     server-audit  the server: initialize on the generated repository, open a Job, fluxJobGuard/audit
//     server-heap   the same with --heap-prof: what is still allocated when the server exits
//                   after the audit (sampled), by allocating function — where its RSS goes
// Profiles land in bench/.generated/profiles/ (open them in Chrome DevTools or
// VS Code for flame charts); the summary goes to stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap, SourceMapPayload } from 'node:module';
import { basename, join } from 'node:path';
import { ensureGenerated } from './generate';
import { BenchLspClient, fileUri, snapshotBundle } from './lsp-client';
import { listYamlFiles } from './parse-all';
import { planEdit } from './edit-plan';

const repoRoot = join(__dirname, '..', '..');
const BUILT_CLI = process.argv.find((a) => a.startsWith('--cli='))?.slice('--cli='.length) ?? join(repoRoot, 'dist', 'cli.js');
/** The profiled bundle: a copy per scenario, so its source map matches even if dist/ is rebuilt meanwhile. */
let CLI = BUILT_CLI;
const SHARED_BENCH = join(repoRoot, '..', 'shared', 'bench');
const argv = process.argv.slice(2);
const TOP = Number(argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const PROFILE_ARGS = (dir: string) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250'];

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

// ---- scenarios ------------------------------------------------------------------

async function profileLsp(dir: string, edits: number): Promise<void> {
  const generated = ensureGenerated(repoRoot);
  const only = argv.find((a) => a.startsWith('--file='))?.slice('--file='.length);
  const all = [
    generated.jobsFile,
    ...(existsSync(SHARED_BENCH)
      ? readdirSync(SHARED_BENCH)
          .filter((f) => f.endsWith('.yaml'))
          .map((f) => join(SHARED_BENCH, f))
      : []),
  ];
  const inputs = only ? all.filter((path) => basename(path).includes(only)) : all;
  const workspace = join(generated.dir, 'lsp-workspace');
  mkdirSync(workspace, { recursive: true });
  const client = new BenchLspClient({ nodeArgs: PROFILE_ARGS(dir), script: CLI, args: ['lsp', '--stdio'], configuration: () => ({}) });
  await client.initialize(workspace);
  for (const path of inputs) {
    const text = readFileSync(path, 'utf8');
    const uri = fileUri(join(workspace, basename(path)));
    const opened = client.nextPublish(uri);
    client.open(uri, text);
    await opened;
    // The bench's edits (edit-plan.ts): a new character at one place each time, as typing writes.
    const plan = planEdit(text);
    const { line, character } = plan.position;
    // No more edits than new characters: a text seen before is answered from caches.
    for (let k = 0; k < Math.min(edits, plan.replacements.length); k++) {
      const published = client.nextPublish(uri);
      client.change(uri, { start: { line, character }, end: { line, character: character + 1 } }, plan.replacements[k]);
      await published;
    }
    client.close(uri);
  }
  await client.shutdown();
}

function profileAudit(dir: string): void {
  const generated = ensureGenerated(repoRoot);
  const run = spawnSync(process.execPath, [...PROFILE_ARGS(dir), CLI, 'audit', generated.repoDir, '--format', 'json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0 && run.status !== 1) throw new Error(`the CLI exited with ${run.status}`);
}

function profileCorpusAudit(dir: string): void {
  const corpus = join(repoRoot, '..', 'shared', 'corpus');
  const run = spawnSync(process.execPath, [...PROFILE_ARGS(dir), CLI, 'audit', corpus, '--threads', '1', '--format', 'json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0 && run.status !== 1) throw new Error(`the CLI exited with ${run.status}`);
}

async function profileServerAudit(dir: string, heap = false): Promise<void> {
  const generated = ensureGenerated(repoRoot);
  const nodeArgs = heap ? ['--heap-prof', `--heap-prof-dir=${dir}`] : PROFILE_ARGS(dir);
  const client = new BenchLspClient({ nodeArgs, script: CLI, args: ['lsp', '--stdio'], configuration: () => ({}) });
  await client.initialize(generated.repoDir);
  const jobFile = listYamlFiles(generated.repoDir).find((f) => f.endsWith('/job.yaml'))!;
  const uri = fileUri(join(generated.repoDir, jobFile));
  const opened = client.nextPublish(uri, () => true, 600_000);
  client.open(uri, readFileSync(join(generated.repoDir, jobFile), 'utf8'));
  await opened;
  await client.request('fluxJobGuard/audit');
  await client.shutdown(120_000);
}

// ---- summary --------------------------------------------------------------------

class Mapper {
  private readonly maps = new Map<string, SourceMap | null>();
  private readonly cache = new Map<string, { source: string; line: number }>();

  locate(frame: CallFrame): { source: string; line: number } {
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
    let found = this.cache.get(key);
    if (found) return found;
    found = { source: frame.url ? shorten(frame.url) : 'native', line: frame.lineNumber + 1 };
    const map = this.mapFor(frame.url);
    if (map && frame.lineNumber >= 0) {
      const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number };
      if (entry?.originalSource) found = { source: shorten(entry.originalSource), line: (entry.originalLine ?? 0) + 1 };
    }
    this.cache.set(key, found);
    return found;
  }

  private mapFor(url: string): SourceMap | null {
    if (!this.maps.has(url)) {
      let map: SourceMap | null = null;
      if (url.startsWith('file://') || url.startsWith('/')) {
        const path = (url.startsWith('/') ? url : new URL(url).pathname) + '.map';
        if (existsSync(path)) map = new SourceMap(JSON.parse(readFileSync(path, 'utf8')) as SourceMapPayload);
      }
      this.maps.set(url, map);
    }
    return this.maps.get(url)!;
  }
}

function shorten(source: string): string {
  const s = source.replace(/^file:\/\//, '');
  const nm = s.lastIndexOf('node_modules/');
  if (nm !== -1) return s.slice(nm + 'node_modules/'.length);
  const src = s.indexOf('server/src/');
  if (src !== -1) return s.slice(src);
  return s.replace(/^(\.\.\/)+/, '');
}

/** Coarse areas of the code, for the first table. */
function area(source: string): string {
  if (source.startsWith('yaml/dist/parse/')) return 'yaml: lexer/parser (CST)';
  if (source.startsWith('yaml/dist/compose/')) return 'yaml: composer (AST)';
  if (source.startsWith('yaml/')) return 'yaml: nodes/other';
  if (source.startsWith('server/src/')) return source.replace(/^server\/src\//, 'engine/lsp: ');
  if (source.startsWith('vscode-')) return 'LSP libraries (jsonrpc, documents)';
  if (source.endsWith('/cli.js')) return 'bundle glue (unmapped)';
  if (source.startsWith('node:') || source.startsWith('internal/')) return 'node internals';
  return source;
}

function summarise(file: string, title: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const mapper = new Mapper();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfByNode = new Map<number, number>();
  profile.samples.forEach((id, i) => selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const total = (profile.endTime - profile.startTime) / 1000;

  const frameKey = (n: ProfileNode) => {
    const { source, line } = mapper.locate(n.callFrame);
    return { key: source === 'native' ? n.callFrame.functionName || '(native)' : `${n.callFrame.functionName || '(anonymous)'}  ${source}:${line}`, source };
  };
  const selfByArea = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of selfByNode) {
    const node = byId.get(id)!;
    const { key, source } = frameKey(node);
    const special = source === 'native' ? node.callFrame.functionName || '(native)' : null;
    selfByArea.set(special ?? area(source), (selfByArea.get(special ?? area(source)) ?? 0) + ms);
    selfByFn.set(key, (selfByFn.get(key) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = frameKey(byId.get(cur)!);
      if (!f.source.startsWith('server/src/') || seen.has(f.key)) continue;
      seen.add(f.key);
      inclusive.set(f.key, (inclusive.get(f.key) ?? 0) + ms);
    }
  }
  const busy = total - (selfByArea.get('(idle)') ?? 0);
  const pct = (ms: number) => `${((100 * ms) / busy).toFixed(1).padStart(5)}%`;
  const table = (heading: string, entries: Map<string, number>, n: number) => {
    console.log(`\n  ${heading}`);
    for (const [k, ms] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${ms.toFixed(0).padStart(8)} ms ${pct(ms)}  ${k}`);
  };
  console.log(`\n=== ${title}: ${basename(file)} — ${total.toFixed(0)} ms recorded, ${busy.toFixed(0)} ms not idle (percentages of not idle)`);
  selfByArea.delete('(idle)');
  selfByFn.delete('(idle)');
  table('self time by area', selfByArea, 20);
  table(`self time, top ${TOP} functions`, selfByFn, TOP);
  table(`inclusive time, top ${TOP} engine/LSP functions`, inclusive, TOP);
}

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/** A sampling heap profile written at exit: the objects still alive then, by the function that allocated them. */
function summariseHeap(file: string, title: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const mapper = new Mapper();
  const bySource = new Map<string, number>();
  const byFn = new Map<string, number>();
  const byEngineCaller = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, engineCaller: string | null) => {
    const { source, line } = mapper.locate(node.callFrame);
    const key = source === 'native' ? node.callFrame.functionName || '(native)' : `${node.callFrame.functionName || '(anonymous)'}  ${source}:${line}`;
    const caller = source.startsWith('server/src/') ? key : engineCaller;
    if (node.selfSize > 0) {
      total += node.selfSize;
      bySource.set(area(source), (bySource.get(area(source)) ?? 0) + node.selfSize);
      byFn.set(key, (byFn.get(key) ?? 0) + node.selfSize);
      if (caller) byEngineCaller.set(caller, (byEngineCaller.get(caller) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, caller);
  };
  walk(profile.head, null);
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1).padStart(7)} MB`;
  const table = (heading: string, entries: Map<string, number>, n: number) => {
    console.log(`\n  ${heading}`);
    for (const [k, bytes] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${mb(bytes)}  ${k}`);
  };
  console.log(`\n=== ${title}: ${basename(file)} — ${mb(total).trim()} sampled live at exit`);
  table('live bytes by area of the allocating function', bySource, 15);
  table(`live bytes, top ${TOP} allocating functions`, byFn, TOP);
  table(`live bytes by the innermost engine/LSP function on the allocation stack, top ${TOP}`, byEngineCaller, TOP);
}

async function main(): Promise<void> {
  const scenarios = argv.filter((a) => !a.startsWith('--'));
  const chosen = scenarios.length > 0 ? scenarios : ['lsp', 'audit'];
  const root = join(repoRoot, 'bench', '.generated', 'profiles');
  for (const scenario of chosen) {
    const dir = join(root, scenario);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    CLI = snapshotBundle(BUILT_CLI, join(dir, 'bin'));
    process.stderr.write(`profiling ${scenario} ...\n`);
    if (scenario === 'lsp') await profileLsp(dir, 5);
    else if (scenario === 'edit') await profileLsp(dir, Number(argv.find((a) => a.startsWith('--edits='))?.slice(8) ?? 40));
    else if (scenario === 'audit') profileAudit(dir);
    else if (scenario === 'corpus') profileCorpusAudit(dir);
    else if (scenario === 'server-audit') await profileServerAudit(dir);
    else if (scenario === 'server-heap') await profileServerAudit(dir, true);
    else throw new Error(`unknown scenario ${scenario}`);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) summarise(join(dir, file), scenario);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.heapprofile'))) summariseHeap(join(dir, file), scenario);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
