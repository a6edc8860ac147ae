// The kustomize model, form by form, on the folders of test/fixtures/kustomize/
// (kustomize's own output for each is test/fixtures/kustomize/oracle.jsonl,
// made with kubectl; kustomize-oracle.test.ts holds the model to it). Each
// case names what kustomize outputs, and its negative control: a resource of
// the same folder the form does not reach, the form taken away (patches
// ignored, the offending entry removed), or the base built alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BuildOutcome, KustomizeBuilder, SUBSTITUTE_OPT_OUT } from '../server/src/engine/kustomize/build';
import { optOutOf, reachedFiles } from '../server/src/engine/kustomize/document-query';
import type { KustomizeFiles } from '../server/src/engine/kustomize/files';
import { generatedNameHash } from '../server/src/engine/kustomize/hash';
import { fromYaml, KNode } from '../server/src/engine/kustomize/knode';
import { readSimpleYaml } from '../server/src/engine/kustomize/simple-yaml';
import { parseDocument } from 'yaml';
import { ROOT } from './ecosystem/corpus';
import { diskFiles } from './helpers/kustomize-oracle';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'kustomize');
const disk = diskFiles(FIXTURES);

/** The fixtures with some files' text replaced (a negative control's edit). */
function edited(changes: Record<string, (text: string) => string>): KustomizeFiles {
  return { ...disk, read: (path) => (path in changes ? changes[path](disk.read(path) ?? '') : disk.read(path)) };
}

/** `Kind namespace/name` → [annotation, label] of the substitution opt-out, for every resource a folder builds. */
function optOuts(outcome: BuildOutcome): Record<string, [string | null, string | null]> {
  assert.equal(outcome.status, 'ok', JSON.stringify(outcome));
  if (outcome.status !== 'ok') return {};
  return Object.fromEntries(
    outcome.resources.map((res) => [`${res.kind} ${res.namespace ?? ''}/${res.name}`, [res.annotations.get(SUBSTITUTE_OPT_OUT) ?? null, res.labels.get(SUBSTITUTE_OPT_OUT) ?? null]]),
  );
}

const OFF: [string, null] = ['disabled', null];
const LABEL_OFF: [null, string] = [null, 'disabled'];
const ON: [null, null] = [null, null];

interface OptOutCase {
  form: string;
  dir: string;
  expect: Record<string, [string | null, string | null]>;
  /** The control: what the same folder outputs once the form is taken away. */
  control: { files?: KustomizeFiles; dir?: string; ignorePatches?: boolean; expect: Record<string, [string | null, string | null]> };
}

/** A form written as a patch: its negative control is the same folder with patches ignored, where nothing is opted out. */
function patchCase(form: string, dir: string, expect: OptOutCase['expect']): OptOutCase {
  return { form, dir, expect, control: { ignorePatches: true, expect: Object.fromEntries(Object.keys(expect).map((key) => [key, ON])) } };
}

const CASES: OptOutCase[] = [
  patchCase('JSON 6902 add annotation, target by kind and name (a generated ConfigMap, matched by its name before the hash)', 'json6902-kind-name', {
    'ConfigMap tools/scripts-4k589d7c5m': OFF,
    'ConfigMap tools/dashboards-7kmt5dgbgk': ON,
  }),
  patchCase('JSON 6902 add the annotations map, target by labelSelector', 'json6902-label-selector', { 'Job /backup': OFF, 'Job /restore': ON }),
  patchCase('JSON 6902 (JSON text), target by annotationSelector with `in`', 'json6902-annotation-selector', { 'ConfigMap /shell': OFF, 'ConfigMap /python': ON }),
  patchCase('strategic-merge patch file, matched by its own id', 'smp-patch-file', { 'CronJob /backup': OFF, 'CronJob /cleanup': ON }),
  patchCase('inline strategic-merge patch with a target (a name regex), adding the label', 'smp-inline-target', {
    'ConfigMap /script-backup': LABEL_OFF,
    'ConfigMap /script-restore': LABEL_OFF,
    'ConfigMap /settings': ON,
  }),
  patchCase('patchesStrategicMerge: a file and an inline patch', 'patches-strategic-merge', { 'ConfigMap /first': OFF, 'ConfigMap /second': OFF, 'ConfigMap /third': ON }),
  {
    form: 'commonAnnotations of a base reach its resources only',
    dir: 'common-annotations',
    expect: { 'ConfigMap /scripts': OFF, 'ConfigMap /app': ON },
    control: { files: edited({ 'common-annotations/base/kustomization.yaml': (text) => text.replace(/commonAnnotations:\n.*\n/, '') }), expect: { 'ConfigMap /scripts': ON, 'ConfigMap /app': ON } },
  },
  {
    form: 'labels (pairs) of a base',
    dir: 'labels',
    expect: { 'ConfigMap /scripts': LABEL_OFF, 'ConfigMap /app': ON },
    control: { files: edited({ 'labels/opted/kustomization.yaml': (text) => text.replace(/labels:\n.*\n.*\n/, '') }), expect: { 'ConfigMap /scripts': ON, 'ConfigMap /app': ON } },
  },
  {
    form: 'commonLabels of a base',
    dir: 'common-labels',
    expect: { 'ConfigMap /scripts': LABEL_OFF, 'ConfigMap /app': ON },
    control: { files: edited({ 'common-labels/opted/kustomization.yaml': (text) => text.replace(/commonLabels:\n.*\n/, '') }), expect: { 'ConfigMap /scripts': ON, 'ConfigMap /app': ON } },
  },
  patchCase("a component's patch (target by label) adds the annotation", 'component-patch', { 'ConfigMap /scripts': OFF, 'ConfigMap /settings': ON }),
  {
    form: "a component's commonAnnotations reach everything accumulated before it, a sub-folder's build included",
    dir: 'component-annotations',
    expect: { 'ConfigMap /app': OFF, 'ConfigMap /sub': OFF, 'ConfigMap /extra': OFF },
    control: { dir: 'component-annotations/sub', expect: { 'ConfigMap /sub': ON } },
  },
  {
    form: "generator options over generatorOptions: the generator's own key wins, the others are inherited",
    dir: 'generator-options',
    expect: { 'ConfigMap /inherits-cgf7c7h9bf': OFF, 'ConfigMap /own-enabled-7t7mcdb85c': ['enabled', null], 'ConfigMap /own-label': ['disabled', 'disabled'] },
    control: {
      files: edited({ 'generator-options/kustomization.yaml': (text) => text.replace(/generatorOptions:\n.*\n.*\n/, '') }),
      expect: { 'ConfigMap /inherits-cgf7c7h9bf': ON, 'ConfigMap /own-enabled-7t7mcdb85c': ['enabled', null], 'ConfigMap /own-label': LABEL_OFF },
    },
  },
  {
    form: "behavior merge keeps the base's annotation and name (prefix included); the hash covers the merged data, and stays only if both wanted it",
    dir: 'behavior-merge',
    expect: { 'ConfigMap /base-settings-7gdc49gk6d': OFF, 'ConfigMap /base-plain': ON },
    control: { dir: 'behavior-merge/base', expect: { 'ConfigMap /base-settings-h29d89cmmt': OFF, 'ConfigMap /base-plain': ON } },
  },
  {
    form: 'namePrefix, nameSuffix and namespace: a Namespace takes the namespace as its name, CRDs and Namespaces keep theirs, cluster-scoped kinds get no namespace, unknown kinds do',
    dir: 'prefix-namespace',
    expect: {
      'Namespace /apps': ON,
      'CustomResourceDefinition /widgets.example.com': ON,
      'ClusterRole /team-reader-v1': ON,
      'ClusterIssuer apps/team-letsencrypt-v1': ON,
      'ConfigMap apps/team-app-v1': ON,
      'ConfigMap apps/team-settings-v1-mgc92dd9c6': ON,
    },
    control: {
      files: edited({ 'prefix-namespace/kustomization.yaml': (text) => text.replace(/namePrefix: .*\nnameSuffix: .*\nnamespace: .*\n/, '') }),
      expect: {
        'Namespace /placeholder': ON,
        'CustomResourceDefinition /widgets.example.com': ON,
        'ClusterRole /reader': ON,
        'ClusterIssuer /letsencrypt': ON,
        'ConfigMap elsewhere/app': ON,
        'ConfigMap /settings-mgc92dd9c6': ON, // the hash covers the data, not the name
      },
    },
  },
  {
    form: "replacements: a Namespace's name into a resource's metadata.name",
    dir: 'replacement-name',
    expect: { 'Namespace /media': ON, 'GrafanaFolder /media': ON },
    control: {
      files: edited({ 'replacement-name/kustomization.yaml': (text) => text.replace(/replacements:[\s\S]*/, '') }),
      expect: { 'Namespace /media': ON, 'GrafanaFolder /namespace-placeholder': ON },
    },
  },
  patchCase('a JSON 6902 target that matches nothing is no error', 'patch-selector-no-match', { 'ConfigMap /app': ON }),
  {
    form: 'local-config resources stay out of the output',
    dir: 'local-config',
    expect: { 'ConfigMap /kept': ON },
    control: {
      files: edited({ 'local-config/resources.yaml': (text) => text.replace('config.kubernetes.io/local-config', 'example.com/other') }),
      expect: { 'ConfigMap /kept': ON, 'ConfigMap /dropped': ON },
    },
  },
];

describe('what kustomize builds, form by form', () => {
  for (const { form, dir, expect, control } of CASES) {
    test(form, () => {
      assert.deepEqual(optOuts(new KustomizeBuilder(disk).build(dir)), expect);
      assert.deepEqual(optOuts(new KustomizeBuilder(control.files ?? disk, { ignorePatches: control.ignorePatches }).build(control.dir ?? dir)), control.expect, 'negative control');
    });
  }
});

interface FailureCase {
  form: string;
  dir: string;
  reason: string;
  file: string;
  /** The text at the failure's span. */
  at: string;
  /** The same folder with the offending text removed builds. */
  fix: [string, string];
}

const FAILURES: FailureCase[] = [
  { form: 'the same id twice in one build', dir: 'duplicate-id', reason: 'duplicate-id', file: 'duplicate-id/kustomization.yaml', at: 'b.yaml', fix: ['  - b.yaml\n', ''] },
  { form: 'the same id from two folders it builds', dir: 'duplicate-id-nested', reason: 'duplicate-id', file: 'duplicate-id-nested/kustomization.yaml', at: 'two', fix: ['  - two\n', ''] },
  {
    form: "a component's resource with the id a generator made before it",
    dir: 'duplicate-id-after-generator',
    reason: 'duplicate-id',
    file: 'duplicate-id-after-generator/comp/kustomization.yaml',
    at: 'gen.yaml',
    fix: ['name: gen', 'name: other'],
  },
  {
    form: 'a resources entry that does not exist',
    dir: 'missing-resource',
    reason: 'missing-resource',
    file: 'missing-resource/kustomization.yaml',
    at: 'missing.yaml',
    fix: ['  - missing.yaml\n', ''],
  },
  {
    form: 'a component that does not exist',
    dir: 'missing-component',
    reason: 'missing-component',
    file: 'missing-component/kustomization.yaml',
    at: '../components/nowhere',
    fix: ['components:\n  - ../components/nowhere\n', ''],
  },
  {
    form: 'a Component folder under resources',
    dir: 'component-in-resources',
    reason: 'component-as-resource',
    file: 'component-in-resources/kustomization.yaml',
    at: '../components/annotate',
    fix: ['  - ../components/annotate\n', ''],
  },
  {
    form: 'a Kustomization folder under components',
    dir: 'kustomization-as-component',
    reason: 'kustomization-as-component',
    file: 'kustomization-as-component/kustomization.yaml',
    at: '../common-annotations/base',
    fix: ['components:\n  - ../common-annotations/base\n', ''],
  },
  {
    form: 'a strategic-merge patch whose own id matches nothing',
    dir: 'patch-no-target',
    reason: 'patch-target-missing',
    file: 'patch-no-target/kustomization.yaml',
    at: 'patch: |-',
    fix: ['name: absent', 'name: app'],
  },
  {
    form: 'a JSON 6902 remove of a path that is not there',
    dir: 'json6902-remove-missing',
    reason: 'patch-failed',
    file: 'json6902-remove-missing/kustomization.yaml',
    at: 'target:',
    fix: ['/metadata/labels/team', '/metadata/name'],
  },
];

describe('where kustomize fails', () => {
  for (const { form, dir, reason, file, at, fix } of FAILURES) {
    test(form, () => {
      const outcome = new KustomizeBuilder(disk).build(dir);
      assert.equal(outcome.status, 'failed');
      if (outcome.status !== 'failed') return;
      assert.equal(outcome.failure.reason, reason, outcome.failure.message);
      assert.equal(outcome.failure.file, file);
      const span = outcome.failure.span;
      assert.ok(span, 'the failure has a span');
      const text = readFileSync(join(FIXTURES, file), 'utf8');
      assert.ok(text.slice(...span).startsWith(at), `the span covers ${JSON.stringify(at)}: ${JSON.stringify(text.slice(...span))}`);
      // negative control: without the offending entry the folder builds
      const fixed = new KustomizeBuilder(edited({ [`${dir}/kustomization.yaml`]: (original) => original.replace(fix[0], fix[1]) })).build(dir);
      assert.equal(fixed.status, 'ok', JSON.stringify(fixed));
    });
  }
});

describe('the cheap questions', () => {
  test('a document is answered by its chain of transformations, without building the folder', () => {
    const builder = new KustomizeBuilder(disk);
    const [backup, cleanup] = builder.resourceDocs('smp-patch-file/cronjobs.yaml');
    assert.deepEqual(optOutOf(builder, 'smp-patch-file', { kind: 'document', file: 'smp-patch-file/cronjobs.yaml', doc: backup }), {
      status: 'built',
      how: 'chain',
      results: [{ annotation: 'disabled', label: null, disabled: true }],
    });
    assert.deepEqual(optOutOf(builder, 'smp-patch-file', { kind: 'document', file: 'smp-patch-file/cronjobs.yaml', doc: cleanup }), {
      status: 'built',
      how: 'chain',
      results: [{ annotation: null, label: null, disabled: false }],
    });
  });

  test('a generated object is answered by its generator item', () => {
    const builder = new KustomizeBuilder(disk);
    const k = builder.kustomization('json6902-kind-name', { file: '', span: null });
    const [scripts, dashboards] = k.generators;
    assert.equal(optOutOf(builder, 'json6902-kind-name', { kind: 'generator', file: k.file, span: scripts.span }).status, 'built');
    assert.deepEqual(optOutOf(builder, 'json6902-kind-name', { kind: 'generator', file: k.file, span: scripts.span }), {
      status: 'built',
      how: 'chain',
      results: [{ annotation: 'disabled', label: null, disabled: true }],
    });
    assert.deepEqual(optOutOf(builder, 'json6902-kind-name', { kind: 'generator', file: k.file, span: dashboards.span }), {
      status: 'built',
      how: 'chain',
      results: [{ annotation: null, label: null, disabled: false }],
    });
  });

  test('a replacement needs the whole folder, and a failing folder says why', () => {
    const builder = new KustomizeBuilder(disk);
    const [, folder] = builder.resourceDocs('replacement-name/resources.yaml');
    assert.equal((optOutOf(builder, 'replacement-name', { kind: 'document', file: 'replacement-name/resources.yaml', doc: folder }) as { how: string }).how, 'build');
    const [app] = builder.resourceDocs('duplicate-id/a.yaml');
    assert.equal(optOutOf(builder, 'duplicate-id', { kind: 'document', file: 'duplicate-id/a.yaml', doc: app }).status, 'built', 'the chain answers for the document');
    assert.equal(builder.build('duplicate-id').status, 'failed', 'the build says the folder fails');
  });

  test('the files a folder builds: what its kustomization lists, nothing else in the folder', () => {
    const builder = new KustomizeBuilder(disk);
    assert.deepEqual([...(reachedFiles(builder, 'common-annotations') ?? [])].sort(), ['common-annotations/app.yaml', 'common-annotations/base/scripts.yaml']);
    assert.deepEqual([...(reachedFiles(builder, 'common-annotations/base') ?? [])], ['common-annotations/base/scripts.yaml'], 'negative control: the base alone');
  });
});

describe('name hashes and the fast YAML reader', () => {
  test("a generated object's hash is kustomize's (values from kubectl)", () => {
    assert.equal(generatedNameHash('ConfigMap', { data: new Map([['a', 'b']]) }), '4h2mbtbbt6');
    assert.equal(generatedNameHash('ConfigMap', { data: null }), '6ct58987ht');
    assert.equal(generatedNameHash('Secret', { data: new Map([['a', 'Yg==']]), type: 'Opaque' }), 'k695gkmbtk');
    assert.equal(
      generatedNameHash('ConfigMap', {
        data: new Map([
          ['b c', '1'],
          ['é', '2'],
        ]),
      }),
      'hhcmc69c92',
    );
    assert.notEqual(generatedNameHash('ConfigMap', { data: new Map([['a', 'c']]) }), '4h2mbtbbt6', 'negative control: other data, other hash');
  });

  const SNIPPETS = [
    'a: b\nc:\n  - d\n  - e: f\n    g: "h\\"i"\n',
    "key: 'it''s'\nlist:\n- x\n- y # comment\n",
    'patch: |-\n  - op: add\n    path: /x\n\n  # kept\nnext: 1\n',
    'keep: |+\n  text\n\n\nother: ~\n',
    'clip: |\n  a\n   b\n\n',
    'url: http://example.com/a#b\nempty:\nnull: null\n',
    'nested:\n  deeper:\n    deepest: [not, simple]\n',
    'multi: one\n  two\n',
    'anchor: &a x\nalias: *a\n',
    'dup: 1\ndup: 2\n',
    '- a\n- b:\n    c: d\n',
    'metadata:\n  name: &app plex # named once\n  labels:\n    - &q "quoted"\n',
    'args: []\nenv: {} # none\nlist:\n  - []\n  - {}\n',
    'description: A route\n  rule, *all* traffic\n\n  - which matches   \n\n\n  [it] "MUST" #1\nnext: value\n',
    'items:\n- one\n  two\n- key: three\n   four\n  other: five\n',
    'crlf: a\r\n  b\r\nz: 1\r\n',
    'verbs: ["get", "list", watch]\nargs: [ --debug , -v, "--x=1", \'q\'] # flags\nitems:\n  - [a, b]\n  - apiGroups: [""]\n',
    'labels: {app: web, "tier": \'db\' } # x\nselector: { a: b ,c: d }\n',
  ];

  /** A tree with the ends of its collections left out (the yaml package counts a collection's last line break in, the fast reader does not). */
  const comparable = (node: KNode | null): unknown => {
    if (node === null) return null;
    if (node.kind === 'scalar') return node;
    if (node.kind === 'seq') return { kind: 'seq', start: node.span[0], items: node.items.map(comparable) };
    return { kind: 'map', start: node.span[0], entries: node.entries.map((entry) => ({ key: entry.key, keyNode: entry.keyNode, value: comparable(entry.value) })) };
  };

  test('the fast reader reads what it accepts exactly as the yaml package does, and gives up on the rest', () => {
    let accepted = 0;
    for (const text of SNIPPETS) {
      const fast = readSimpleYaml(text);
      if (fast === undefined) continue;
      accepted++;
      const doc = parseDocument(text);
      assert.deepEqual(comparable(fast), comparable(doc.contents === null ? null : fromYaml(doc, doc.contents, 0)), text);
    }
    assert.ok(accepted >= 14, 'the common forms are read fast');
    for (const text of [
      'nested:\n  deeper:\n    deepest: [not, {simple: at all}]\n',
      'anchor: &a x\nalias: *a\n',
      'dup: 1\ndup: 2\n',
      'anchored: &a\n  b: c\n',
      'literal: &a |\n  x\n',
      'tab: &a\tx\n',
      'flow: []x\n',
      'flow: [] more\n',
      'flow: []# no space\n',
      'quoted: "q"# no space\n',
      'flow: []\n  continued\n',
      'commented: a # note\n  b\n',
      'comment: a\n  # inside\n  b\n',
      'mapping: a\n  b: c\n',
      'hash: a\n  b #c\n',
      'anchored: &x a\n  b\n',
      'flow: [a: b]\n',
      'flow: [a,]\n',
      'flow: [ ]\n',
      'flow: [a, [b]]\n',
      'flow: [a b]\n',
      'flow: [-]\n',
      'flow: [a,\n  b]\n',
      'flow: [a]x\n',
      'flow: [a #\n',
      'flow: [a, "b" c]\n',
      'map: {a: b, a: c}\n',
      'map: {a:b}\n',
      'map: {a: b,}\n',
      'map: {a: {b: c}}\n',
      'map: {a}\n',
      'map: {a: b\n',
    ])
      assert.equal(readSimpleYaml(text), undefined, `gives up on ${JSON.stringify(text)}`);
  });
});
