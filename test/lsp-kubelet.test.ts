// The `$$` fixes over lsp --stdio: each one offered on a pid, pod-kubelet-dollar
// or needless-escape diagnostic is applied as an editor applies it, and the
// fixed text is run through Flux's substitution and the kubelet's expansion:
// the consumer receives what was meant, and the server reports nothing more.
// The hover on a `$$` shows each layer's output.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CodeAction, Diagnostic, Hover, MarkupContent } from 'vscode-languageserver-protocol';
import { parseDocument } from 'yaml';
import { deliver, type Layers } from '../server/src/engine/flux/substitution/layers';
import { applyEdits, editsFor, fileUri, TestLspClient } from './helpers/lsp-client';
import { job, kustomization } from './helpers/flux-fixtures';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const RULES = new Set(['flux-substitution-pid', 'pod-kubelet-dollar', 'flux-substitution-needless-escape']);
const FLUX = { lookup: (name: string) => (name === 'CLUSTER' ? 'home' : undefined), strict: true };
const CONTAINER = { entries: [], visible: 0, open: false };

const script = (text: string) => `          command:\n            - /bin/sh\n            - -c\n            - |\n              ${text}\n`;

interface Subject {
  path: string;
  text: string;
  /** The script as the file holds it. */
  scriptOf: (text: string) => string;
  layers: Layers;
  meant: string;
  rules: string[];
}

const jobScript = (text: string) => (parseDocument(text).toJS() as { spec: { template: { spec: { containers: Array<{ command: string[] }> } } } }).spec.template.spec.containers[0].command[2];
const mapScript = (text: string) => (parseDocument(text).toJS() as { data: Record<string, string> }).data['run.sh'];

const SUBJECTS: Subject[] = [
  {
    // The damacus case: PL/pgSQL $$ quotes in a Job's command under postBuild.
    path: 'apps/job.yaml',
    text: job('skip', 'it only reads', script(`kill -0 $$ && echo \${CLUSTER} && psql -c "DO $$ BEGIN PERFORM 1; END $$;"`)),
    scriptOf: jobScript,
    layers: { flux: FLUX, kubelet: CONTAINER },
    meant: 'kill -0 $$ && echo home && psql -c "DO $$ BEGIN PERFORM 1; END $$;"\n',
    rules: ['flux-substitution-pid', 'flux-substitution-pid', 'flux-substitution-pid'],
  },
  {
    path: 'apps/script.yaml',
    text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    echo $$ > /run/app.pid\n',
    scriptOf: mapScript,
    layers: { flux: FLUX },
    meant: 'echo $$ > /run/app.pid\n',
    rules: ['flux-substitution-pid'],
  },
  {
    path: 'plain/job.yaml',
    text: job('pid', 'it only reads', script('echo $$ > /run/app.pid')),
    scriptOf: jobScript,
    layers: { kubelet: CONTAINER },
    meant: 'echo $$ > /run/app.pid\n',
    rules: ['pod-kubelet-dollar'],
  },
  {
    path: 'plain/script.yaml',
    text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  run.sh: |\n    for mod in a b; do echo "$${mod}"; done\n',
    scriptOf: mapScript,
    layers: {},
    meant: 'for mod in a b; do echo "${mod}"; done\n',
    rules: ['flux-substitution-needless-escape'],
  },
];

let root: string;
let client: TestLspClient;

before(async () => {
  const files: Record<string, string> = {
    '.flux-job-guard.yaml': 'flux:\n  roots: [flux]\nrules:\n  ttl-convergence-note: "off"\n',
    'flux/apps.yaml': kustomization('apps', './apps', '  postBuild:\n    substitute:\n      CLUSTER: home\n'),
    'flux/plain.yaml': kustomization('plain', './plain'),
  };
  for (const subject of SUBJECTS) files[subject.path] = subject.text;
  root = tempRepo('fjg-kubelet-', files);
  client = new TestLspClient();
  await client.initialize(root);
});

after(async () => {
  await client.shutdown();
  removeTempRepos();
});

const ours = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => RULES.has(String(d.code)));

describe('each fix, applied over the protocol, delivers what was meant through both layers', () => {
  for (const subject of SUBJECTS) {
    test(`${subject.path}: ${subject.rules.join(', ')}`, async () => {
      const uri = fileUri(join(root, subject.path));
      client.open(uri, subject.text);
      const diagnostics = ours(await client.waitForDiagnostics(uri, (d) => ours(d).length === subject.rules.length));
      assert.deepEqual(
        diagnostics.map((d) => d.code),
        subject.rules,
      );
      // Negative control: as written, the consumer does not receive what was meant.
      const asWritten = deliver(subject.scriptOf(subject.text), subject.layers);
      assert.ok(asWritten.ok && asWritten.output !== subject.meant);
      // One fix after another, each asked for on the diagnostics of the text as it now is.
      let text = subject.text;
      let current = diagnostics;
      for (let step = 0; current.length > 0; step++) {
        assert.ok(step < subject.rules.length, 'each fix removes its own finding');
        const diagnostic = current[0];
        const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
        const preferred = actions.filter((action) => action.isPreferred);
        assert.equal(preferred.length, 1, `one preferred fix for ${diagnostic.code}`);
        text = applyEdits(text, editsFor(preferred[0].edit!, uri));
        client.change(uri, text);
        const left = current.length - 1;
        current = ours(await client.waitForDiagnostics(uri, (d) => ours(d).length === left));
      }
      const delivered = deliver(subject.scriptOf(text), subject.layers);
      assert.ok(delivered.ok);
      assert.equal(delivered.output, subject.meant);
      client.close(uri);
    });
  }
});

test('the hover on a $$ in a Job under postBuild shows the line in the file, after Flux, after the kubelet', async () => {
  const subject = SUBJECTS[0];
  const uri = fileUri(join(root, subject.path));
  client.open(uri, subject.text);
  await client.waitForDiagnostics(uri, (d) => ours(d).length === subject.rules.length);
  const lines = subject.text.split('\n');
  const line = lines.findIndex((l) => l.includes('kill -0'));
  const hover = await client.connection.sendRequest<Hover>('textDocument/hover', { textDocument: { uri }, position: { line, character: lines[line].indexOf('$$') + 1 } });
  const markdown = (hover.contents as MarkupContent).value;
  assert.match(markdown, /in the file: +kill -0 \$\$ && echo \$\{CLUSTER\} && psql -c "DO \$\$ BEGIN PERFORM 1; END \$\$;"/);
  assert.match(markdown, /after Flux \(Kustomization "apps"\): +kill -0 \$ && echo home && psql -c "DO \$ BEGIN PERFORM 1; END \$;"/);
  assert.match(markdown, /after the kubelet \(what the process receives\): kill -0 \$ && echo home && psql -c "DO \$ BEGIN PERFORM 1; END \$;"/);
  // A ${NAME} in the same text: the variable's hover (with its link), then the layers.
  const at = (needle: string) => ({ textDocument: { uri }, position: { line, character: lines[line].indexOf(needle) + 2 } });
  const variable = ((await client.connection.sendRequest<Hover>('textDocument/hover', at('${CLUSTER}'))).contents as MarkupContent).value;
  assert.match(variable, /^\*\*\$\{CLUSTER\}\*\* = `home` — from substitute of Kustomization "apps" \(\[flux\/apps\.yaml:13\]\(file:/);
  assert.match(variable, /after the kubelet \(what the process receives\): kill -0 \$ && echo home/);
  assert.equal(await client.connection.sendRequest<Hover | null>('textDocument/hover', at('PERFORM')), null, 'plain text has no hover (negative control)');
  client.close(uri);
});
