// The `$$` rules on the layers model, cell by cell: postBuild yes/no × the
// kubelet yes/no (a Job's inline command, or the same script in a mounted
// ConfigMap), for a PID, a PL/pgSQL quote, `$${VAR}` and `$$(cmd)`. Every
// finding's fix is applied, the fixed file is audited again (no finding
// left), and the fixed script is run through Flux's substitution and the
// kubelet's expansion: the consumer must receive what was meant. A cell
// without a finding is checked the same way on the text as written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from 'yaml';
import type { Finding } from '../server/src/engine/base/types';
import { deliver, type Layers } from '../server/src/engine/flux/substitution/layers';
import { job, kustomization } from './helpers/flux-fixtures';
import { auditFiles, yaml } from './helpers/memory-fs';
import { applyFileEdits } from './helpers/table';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS } from './ecosystem/corpus';

const CONTRACT = 'jobs:\n  include: ["**/*.yaml"]\nflux:\n  roots: [flux]\nrules:\n  ttl-convergence-note: "off"\n';
const POST_BUILD = '  postBuild:\n    substitute:\n      CLUSTER: home\n';
const DOLLAR_RULES = new Set(['flux-substitution-pid', 'flux-substitution-needless-escape', 'flux-substitution-bare-dollar', 'pod-kubelet-dollar', 'flux-substitution-undefined']);

const FLUX = { lookup: (name: string) => (name === 'CLUSTER' ? 'home' : undefined), strict: true };
const NO_VARIABLES = { entries: [], visible: 0, open: false };

interface Cell {
  postBuild: boolean;
  kubelet: boolean;
}

const CELLS: Cell[] = [
  { postBuild: true, kubelet: true },
  { postBuild: true, kubelet: false },
  { postBuild: false, kubelet: true },
  { postBuild: false, kubelet: false },
];

const cellName = ({ postBuild, kubelet }: Cell) => `${postBuild ? 'postBuild' : 'no postBuild'} × ${kubelet ? "a Job's inline command" : 'a mounted ConfigMap script'}`;

/** The file the script sits in: a Job running it with `sh -c`, or a ConfigMap holding it as run.sh. */
function fileWith(cell: Cell, script: string): { path: string; text: string } {
  const body = script
    .split('\n')
    .map((line) => (line === '' ? line : `              ${line}`))
    .join('\n');
  if (cell.kubelet) return { path: 'apps/job.yaml', text: job('j', 'it only reads', `          command:\n            - /bin/sh\n            - -c\n            - |\n${body}\n`) };
  return { path: 'apps/script.yaml', text: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\ndata:\n  run.sh: |\n${body.replace(/^ {10}/gm, '')}\n` };
}

/** The script's text as written in the file (the block scalar's value, without its final line break). */
function scriptOf(cell: Cell, text: string): string {
  const value = parseDocument(text).toJS() as { data?: Record<string, string>; spec?: { template: { spec: { containers: Array<{ command: string[] }> } } } };
  return (cell.kubelet ? value.spec!.template.spec.containers[0].command[2] : value.data!['run.sh']).replace(/\n$/, '');
}

async function dollarFindings(cell: Cell, path: string, text: string): Promise<Finding[]> {
  const files = { '.flux-job-guard.yaml': CONTRACT, 'flux/apps.yaml': kustomization('apps', './apps', cell.postBuild ? POST_BUILD : ''), [path]: text };
  return (await auditFiles(files)).findings.filter((finding) => DOLLAR_RULES.has(finding.rule));
}

function layersOf(cell: Cell): Layers {
  return { ...(cell.postBuild ? { flux: FLUX } : {}), ...(cell.kubelet ? { kubelet: NO_VARIABLES } : {}) };
}

/** What the consumer receives of the script in that cell (or why Flux fails the build). */
function received(cell: Cell, script: string): string {
  const delivered = deliver(script, layersOf(cell));
  return delivered.ok ? delivered.output : `Flux fails: ${delivered.error}`;
}

interface Case {
  what: string;
  /** The script as written. */
  script: string;
  /** What the shell must receive. */
  meant: string;
  /** The rules that report the script in each cell (in CELLS order). */
  findings: [string[], string[], string[], string[]];
  /** The `$` run each fix writes, per cell (where there is a finding). */
  written?: [string | null, string | null, string | null, string | null];
}

const CASES: Case[] = [
  {
    what: 'a PID',
    script: 'echo $$ > /run/app.pid',
    meant: 'echo $$ > /run/app.pid',
    findings: [['flux-substitution-pid'], ['flux-substitution-pid'], ['pod-kubelet-dollar'], []],
    written: ['$$$$$$$$', '$$$$', '$$$$', null],
  },
  {
    what: 'a PL/pgSQL $$ quote',
    script: "psql <<'SQL'\nCREATE FUNCTION one() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN RETURN 1; END;\n$$;\nSQL",
    meant: "psql <<'SQL'\nCREATE FUNCTION one() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN RETURN 1; END;\n$$;\nSQL",
    findings: [['flux-substitution-pid', 'flux-substitution-pid'], ['flux-substitution-pid', 'flux-substitution-pid'], ['pod-kubelet-dollar', 'pod-kubelet-dollar'], []],
    written: ['$$$$$$$$', '$$$$', '$$$$', null],
  },
  {
    what: '$${VAR} for the shell',
    script: 'for mod in a b; do echo "$${mod}"; done',
    meant: 'for mod in a b; do echo "${mod}"; done',
    findings: [[], [], [], ['flux-substitution-needless-escape']],
  },
  {
    what: '$$(cmd) for the shell',
    script: 'echo "started at $$(date +%s)"',
    meant: 'echo "started at $(date +%s)"',
    findings: [[], [], [], ['flux-substitution-needless-escape']],
  },
  {
    what: '${VAR} for the shell, unescaped',
    script: 'echo "${HOME}"',
    meant: 'echo "${HOME}"',
    // Under postBuild Flux substitutes it (undefined: the build fails); the escape fix writes $${HOME}.
    findings: [['flux-substitution-undefined'], ['flux-substitution-undefined'], [], []],
  },
];

describe('the $$ rules, postBuild × kubelet', () => {
  for (const { what, script, meant, findings, written } of CASES) {
    CELLS.forEach((cell, i) => {
      test(`${what}, ${cellName(cell)}: ${findings[i].join(', ') || 'no finding'}`, async () => {
        const { path, text } = fileWith(cell, script);
        const found = await dollarFindings(cell, path, text);
        assert.deepEqual(
          found.map((f) => f.rule),
          findings[i],
        );
        if (found.length === 0) {
          // The negative control of a cell without a finding: the text as written is delivered as meant.
          assert.equal(received(cell, scriptOf(cell, text)), meant);
          return;
        }
        // The text as written is not delivered as meant (else the finding would be false)…
        assert.notEqual(received(cell, scriptOf(cell, text)), meant, 'the finding is about a real difference');
        // …and with every finding's preferred fix applied, it is, and nothing is reported any more.
        const fixes = found.map((f) => f.fixes?.find((fix) => fix.preferred));
        assert.ok(
          fixes.every((fix) => fix !== undefined),
          'every finding offers a preferred fix',
        );
        const fixed = applyFileEdits(
          text,
          fixes.flatMap((fix) => fix.edits),
        );
        if (written?.[i]) for (const fix of fixes) assert.match(fix.title, new RegExp(`^Write ${written[i].replace(/\$/g, '\\$')}( |$)`));
        assert.equal(received(cell, scriptOf(cell, fixed)), meant);
        assert.deepEqual(await dollarFindings(cell, path, fixed), []);
      });
    });
  }
});

describe('what the finding says', () => {
  test('the damacus case: a PL/pgSQL $$ in a Job under postBuild is written $$$$$$$$, which psql receives as $$', async () => {
    const cell = CELLS[0];
    const { path, text } = fileWith(cell, 'psql -c "DO $$ BEGIN PERFORM 1; END $$;"');
    const [first, second] = await dollarFindings(cell, path, text);
    assert.match(first.message, /^Flux turns \$\$ into \$, and the kubelet does it again in a container command, args or env: .* written \$\$ arrives as \$; the shell receives "psql -c "DO \$ BEGIN/);
    assert.match(first.message, /Write \$\$\$\$\$\$\$\$ to keep \$\$/);
    assert.equal(first.fixes![0].title, 'Write $$$$$$$$ (Flux and the kubelet turn it into $$)');
    assert.equal(second.fixes![0].title, 'Write $$$$$$$$ (Flux and the kubelet turn it into $$)');
  });

  test('the damacus file itself (damacus__home-ops penpot job-skip-onboarding.yaml:50, :56): the fix writes eight $, psql receives $$ (negative control: the file as written delivers $)', async () => {
    const text = readFileSync(join(CORPUS, 'damacus__home-ops', 'kubernetes/apps/home/penpot/app/job-skip-onboarding.yaml'), 'utf8');
    const path = 'apps/job-skip-onboarding.yaml';
    const found = await dollarFindings(CELLS[0], path, text);
    assert.deepEqual(
      found.map((f) => `${f.rule}:${f.range.start.line + 1}`),
      ['flux-substitution-pid:50', 'flux-substitution-pid:56'],
    );
    const fixes = found.map((f) => f.fixes!.find((fix) => fix.preferred)!);
    assert.deepEqual(
      fixes.map((fix) => fix.title),
      ['Write $$$$$$$$ (Flux and the kubelet turn it into $$)', 'Write $$$$$$$$ (Flux and the kubelet turn it into $$)'],
    );
    const fixed = applyFileEdits(
      text,
      fixes.flatMap((fix) => fix.edits),
    );
    const sql = (written: string) => {
      const script = (parseDocument(written).toJS() as { spec: { template: { spec: { containers: Array<{ command: string[] }> } } } }).spec.template.spec.containers[0].command[2];
      const out = received(CELLS[0], script);
      return out.slice(out.indexOf('psql <<'), out.indexOf('SQL\n', out.indexOf('psql <<') + 10));
    };
    assert.match(sql(fixed), /RETURNS trigger LANGUAGE plpgsql AS \$\$\nBEGIN[^]*END;\n\$\$;\n/);
    assert.match(fixed.split('\n')[49], /AS \$\$\$\$\$\$\$\$$/);
    assert.match(sql(text), /RETURNS trigger LANGUAGE plpgsql AS \$\nBEGIN[^]*END;\n\$;\n/);
    assert.deepEqual(await dollarFindings(CELLS[0], path, fixed), []);
  });

  test('pod-kubelet-dollar says what the process receives and what to write', async () => {
    const cell = CELLS[2];
    const { path, text } = fileWith(cell, 'echo $$ > /run/app.pid');
    const [finding] = await dollarFindings(cell, path, text);
    assert.equal(
      finding.message,
      'The kubelet turns $$ into $ in a container command, args and env before the process starts: a shell PID (or a $$ quote, as in PL/pgSQL) written $$ arrives as $; the shell receives "echo $ > /run/app.pid". Write $$$$ to keep $$ (or $$ before a name for a shell variable).',
    );
    assert.equal(finding.severity, 'warning');
    assert.deepEqual(finding.range, { start: { line: 17, character: 19 }, end: { line: 17, character: 21 } });
    assert.equal(finding.fixes![0].title, 'Write $$$$ (the kubelet turns it into $$)');
  });
});

const deployment = (container: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n${container}`;

/** A container whose args are a script (its command ends in `sh -c`) that writes its PID with `dollars`. */
const pidArgs = (dollars: string) => `          command: [/bin/sh, -c]\n          args:\n            - echo ${dollars} > /run/app.pid && exec nginx\n`;

describe('the kubelet alone, beyond Flux', () => {
  test('a repository without Flux: a Deployment whose args write $$ (negative control: $$$$)', async () => {
    const rules = async (dollars: string) => (await auditFiles({ 'web.yaml': deployment(pidArgs(dollars)) })).findings.filter((f) => DOLLAR_RULES.has(f.rule)).map((f) => f.rule);
    assert.deepEqual(await rules('$$'), ['pod-kubelet-dollar']);
    assert.deepEqual(await rules('$$$$'), []);
  });

  test('pod-kubelet-dollar can be turned off in the contract', async () => {
    const contract = 'jobs:\n  include: ["**/*.yaml"]\nrules:\n  pod-kubelet-dollar: "off"\n';
    const found = (await auditFiles({ '.flux-job-guard.yaml': contract, 'web.yaml': deployment(pidArgs('$$')) })).findings.filter((f) => f.rule === 'pod-kubelet-dollar');
    assert.deepEqual(found, []);
  });

  test('a resource that opts out of substitution still meets the kubelet', async () => {
    const optedOut = deployment(pidArgs('$$')).replace('  name: web\n', '  name: web\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n');
    const files = { '.flux-job-guard.yaml': CONTRACT, 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/web.yaml': optedOut };
    assert.deepEqual(
      (await auditFiles(files)).findings.filter((f) => DOLLAR_RULES.has(f.rule)).map((f) => f.rule),
      ['pod-kubelet-dollar'],
    );
    // Negative control: without the opt-out, Flux substitutes it too, and the pid rule counts both layers.
    const substituted = { ...files, 'apps/web.yaml': deployment(pidArgs('$$')) };
    assert.deepEqual(
      (await auditFiles(substituted)).findings.filter((f) => DOLLAR_RULES.has(f.rule)).map((f) => f.rule),
      ['flux-substitution-pid'],
    );
  });

  test('a file nothing applies in a Flux repository is not checked (negative control: the same file where Flux applies it)', async () => {
    // Without jobs.include, the resource rules see what Flux applies.
    const files = { '.flux-job-guard.yaml': 'flux:\n  roots: [flux]\n', 'flux/apps.yaml': kustomization('apps', './apps'), 'archive/web.yaml': deployment(pidArgs('$$')) };
    assert.deepEqual(
      (await auditFiles(files)).findings.filter((f) => DOLLAR_RULES.has(f.rule)),
      [],
    );
    const applied = { ...files, 'apps/web.yaml': files['archive/web.yaml'] };
    assert.deepEqual(
      (await auditFiles(applied)).findings.filter((f) => DOLLAR_RULES.has(f.rule)).map((f) => `${f.rule} ${f.file}`),
      ['pod-kubelet-dollar apps/web.yaml'],
    );
  });
});

describe('app-template values and patch files', () => {
  const helmRelease = (dollars: string) => yaml`
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata:
      name: app
    spec:
      chartRef: {kind: OCIRepository, name: app-template}
      values:
        controllers:
          app:
            initContainers:
              wait:
                command: [/bin/sh, -c, 'ls /proc/${dollars}/root']
            containers:
              app:
                image: {repository: busybox}
  `;
  const audit = async (postBuild: boolean, files: Record<string, string>) =>
    (await auditFiles({ '.flux-job-guard.yaml': CONTRACT, 'flux/apps.yaml': kustomization('apps', './apps', postBuild ? POST_BUILD : ''), ...files })).findings.filter((f) => DOLLAR_RULES.has(f.rule));

  test('under postBuild, /proc/$$$$$$/root in an app-template init container is right (Flux → $$$, the kubelet → $$); $$$$ is not', async () => {
    assert.deepEqual(await audit(true, { 'apps/helmrelease.yaml': helmRelease('$$$$$$') }), []);
    assert.equal(received({ postBuild: true, kubelet: true }, 'ls /proc/$$$$$$/root'), 'ls /proc/$$/root');
    const [finding] = await audit(true, { 'apps/helmrelease.yaml': helmRelease('$$$$') });
    assert.equal(finding.rule, 'flux-substitution-pid');
    assert.equal(finding.fixes![0].title, 'Write $$$$$$$$ (Flux and the kubelet turn it into $$)');
    // Negative control: the same text in a ConfigMap is not the kubelet's: six $ arrive as three.
    const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  run.sh: |\n    ls /proc/$$$$$$/root\n';
    assert.deepEqual(
      (await audit(true, { 'apps/cm.yaml': configMap })).map((f) => f.rule),
      ['flux-substitution-pid'],
    );
  });

  test("a strategic-merge patch file's args meet the kubelet; so does a JSON 6902 operation's value", async () => {
    const kustomizationFile = 'resources:\n  - web.yaml\npatches:\n  - path: patch.yaml\n  - path: ops.yaml\n    target: {kind: Deployment, name: web}\n';
    const patch = deployment(pidArgs('$$'));
    const ops = '- op: replace\n  path: /spec/template/spec/containers/0/args\n  value: [/bin/sh, -c, "echo $$ > /run/app.pid"]\n';
    const found = await audit(false, { 'apps/kustomization.yaml': kustomizationFile, 'apps/web.yaml': deployment(''), 'apps/patch.yaml': patch, 'apps/ops.yaml': ops });
    assert.deepEqual(
      found.map((f) => `${f.rule} ${f.file}`),
      ['pod-kubelet-dollar apps/ops.yaml', 'pod-kubelet-dollar apps/patch.yaml'],
    );
    // Negative control: the fixed spelling.
    const fixedOps = ops.replace('$$', () => '$$$$');
    assert.deepEqual(
      await audit(false, { 'apps/kustomization.yaml': kustomizationFile, 'apps/web.yaml': deployment(''), 'apps/patch.yaml': deployment(pidArgs('$$$$')), 'apps/ops.yaml': fixedOps }),
      [],
    );
  });
});

describe('$(NAME): the kubelet replaces a container variable before the shell runs', () => {
  const contract = CONTRACT + '  flux-substitution-bare-dollar: warning\n';
  const web = (reference: string) => deployment(`          env:\n            - {name: PORT, value: "8080"}\n          command: [/bin/sh, -c, 'nginx -p ${reference}']\n`);
  const bare = async (reference: string) =>
    (await auditFiles({ '.flux-job-guard.yaml': contract, 'flux/apps.yaml': kustomization('apps', './apps', POST_BUILD), 'apps/web.yaml': web(reference) })).findings
      .filter((f) => f.rule === 'flux-substitution-bare-dollar')
      .map((f) => f.range.start.character);

  test('bare-dollar does not read $(PORT) as command substitution; $(hostname) is the shell’s', async () => {
    assert.deepEqual(await bare('$(PORT)'), []);
    assert.deepEqual(await bare('$(hostname)'), [43]);
    assert.equal(received({ postBuild: true, kubelet: false }, 'nginx -p $(PORT)'), 'nginx -p $(PORT)');
    assert.equal(deliver('nginx -p $(PORT)', { flux: FLUX, kubelet: { entries: [{ name: 'PORT', value: '8080' }], visible: 1, open: false } }).ok, true);
  });
});
