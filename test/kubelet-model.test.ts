// The layers model: the kubelet's expansion (a port of Kubernetes'
// third_party/forked/golang/expansion, checked with the cases of its own
// expand_test.go), which text of a document the kubelet expands (every
// container list, app-template values, JSON 6902 patches; never a ConfigMap),
// and deliver(): Flux, then the kubelet, as the consumer receives it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { kubeletExpand, kubeletExpandTraced } from '../server/src/engine/k8s/kubelet-expansion';
import { ContainerVariables, jsonPatchTarget } from '../server/src/engine/k8s/container-env';
import { deliver, deliverTraced, dollarsReaching, dollarsToWrite } from '../server/src/engine/flux/substitution/layers';
import { documentOccurrences, forEachStringScalar } from '../server/src/engine/flux/substitution/scalars';
import { parseYamlFile } from '../server/src/engine/yaml/documents';
import { yaml } from './helpers/memory-fs';

/** MappingFuncFor(context...): the first context that has the name wins; otherwise the reference stays. */
const mappingFor =
  (...contexts: Array<Record<string, string>>) =>
  (name: string): string | undefined => {
    for (const context of contexts) if (Object.prototype.hasOwnProperty.call(context, name)) return context[name];
    return undefined;
  };

describe('the kubelet expansion (expand_test.go)', () => {
  // doExpansionTest, case for case.
  const cases: Array<[string, string, string]> = [
    ['whole string', '$(VAR_A)', 'A'],
    ['repeat', '$(VAR_A)-$(VAR_A)', 'A-A'],
    ['beginning', '$(VAR_A)-1', 'A-1'],
    ['middle', '___$(VAR_B)___', '___B___'],
    ['end', '___$(VAR_C)', '___C'],
    ['compound', '$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
    ['escape & expand', '$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
    ['compound escape', '$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
    ['mixed in escapes', 'f000-$$VAR_A', 'f000-$VAR_A'],
    ['backslash escape ignored', 'foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['backslash escape ignored', 'foo\\\\$(VAR_C)bar', 'foo\\\\Cbar'],
    ['lots of backslashes', 'foo\\\\\\\\$(VAR_A)bar', 'foo\\\\\\\\Abar'],
    ['nested var references', '$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
    ['nested var references second type', '$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['value is a reference', '$(VAR_REF)', '$(VAR_A)'],
    ['value is a reference x 2', '%%$(VAR_REF)--$(VAR_REF)%%', '%%$(VAR_A)--$(VAR_A)%%'],
    ['empty var', 'foo$(VAR_EMPTY)bar', 'foobar'],
    ['unterminated expression', 'foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
    ['expression without operator', 'f00__(VAR_A)__', 'f00__(VAR_A)__'],
    ['shell special vars pass through', '$?_boo_$!', '$?_boo_$!'],
    ['bare operators are ignored', '$VAR_A', '$VAR_A'],
    ['undefined vars are passed through', '$(VAR_DNE)', '$(VAR_DNE)'],
    ['multiple (even) operators, var undefined', '$$$$$$(BIG_MONEY)', '$$$(BIG_MONEY)'],
    ['multiple (even) operators, var defined', '$$$$$$(VAR_A)', '$$$(VAR_A)'],
    ['multiple (odd) operators, var undefined', '$$$$$$$(GOOD_ODDS)', '$$$$(GOOD_ODDS)'],
    ['multiple (odd) operators, var defined', '$$$$$$$(VAR_A)', '$$$A'],
    ['missing open expression', '$VAR_A)', '$VAR_A)'],
    ['shell syntax ignored', '${VAR_A}', '${VAR_A}'],
    ['trailing incomplete expression not consumed', '$(VAR_B)_______$(A', 'B_______$(A'],
    ['trailing incomplete expression, no content, is not consumed', '$(VAR_C)_______$(', 'C_______$('],
    ['operator at end of input string is preserved', '$(VAR_A)foobarzab$', 'Afoobarzab$'],
    ['shell escaped incomplete expr', 'foo-\\$(VAR_A', 'foo-\\$(VAR_A'],
    ['lots of $( in middle', '--$($($($($--', '--$($($($($--'],
    ['lots of $( in beginning', '$($($($($--foo$(', '$($($($($--foo$('],
    ['lots of $( at end', 'foo0--$($($($(', 'foo0--$($($($('],
    ['escaped operators in variable names are not escaped', '$(foo$$var)', '$(foo$$var)'],
    ['newline not expanded', '\n', '\n'],
  ];
  // TestMapping (one context) and TestMappingDual (two): the same cases.
  const single = mappingFor({ VAR_A: 'A', VAR_B: 'B', VAR_C: 'C', VAR_REF: '$(VAR_A)', VAR_EMPTY: '' });
  const dual = mappingFor({ VAR_A: 'A', VAR_EMPTY: '' }, { VAR_B: 'B', VAR_C: 'C', VAR_REF: '$(VAR_A)' });
  for (const [name, input, expected] of cases) {
    test(`${name}: ${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(kubeletExpand(input, single), expected);
      assert.equal(kubeletExpand(input, dual), expected);
      // The traced expansion writes the same text.
      assert.equal(kubeletExpandTraced({ text: input, origin: [...input].map((_, i) => i) }, single).text, expected);
    });
  }

  test('TestMapReference: each env value sees the variables defined before it', () => {
    const declared: Record<string, string> = { FOO: 'bar', ZOO: '$(FOO)-1', BLU: '$(ZOO)-2' };
    const lookup = mappingFor(declared, {});
    for (const [name, value] of [
      ['FOO', 'bar'],
      ['ZOO', '$(FOO)-1'],
      ['BLU', '$(ZOO)-2'],
    ]) {
      declared[name] = kubeletExpand(value, lookup);
    }
    assert.deepEqual(declared, { FOO: 'bar', ZOO: 'bar-1', BLU: 'bar-1-2' });
  });

  test('a rune after a lone $ is copied whole (utf8.DecodeRuneInString), and traced to where it came from', () => {
    assert.equal(
      kubeletExpand('$😀$$', () => undefined),
      '$😀$',
    );
    const traced = kubeletExpandTraced({ text: 'a$$b$(X)c', origin: [0, 1, 2, 3, 4, 5, 6, 7, 8] }, mappingFor({ X: 'xy' }));
    assert.deepEqual(traced, { text: 'a$bxyc', origin: [0, 2, 3, -1, -1, 8] });
  });
});

const container = (env: Record<string, string | null> = {}, open = false): ContainerVariables => {
  const entries = Object.entries(env).map(([name, value]) => ({ name, value }));
  return { entries, visible: entries.length, open };
};

describe('deliver: the file, after Flux, after the kubelet', () => {
  const flux = { lookup: mappingFor({ CLUSTER: 'home' }), strict: true };
  test('each layer turns $$ into $: 8 under both, 4 under either, 2 under neither', () => {
    const pid = (written: string) => `echo ${written} > /run/app.pid`;
    assert.deepEqual(deliver(pid('$$$$$$$$'), { flux, kubelet: container() }), { ok: true, file: pid('$$$$$$$$'), afterFlux: pid('$$$$'), output: pid('$$') });
    assert.equal((deliver(pid('$$$$'), { flux }) as { output: string }).output, pid('$$'));
    assert.equal((deliver(pid('$$$$'), { kubelet: container() }) as { output: string }).output, pid('$$'));
    assert.equal((deliver(pid('$$'), {}) as { output: string }).output, pid('$$'));
    // The negative control: one layer fewer in the spelling, one $ short.
    assert.equal((deliver(pid('$$$$'), { flux, kubelet: container() }) as { output: string }).output, pid('$'));
  });

  test('${x} for the shell: $${x} under Flux (the kubelet leaves ${ alone); Flux variables are substituted, the container variables replaced', () => {
    assert.deepEqual(deliver('echo $${x} ${CLUSTER} $(POD) $$(date)', { flux, kubelet: container({ POD: 'web-0' }) }), {
      ok: true,
      file: 'echo $${x} ${CLUSTER} $(POD) $$(date)',
      afterFlux: 'echo ${x} home $(POD) $(date)',
      output: 'echo ${x} home web-0 $(date)',
    });
    // A variable set at run time (valueFrom) is shown by name.
    assert.equal((deliver('$(POD)', { kubelet: container({ POD: null }) }) as { output: string }).output, '‹POD›');
    assert.deepEqual(deliver('echo ${NOPE}', { flux }), { ok: false, file: 'echo ${NOPE}', error: 'variable not set (strict mode): "NOPE"' });
  });

  test('the traced delivery counts the $ that reach the consumer, never pairing across a ${…}', () => {
    const layers = { flux: {}, kubelet: container() };
    assert.equal(dollarsReaching(deliverTraced('a $$$$$$ b', layers), 2, 8), 2);
    assert.equal(dollarsReaching(deliverTraced('a $$ b', layers), 2, 4), 1);
    // `$$${X}`: Flux writes `$` then the value; the kubelet has no `$$` to pair.
    assert.equal(dollarsReaching(deliverTraced('$$${X}', layers), 0, 2), 1);
    // Inside a $(…) the kubelet does not know, it reduces nothing.
    assert.equal(dollarsReaching(deliverTraced('$(echo $$)', { kubelet: container() }), 7, 9), 2);
  });

  test('dollarsToWrite: the spelling doubles per layer that reduces the run', () => {
    const text = 'kill $$;';
    assert.equal(dollarsToWrite(text, 5, 7, 2, { flux: {}, kubelet: container() }), 8);
    assert.equal(dollarsToWrite(text, 5, 7, 2, { flux: {} }), 4);
    assert.equal(dollarsToWrite(text, 5, 7, 2, { kubelet: container() }), 4);
    assert.equal(dollarsToWrite(text, 5, 7, 2, {}), 2);
    assert.equal(dollarsToWrite('$(echo $$)', 7, 9, 2, { kubelet: container() }), 2, 'the kubelet leaves the inside of an unknown $(…) as it is');
  });
});

/**
 * For each string scalar of the text that starts with T: its value and the variable names the
 * kubelet gives it, `…` last when the set is open (null: the kubelet does not expand it).
 */
function kubeletTexts(text: string): Array<[string, string[] | null]> {
  const out: Array<[string, string[] | null]> = [];
  for (const parsed of parseYamlFile(text)) {
    forEachStringScalar(parsed, (value, _start, _end, _shell, _node, kubelet) => {
      if (!value.startsWith('T')) return;
      const names = kubelet ? [...kubelet.entries.slice(0, kubelet.visible).map((e) => e.name), ...(kubelet.open ? ['…'] : [])] : null;
      out.push([value, names]);
    });
  }
  return out;
}

describe('which text the kubelet expands', () => {
  test('command, args and env values of containers, init containers and ephemeral containers, in every workload kind', () => {
    const spec = (indent: string) =>
      [
        'containers:',
        '  - name: main',
        '    command: [T-command]',
        '    args: [T-args]',
        '    env:',
        '      - {name: A, value: T-env-a}',
        '      - {name: B, value: T-env-b}',
        '    image: T-image',
        'initContainers:',
        '  - name: init',
        '    args: [T-init]',
        'ephemeralContainers:',
        '  - name: debug',
        '    command: [T-debug]',
      ]
        .map((line) => indent + line)
        .join('\n');
    const expected: Array<[string, string[] | null]> = [
      ['T-command', ['A', 'B']],
      ['T-args', ['A', 'B']],
      ['T-env-a', []],
      ['T-env-b', ['A']],
      ['T-image', null],
      ['T-init', []],
      ['T-debug', []],
    ];
    const workloads: Record<string, string> = {
      Pod: `kind: Pod\nspec:\n${spec('  ')}\n`,
      Deployment: `kind: Deployment\nspec:\n  template:\n    spec:\n${spec('      ')}\n`,
      CronJob: `kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n${spec('          ')}\n`,
      'a custom resource with a pod template': `kind: Runner\nspec:\n  deep:\n    podTemplate:\n      spec:\n${spec('        ')}\n`,
      'a HelmRelease value rendered as containers': `kind: HelmRelease\nspec:\n  values:\n    sidecar:\n${spec('      ')}\n`,
    };
    for (const [kind, text] of Object.entries(workloads)) assert.deepEqual(kubeletTexts(text), expected, kind);
  });

  test('a ConfigMap, a Secret and text outside containers are not expanded; envFrom opens the set of names', () => {
    assert.deepEqual(kubeletTexts('kind: ConfigMap\ndata:\n  run.sh: T-script\n  command: T-not\n'), [
      ['T-script', null],
      ['T-not', null],
    ]);
    assert.deepEqual(kubeletTexts('kind: Secret\nstringData:\n  args: T-secret\n'), [['T-secret', null]]);
    const withEnvFrom = 'kind: Pod\nspec:\n  containers:\n    - name: a\n      envFrom: [{configMapRef: {name: c}}]\n      env: [{name: A, value: x}]\n      args: [T-args]\n';
    assert.deepEqual(kubeletTexts(withEnvFrom), [['T-args', ['A', '…']]]);
  });

  test("app-template values: controllers.<c>.containers|initContainers.<n>, command as a string or a list, env as a map (Helm's sorted order) or a list", () => {
    const values = yaml`
      kind: HelmRelease
      spec:
        values:
          controllers:
            main:
              initContainers:
                init:
                  command: T-init
              containers:
                app:
                  command: [sh, -c, T-script]
                  env:
                    ZED: T-zed
                    ALPHA:
                      value: T-alpha
                    FROM_SECRET:
                      valueFrom: {secretKeyRef: {name: s, key: k}}
                  args: [T-args]
          persistence:
            containers:
              app:
                command: T-not-a-controller
    `;
    assert.deepEqual(kubeletTexts(values), [
      ['T-init', []],
      ['T-script', ['ALPHA', 'FROM_SECRET', 'ZED']],
      ['T-zed', ['ALPHA', 'FROM_SECRET']],
      ['T-alpha', []],
      ['T-args', ['ALPHA', 'FROM_SECRET', 'ZED']],
      ['T-not-a-controller', null],
    ]);
  });

  test('a strategic-merge patch is a container like any; a JSON 6902 operation by its path', () => {
    assert.deepEqual(kubeletTexts('kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          args: [T-patched]\n'), [['T-patched', []]]);
    const operations = yaml`
      - op: replace
        path: /spec/template/spec/containers/0/args
        value: [T-args]
      - op: add
        path: /spec/template/spec/initContainers/-
        value: {name: i, command: [T-init]}
      - op: add
        path: /spec/template/spec/containers/0/env/-
        value: {name: X, value: T-env}
      - op: replace
        path: /spec/template/spec/containers/1/command/2
        value: T-word
      - op: replace
        path: /spec/template/metadata/labels/app
        value: T-label
    `;
    // An operation does not show the rest of the container: its names are open.
    assert.deepEqual(kubeletTexts(operations), [
      ['T-args', ['…']],
      ['T-init', ['…']],
      ['T-env', ['…']],
      ['T-word', ['…']],
      ['T-label', null],
    ]);
    assert.equal(jsonPatchTarget('/spec/template/spec/containers/0/env/3/value'), 'env-value');
    assert.equal(jsonPatchTarget('/spec/template/spec/containers'), 'containers');
    assert.equal(jsonPatchTarget('/spec/template/spec/volumes/0'), null);
  });

  test('every occurrence carries the variables its text sees', () => {
    const [parsed] = parseYamlFile('kind: Pod\nspec:\n  containers:\n    - name: a\n      env: [{name: A, value: "$$x"}]\n      args: ["echo $$ $(A)"]\n  volumes: [{name: "$$v"}]\n');
    const seen = documentOccurrences(parsed).map((o) => [o.occurrence.kind, o.kubelet === null ? null : o.kubelet.visible]);
    assert.deepEqual(seen, [
      ['escape', 0],
      ['escape', 1],
      ['bare-dollar', 1],
      ['escape', null],
    ]);
  });
});
