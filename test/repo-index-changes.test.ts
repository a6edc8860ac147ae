// What RepoIndex.update says of an edit: true when it can alter other files' analyses (the editor
// then rebuilds the model), false when it cannot (a comment, a moved line). The index compares the
// facts and resource headers of two recordings of a file; a file recorded once (every file of an
// audit) is compared with nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RepoIndex } from '../server/src/engine/pipeline/repo-index';

const fluxKustomization = (path: string, comment = '') =>
  `${comment}apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
const deployment = (name: string, comment = '') => `${comment}apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n`;

test("a Kustomization's facts: new, the same, moved by a comment, changed, gone", () => {
  const index = new RepoIndex();
  const file = 'clusters/home/apps.yaml';
  assert.equal(index.update(file, fluxKustomization('./apps')), true, 'a new file');
  assert.equal(index.update(file, fluxKustomization('./apps')), false, 'the same text');
  assert.equal(index.update(file, fluxKustomization('./apps', '# moved down a line\n')), false, 'only positions moved');
  assert.equal(index.update(file, fluxKustomization('./other')), true, 'its path changed (control)');
  assert.equal(index.update(file, undefined), true, 'the file is gone');
});

test("a resource's headers (what kustomize builds of it): the same, moved by a comment, renamed", () => {
  const index = new RepoIndex();
  const file = 'apps/app.yaml';
  assert.equal(index.update(file, deployment('web')), true, 'a new file');
  assert.equal(index.update(file, deployment('web')), false, 'the same text');
  assert.equal(index.update(file, deployment('web', '# a note\n')), false, 'only positions moved');
  assert.equal(index.update(file, deployment('api')), true, 'renamed (control)');
  assert.equal(index.update(file, deployment('api')), false, 'the same again, after a change');
});

test("a resource's headers: each field kustomize reads counts, a span alone does not", () => {
  const header = (metadata: string, kind = 'Deployment') => `apiVersion: apps/v1\nkind: ${kind}\nmetadata:\n  name: web\n${metadata}`;
  const start = header('  namespace: apps\n  labels:\n    app: web\n  annotations:\n    note: a\n');
  const changes: Array<[string, string]> = [
    ['the namespace', header('  namespace: other\n  labels:\n    app: web\n  annotations:\n    note: a\n')],
    ['a label value', header('  namespace: apps\n  labels:\n    app: api\n  annotations:\n    note: a\n')],
    ['a label more', header('  namespace: apps\n  labels:\n    app: web\n    tier: x\n  annotations:\n    note: a\n')],
    ['no labels map', header('  namespace: apps\n  annotations:\n    note: a\n')],
    ['an annotation', header('  namespace: apps\n  labels:\n    app: web\n  annotations:\n    note: b\n')],
    ['the kind', header('  namespace: apps\n  labels:\n    app: web\n  annotations:\n    note: a\n', 'StatefulSet')],
    ['a document more', `${start}---\n${deployment('api')}`],
  ];
  for (const [what, changed] of changes) {
    const index = new RepoIndex();
    const file = 'apps/app.yaml';
    index.update(file, start);
    assert.equal(index.update(file, `# moved\n${start}`), false, `${what}: only positions moved`);
    assert.equal(index.update(file, changed), true, `${what}: changed`);
  }
  // A document kustomize refuses, for another reason (a duplicate key, then a tab).
  const index = new RepoIndex();
  index.update('apps/bad.yaml', `${start}key: a\nkey: b\n`);
  assert.equal(index.update('apps/bad.yaml', `${start}\tbad: x\n`), true, 'another YAML error');
});
