// The cheap readings of a file's facts must give exactly what a whole parse
// gives: a HelmRelease's values blanked where no fact reads them
// (values-view.ts), custom resources' operator accounts from the documents'
// headers (extract.ts headerFacts), aliases resolved once per document
// (aliases.ts). Each with the controls that must keep the slow path.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Alias, isAlias, parseDocument, visit } from 'yaml';
import { extractFacts, factsInHeaders, factsOfDocuments, headerFacts, mayHoldFacts } from '../server/src/engine/flux/facts/extract';
import { factsView } from '../server/src/engine/flux/facts/values-view';
import type { FileFacts } from '../server/src/engine/flux/facts/model';
import { aliasTarget } from '../server/src/engine/yaml/aliases';
import { scanResourceDocs } from '../server/src/engine/kustomize/resource-docs';
import { CORPUS } from './ecosystem/corpus';
import { parseYamlFile } from '../server/src/engine/yaml/documents';

function helmRelease(values: string, rest = ''): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: media
spec:
  interval: 1h
  dependsOn:
    - name: db
  chart:
    spec:
      chart: app
      sourceRef:
        kind: HelmRepository
        name: charts
        namespace: flux-system
  values:
${values}
  valuesFrom:
    - kind: Secret
      name: app-values
${rest}`;
}

const PLAIN_VALUES = `    image:
      repository: ghcr.io/example/app
      tag: 1.2.3
    config: |
      line one

      line two
# a comment at column 0 between two keys of the block
    replicas: 2`;

/** With CRLF line ends, the view keeps every one where it was, and its facts are the whole parse's. */
function assertCrlfKept(path: string, lfText: string): void {
  const text = lfText.replace(/\n/g, '\r\n');
  const view = factsView(text);
  assert.ok(view !== null);
  assert.deepEqual(
    [...view.matchAll(/\r\n/g)].map((m) => m.index),
    [...text.matchAll(/\r\n/g)].map((m) => m.index),
  );
  assert.deepEqual(extractFacts(path, text), wholeFacts(path, text));
}

/** The facts as a whole parse reads them. */
function wholeFacts(path: string, text: string) {
  return factsOfDocuments(path, parseYamlFile(text));
}

/**
 * The corpus files `select` takes (every `every`-th of them), and those whose facts as `read` gives
 * them differ from `expected`'s (the whole parse's); `read` gives undefined where it does not answer.
 */
function corpusDifferences(
  select: (path: string, text: string) => boolean,
  read: (path: string, text: string) => FileFacts | null | undefined,
  { expected = wholeFacts, every = 1 } = {},
): { taken: number; differ: string[] } {
  let taken = 0;
  const differ: string[] = [];
  for (const path of walkYaml(CORPUS)) {
    const text = readFileSync(join(CORPUS, path), 'utf8');
    if (!select(path, text) || ++taken % every !== 0) continue;
    const facts = read(path, text);
    if (facts !== undefined && JSON.stringify(facts, mapsAsArrays) !== JSON.stringify(expected(path, text), mapsAsArrays)) differ.push(path);
  }
  return { taken, differ };
}

describe('HelmRelease values blanked for the facts (values-view.ts)', () => {
  test('the block is blanked: same length, same line breaks, the rest untouched; the facts are the whole parse’s', () => {
    const text = helmRelease(PLAIN_VALUES);
    const view = factsView(text);
    assert.ok(view !== null);
    assert.equal(view.length, text.length);
    assert.deepEqual(view.split('\n').length, text.split('\n').length);
    assert.ok(!view.includes('ghcr.io') && !view.includes('line two') && !view.includes('replicas'));
    assert.ok(view.includes('  values:\n') && view.includes('  valuesFrom:\n    - kind: Secret\n      name: app-values'));
    const facts = extractFacts('hr.yaml', text);
    assert.equal(facts?.helmReleases[0].dependsOn[0].name, 'db');
    assert.deepEqual(
      facts?.helmReleases[0].refs.map((ref) => [ref.field, ref.name, text.slice(ref.nameSpan[0], ref.nameSpan[1])]),
      [
        ['valuesFrom', 'app-values', 'app-values'],
        ['sourceRef', 'charts', 'charts'],
      ],
    );
    assert.deepEqual(facts, wholeFacts('hr.yaml', text));
  });

  test('CRLF line ends stay where they were', () => assertCrlfKept('hr.yaml', helmRelease(PLAIN_VALUES)));

  const kept: Array<[string, string]> = [
    ['values naming a service account', helmRelease('    serviceAccount:\n      name: app-sa')],
    ['values with fullnameOverride', helmRelease('    fullnameOverride: other')],
    ['a Flux Operator instance', helmRelease('    instance:\n      sync:\n        path: clusters/a')],
    ['the mutating webhook', helmRelease('    image:\n      repository: ghcr.io/xunholy/kustomize-mutating-webhook')],
    ['an alias after the block that may name an anchor in it', helmRelease('    common: &common\n      a: 1', '  postRenderers: *common\n')],
    ['a tab in the indentation', helmRelease('    image:\n    \ttag: 1')],
    ['a quoted scalar continued at the spec’s indentation', helmRelease('    note: "one\n  two"')],
    ['a flow mapping on the key’s line', helmRelease('    {}').replace('  values:\n    {}', '  values: {a: 1}')],
    ['another API group', helmRelease(PLAIN_VALUES).replace('helm.toolkit.fluxcd.io/v2', 'apps.open-cluster-management.io/v1')],
  ];
  for (const [what, text] of kept) {
    test(`kept whole: ${what}`, () => {
      assert.equal(factsView(text), null);
    });
  }

  test('the one difference, as documented: a YAML error inside a blanked block no longer hides the facts', () => {
    const text = helmRelease('    config: |\n      one\n  # ends the scalar\n      two: [');
    assert.ok(factsView(text) !== null);
    assert.equal(wholeFacts('hr.yaml', text), null);
    assert.equal(extractFacts('hr.yaml', text)?.helmReleases[0].name, 'app');
  });

  test('anchors and aliases inside the block go with it', () => {
    const text = helmRelease('    a: &x 1\n    b: *x');
    assert.ok(factsView(text) !== null);
    assert.deepEqual(extractFacts('hr.yaml', text), wholeFacts('hr.yaml', text));
  });

  test('documents parsed already are read where they parsed cleanly; with an error, the view is', () => {
    const clean = helmRelease(PLAIN_VALUES);
    assert.deepEqual(extractFacts('hr.yaml', clean, parseYamlFile(clean)), extractFacts('hr.yaml', clean));
    const broken = helmRelease('    config: |\n      one\n  # ends the scalar\n      two: [');
    const documents = parseYamlFile(broken);
    assert.ok(documents.some((parsed) => parsed.errors.length > 0));
    // control: read from the documents, the error would hide the HelmRelease (wholeFacts is null)
    assert.equal(extractFacts('hr.yaml', broken, documents)?.helmReleases[0].name, 'app');
  });

  test('corpus: wherever the view blanks a block, the facts equal the whole parse’s', (t) => {
    if (!existsSync(CORPUS)) return void t.skip('corpus missing');
    // every 4th: a whole parse of each takes long
    const { taken, differ } = corpusDifferences((path, text) => mayHoldFacts(path, text) && factsView(text) !== null, extractFacts, { every: 4 });
    t.diagnostic(`${taken} files with a blanked block, a quarter compared`);
    assert.ok(taken > 100);
    assert.deepEqual(differ, []);
  });
});

describe('CustomResourceDefinitions blanked for the facts (values-view.ts)', () => {
  const definition = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          properties:
            serviceAccountName:
              description: names a Secret and a ServiceAccount
              type: string
`;
  const account = `---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: widget-operator
  namespace: widgets
`;

  test('a definition’s document is blanked after its marker; the other documents and the facts stay', () => {
    const text = `---\n${definition}${account}`;
    const view = factsView(text);
    assert.ok(view !== null);
    assert.equal(view.length, text.length);
    assert.ok(view.startsWith('---\n ') && !view.includes('widgets.example.com') && !view.includes('serviceAccountName'));
    assert.ok(view.endsWith(account));
    assert.deepEqual(extractFacts('crds.yaml', text), wholeFacts('crds.yaml', text));
    assert.equal(extractFacts('crds.yaml', text)?.serviceAccounts[0].name, 'widget-operator');
  });

  test('CRLF line ends stay where they were', () => assertCrlfKept('crds.yaml', `${definition}${account}`));

  const kept: Array<[string, string]> = [
    ['the kind in another API group', definition.replace('apiextensions.k8s.io/v1', 'example.com/v1')],
    ['content on the marker line', `--- !!map\n${definition}`],
  ];
  for (const [what, text] of kept) {
    test(`kept whole: ${what}`, () => {
      assert.equal(factsView(text), null);
    });
  }
});

describe('operator accounts from the headers (extract.ts headerFacts)', () => {
  const rules = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: alerts
  namespace: monitoring
spec:
  groups:
    - name: a
      rules:
        - alert: Down
          expr: up == 0
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata:
  name: allow
spec: {}
`;

  test('a file of custom resources: the headers give what the whole parse gives', () => {
    assert.ok(mayHoldFacts('rules.yaml', rules) && factsInHeaders('rules.yaml', rules));
    const facts = headerFacts('rules.yaml', scanResourceDocs(rules));
    assert.deepEqual(
      facts?.accountCreators.map((creator) => [creator.names, creator.namespace]),
      [
        [['alerts'], 'monitoring'],
        [['allow'], null],
      ],
    );
    assert.deepEqual(facts, extractFacts('rules.yaml', rules));
  });

  const parsed: Array<[string, string]> = [
    ['a Secret named in a spec', rules.replace('expr: up == 0', 'secretName: creds')],
    ['an account used', rules.replace('spec: {}', 'spec:\n  serviceAccountName: x')],
    ['a Flux object', rules.replace('cilium.io/v2', 'notification.toolkit.fluxcd.io/v1')],
    ['a List', rules.replace('kind: CiliumNetworkPolicy', 'kind: CiliumNetworkPolicyList')],
    ['a ConfigMap', `${rules}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n`],
  ];
  for (const [what, text] of parsed) {
    test(`parsed: ${what}`, () => {
      assert.equal(factsInHeaders('x.yaml', text), false);
    });
  }

  test('a producer of Secrets among the headers: the whole parse (undefined)', () => {
    const claim = rules.replace('monitoring.coreos.com/v1\nkind: PrometheusRule', 'external-secrets.io/v1\nkind: ExternalSecret');
    assert.equal(headerFacts('x.yaml', scanResourceDocs(claim)), undefined);
  });

  test('corpus: every file read from its headers has the whole parse’s facts', (t) => {
    if (!existsSync(CORPUS)) return void t.skip('corpus missing');
    const fromHeaders = (path: string, text: string) => mayHoldFacts(path, text) && factsInHeaders(path, text);
    const { taken, differ } = corpusDifferences(fromHeaders, (path, text) => headerFacts(path, scanResourceDocs(text)), { expected: (path, text) => extractFacts(path, text) });
    t.diagnostic(`${taken} files read from their headers`);
    assert.ok(taken > 100);
    assert.deepEqual(differ, []);
  });
});

describe('aliases resolved once per document (aliases.ts)', () => {
  test('each alias names what the yaml package’s own resolve gives: the last anchor before it', () => {
    const doc = parseDocument('a: &x 1\nb: *x\nc: &x 2\nd: *x\ne: *y\nf: &y 3\n');
    const aliases: Alias[] = [];
    visit(doc, { Alias: (_key, node) => void aliases.push(node) });
    assert.equal(aliases.length, 3);
    for (const alias of aliases) assert.equal(aliasTarget(doc, alias), alias.resolve(doc));
    assert.deepEqual(
      aliases.map((alias) => (aliasTarget(doc, alias) as { value?: unknown } | undefined)?.value),
      [1, 2, undefined],
    );
  });

  test('an alias made after the parse is resolved as the yaml package does', () => {
    const doc = parseDocument('a: &x 1\n');
    const alias = doc.createAlias(doc.get('a', true) as never, 'x');
    assert.ok(isAlias(alias));
    assert.equal(aliasTarget(doc, alias), alias.resolve(doc));
  });
});

function mapsAsArrays(_key: string, value: unknown): unknown {
  return value instanceof Map ? [...value] : value;
}

function* walkYaml(root: string, dir = ''): Generator<string> {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* walkYaml(root, path);
    else if (/\.ya?ml$/.test(entry.name)) yield path;
  }
}

describe('the `instance` key of a FluxInstance spec (extract.ts mayHoldFacts)', () => {
  const labelled = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/instance: web\n';
  const table: Array<[string, string, boolean]> = [
    ['a chart values file', 'instance:\n  sync:\n    path: clusters/home\n', true],
    ['HelmRelease values', '  values:\n    instance:\n      sync: {}\n', true],
    ['a quoted key, blanks before the colon', '{"instance" : {}}\n', true],
    ['a flow mapping', 'values: {instance: {sync: {}}}\n', true],
    ['the label Helm writes', labelled, false],
    ['a longer key', 'fluxInstance: x\nmy-instance: y\ninstance_name: z\n', false],
  ];
  for (const [what, text, expected] of table) test(what, () => assert.equal(mayHoldFacts('x.yaml', text), expected));

  test('corpus: every file that says `instance:` has the whole parse’s facts', (t) => {
    if (!existsSync(CORPUS)) return void t.skip('corpus missing');
    let labelOnly = 0;
    const asTheAuditReads = (path: string, text: string) => {
      if (!mayHoldFacts(path, text)) {
        labelOnly++;
        return null;
      }
      return factsInHeaders(path, text) ? (headerFacts(path, scanResourceDocs(text)) ?? extractFacts(path, text)) : extractFacts(path, text);
    };
    const { differ } = corpusDifferences((_path, text) => text.includes('instance:'), asTheAuditReads);
    t.diagnostic(`${labelOnly} files with the label alone are not read for facts`);
    assert.ok(labelOnly > 100);
    assert.deepEqual(differ, []);
  });
});
