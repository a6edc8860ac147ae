// The Secrets that objects of the repository make, with the keys they will
// hold where the repository shows them: ExternalSecret and
// ClusterExternalSecret (external-secrets.io), SealedSecret (bitnami.com), and
// the operators of secret stores that write a Secret whose keys come from the
// store (Infisical, 1Password, Vault Secrets Operator, Doppler, Bitwarden).
// Their values live outside the repository: never shown. Where the keys
// cannot be known (dataFrom, a store's whole item), the Secret is declared
// (it exists, so an optional reference to it is no hazard) and `unknownKeys`
// says why, at the place that makes it so (`unknownSpan`).
import type { SourceEntry, VariableSource } from './model';
import { asMap, asSeq, findPair, getNode, getString, keyText, nodeSpan, ParsedDocument, scalarText, YAMLMap } from '../../yaml/documents';

/** The kinds this module reads (for the text prefilter of facts.ts). */
export const PRODUCER_KINDS = [
  'ExternalSecret',
  'ClusterExternalSecret',
  'SealedSecret',
  'InfisicalSecret',
  'OnePasswordItem',
  'VaultStaticSecret',
  'VaultDynamicSecret',
  'DopplerSecret',
  'BitwardenSecret',
] as const;

type Read = (file: string, parsed: ParsedDocument, root: YAMLMap) => VariableSource[];

/** The reader of each producer kind, by the API group its apiVersion must start with. */
const READERS: Record<(typeof PRODUCER_KINDS)[number], { group: string; read: Read }> = {
  ExternalSecret: { group: 'external-secrets.io/', read: externalSecret },
  ClusterExternalSecret: { group: 'external-secrets.io/', read: clusterExternalSecret },
  SealedSecret: { group: 'bitnami.com/', read: sealedSecret },
  InfisicalSecret: { group: 'secrets.infisical.com/', read: infisicalSecret },
  OnePasswordItem: { group: 'onepassword.com/', read: (file, parsed, root) => storeSecret(file, parsed, root, ['metadata', 'name'], 'the 1Password item') },
  VaultStaticSecret: { group: 'secrets.hashicorp.com/', read: vaultSecret },
  VaultDynamicSecret: { group: 'secrets.hashicorp.com/', read: vaultSecret },
  DopplerSecret: {
    group: 'secrets.doppler.com/',
    read: (file, parsed, root) => storeSecret(file, parsed, root, ['spec', 'managedSecret', 'name'], 'the Doppler config', ['spec', 'managedSecret', 'namespace']),
  },
  BitwardenSecret: { group: 'k8s.bitwarden.com/', read: bitwardenSecret },
};

/** Whether objects of this kind make Secrets or ConfigMaps (then their facts need the whole document). */
export function isProducer(kind: string, apiVersion: string): boolean {
  const reader = (READERS as Record<string, { group: string; read: Read } | undefined>)[kind];
  return reader !== undefined && apiVersion.startsWith(reader.group);
}

/** The Secrets a producer document makes; null when the document is no producer. */
export function producedSecrets(file: string, parsed: ParsedDocument, root: YAMLMap, kind: string | null, apiVersion: string): VariableSource[] | null {
  if (kind === null || !isProducer(kind, apiVersion)) return null;
  return READERS[kind as (typeof PRODUCER_KINDS)[number]].read(file, parsed, root);
}

/**
 * A custom resource (not Kubernetes' own, not Flux's) that names a Secret in its spec
 * (`secretName: x`, `secret: {name: x}`, `credentialsSecretRef: {name: x}`) may be the operator's order
 * to make it (a PocketIDOIDCClient, a cert-manager Certificate) or may only read it: the Secret may
 * exist, with keys the repository does not show. Ranked after every object that is written here.
 */
export function mentionedSecrets(file: string, parsed: ParsedDocument, root: YAMLMap, kind: string | null, apiVersion: string): VariableSource[] {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (!kind || !group.includes('.') || group.endsWith('k8s.io') || /(^|\.)fluxcd\.io$/.test(group)) return [];
  const { doc } = parsed;
  const producer = `${kind} ${getString(doc, root, 'metadata', 'name') ?? ''}`;
  const namespace = getString(doc, root, 'metadata', 'namespace');
  const out: VariableSource[] = [];
  const visit = (node: unknown, path: string, depth: number) => {
    const map = asMap(doc, node);
    for (const pair of map?.items ?? []) {
      const key = keyText(pair);
      if (key === null) continue;
      const at = path ? `${path}.${key}` : key;
      const name = /secret(name)?$/i.test(key) ? (scalarText(doc, pair.value) ?? (/secret(ref)?$/i.test(key) ? getString(doc, pair.value, 'name') : null)) : null;
      if (name && !out.some((source) => source.name === name)) {
        const why = `${producer} names it in ${at}: its operator may make it, with keys the repository does not show`;
        out.push({ ...made(producer, name, namespace, file, new Map(), { why, span: nodeSpan(parsed, pair.key) })!, mention: true });
      } else if (depth < 8) visit(pair.value, at, depth + 1);
    }
    for (const item of asSeq(doc, node)?.items ?? []) if (depth < 8) visit(item, path, depth + 1);
  };
  visit(findPair(root, 'spec')?.value, 'spec', 0);
  return out;
}

/**
 * The Secrets and ConfigMaps an operator makes for a custom resource, named after it, in its
 * namespace (their keys are the operator's: a HelmRelease's valuesFrom may read them, substitution
 * does not): an ObjectBucketClaim's ConfigMap and Secret of its own name, a CloudNativePG
 * Cluster's `<name>-app` and `<name>-superuser`, a Crunchy PostgresCluster's `<name>-pguser-<user>`,
 * and the like. By the API group its apiVersion starts with and its kind; each name a pattern.
 */
const OPERATOR_OUTPUTS: Array<{ group: string; kind: string; makes: Array<{ kind: 'Secret' | 'ConfigMap'; name: (own: string) => string }> }> = [
  {
    group: 'objectbucket.io/',
    kind: 'ObjectBucketClaim',
    makes: [
      { kind: 'Secret', name: (own) => own },
      { kind: 'ConfigMap', name: (own) => own },
    ],
  },
  { group: 'postgresql.cnpg.io/', kind: 'Cluster', makes: [{ kind: 'Secret', name: (own) => `${own}-.+` }] },
  { group: 'postgres-operator.crunchydata.com/', kind: 'PostgresCluster', makes: [{ kind: 'Secret', name: (own) => `${own}-.+` }] },
  { group: 'acid.zalan.do/', kind: 'postgresql', makes: [{ kind: 'Secret', name: (own) => `.+\\.${own}\\.credentials\\.postgresql\\.acid\\.zalan\\.do` }] },
  { group: 'rabbitmq.com/', kind: 'RabbitmqCluster', makes: [{ kind: 'Secret', name: (own) => `${own}-.+` }] },
  { group: 'mongodbcommunity.mongodb.com/', kind: 'MongoDBCommunity', makes: [{ kind: 'Secret', name: (own) => `${own}-.+` }] },
  { group: 'kafka.strimzi.io/', kind: 'Kafka', makes: [{ kind: 'Secret', name: (own) => `${own}-.+` }] },
  { group: 'kafka.strimzi.io/', kind: 'KafkaUser', makes: [{ kind: 'Secret', name: (own) => own }] },
  { group: 'ceph.rook.io/', kind: 'CephObjectStoreUser', makes: [{ kind: 'Secret', name: (own) => `rook-ceph-object-user-.+-${own}` }] },
  { group: 'secretgenerator.mittwald.de/', kind: 'StringSecret', makes: [{ kind: 'Secret', name: (own) => own }] },
  { group: 'secretgenerator.mittwald.de/', kind: 'BasicAuth', makes: [{ kind: 'Secret', name: (own) => own }] },
  { group: 'secretgenerator.mittwald.de/', kind: 'SSHKeyPair', makes: [{ kind: 'Secret', name: (own) => own }] },
];

/** What the operator of a custom resource named `name` makes (each name an anchored pattern); empty for a kind this module does not know. */
export function operatorOutputs(apiVersion: string, kind: string, name: string): Array<{ kind: 'Secret' | 'ConfigMap'; pattern: RegExp }> {
  const own = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return OPERATOR_OUTPUTS.filter((entry) => entry.kind === kind && apiVersion.startsWith(entry.group)).flatMap((entry) =>
    entry.makes.map((made) => ({ kind: made.kind, pattern: new RegExp(`^${made.name(own)}$`) })),
  );
}

/** A Secret made by `producer`, with the keys found (values never shown) and, when they are not all known, why. */
function made(
  producer: string,
  name: string | null,
  namespace: string | null,
  file: string,
  entries: Map<string, SourceEntry>,
  unknown: { why: string; span: [number, number] | null } | null,
): VariableSource | null {
  if (!name) return null;
  const source: VariableSource = { kind: 'Secret', name, namespace, file, entries, secret: true, producer };
  if (unknown) {
    source.unknownKeys = unknown.why;
    if (unknown.span) source.unknownSpan = unknown.span;
  }
  return source;
}

function entry(parsed: ParsedDocument, file: string, key: unknown, value: string, origin: string): SourceEntry {
  return { value, file, span: nodeSpan(parsed, key)!, origin };
}

/** The keys of a mapping (a template's `data`), as entries. */
function keysOf(parsed: ParsedDocument, file: string, map: YAMLMap | null, value: string, origin: string, into: Map<string, SourceEntry>): void {
  for (const pair of map?.items ?? []) {
    const name = keyText(pair);
    if (name) into.set(name, entry(parsed, file, pair.key, value, origin));
  }
}

const FROM_STORE = '(from the external secret store)';

/**
 * What an ExternalSecret spec makes, as external-secrets' controller does: without a template (or
 * one without `data` and `templateFrom`) the keys of `data[].secretKey` and of `dataFrom`; with one
 * (mergePolicy Replace, the default) the template's keys only; with `mergePolicy: Merge`, both.
 * `dataFrom`, and a `templateFrom` whose keys come from the text, leave the set unknown.
 */
function externalSecretKeys(
  parsed: ParsedDocument,
  file: string,
  spec: YAMLMap,
  producer: string,
  at: string,
): { entries: Map<string, SourceEntry>; unknown: { why: string; span: [number, number] | null } | null } {
  const { doc } = parsed;
  const entries = new Map<string, SourceEntry>();
  const template = asMap(doc, getNode(doc, spec, 'target', 'template'));
  const templateData = asMap(doc, findPair(template, 'data')?.value);
  const templateFrom = asSeq(doc, findPair(template, 'templateFrom')?.value);
  const templated = (templateData?.items.length ?? 0) > 0 || (templateFrom?.items.length ?? 0) > 0;
  const merge = getString(doc, template, 'mergePolicy') === 'Merge';
  let unknown: { why: string; span: [number, number] | null } | null = null;
  if (!templated || merge) {
    (asSeq(doc, findPair(spec, 'data')?.value)?.items ?? []).forEach((item, index) => {
      const key = getNode(doc, item, 'secretKey');
      const name = scalarText(doc, key);
      if (name) entries.set(name, entry(parsed, file, key, FROM_STORE, `${at}data[${index}].secretKey`));
    });
    const dataFrom = findPair(spec, 'dataFrom');
    if (dataFrom) unknown = { why: `${producer} fills it from the secret store with dataFrom${merge ? ' (mergePolicy: Merge)' : ''}`, span: nodeSpan(parsed, dataFrom.key) };
  }
  keysOf(parsed, file, templateData, '(templated by the ExternalSecret)', `${at}target.template.data`, entries);
  (templateFrom?.items ?? []).forEach((item, index) => {
    // `configMap`/`secret` items rendered as Values keep their key; KeysAndValues and `literal` write keys from the text.
    const ref = asMap(doc, getNode(doc, item, 'configMap')) ?? asMap(doc, getNode(doc, item, 'secret'));
    const items = asSeq(doc, findPair(ref, 'items')?.value)?.items ?? [];
    const readable = ref !== null && items.length > 0 && items.every((i) => (getString(doc, i, 'templateAs') ?? 'Values') === 'Values') && (getString(doc, item, 'target') ?? 'Data') === 'Data';
    if (!readable) {
      unknown ??= { why: `${producer} writes keys from templateFrom[${index}], which the repository does not show as keys`, span: nodeSpan(parsed, findPair(template, 'templateFrom')!.key) };
      return;
    }
    for (const i of items) {
      const key = getNode(doc, i, 'key');
      const name = scalarText(doc, key);
      if (name) entries.set(name, entry(parsed, file, key, '(templated by the ExternalSecret)', `${at}target.template.templateFrom[${index}]`));
    }
  });
  return { entries, unknown };
}

/** An ExternalSecret: the Secret `spec.target.name` (default its own name), in its namespace. */
function externalSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  if (!spec) return [];
  const own = getString(doc, root, 'metadata', 'name');
  const producer = `ExternalSecret ${own ?? ''}`;
  const { entries, unknown } = externalSecretKeys(parsed, file, spec, producer, '');
  const source = made(producer, getString(doc, spec, 'target', 'name') ?? own, getString(doc, root, 'metadata', 'namespace'), file, entries, unknown);
  return source ? [source] : [];
}

/**
 * A ClusterExternalSecret makes an ExternalSecret (`spec.externalSecretName`, default its own name)
 * in every namespace it picks, each making the Secret its `externalSecretSpec.target.name` names
 * (default the ExternalSecret's name). `namespaces` lists them; a selector picks namespaces the
 * repository cannot tell: then any namespace.
 */
function clusterExternalSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const esSpec = asMap(doc, findPair(spec, 'externalSecretSpec')?.value);
  if (!spec || !esSpec) return [];
  const own = getString(doc, root, 'metadata', 'name');
  const producer = `ClusterExternalSecret ${own ?? ''}`;
  const { entries, unknown } = externalSecretKeys(parsed, file, esSpec, producer, 'externalSecretSpec.');
  const name = getString(doc, esSpec, 'target', 'name') ?? getString(doc, spec, 'externalSecretName') ?? own;
  const listed = (asSeq(doc, findPair(spec, 'namespaces')?.value)?.items ?? []).map((item) => scalarText(doc, item)).filter((ns): ns is string => ns !== null);
  const selected = findPair(spec, 'namespaceSelector') !== undefined || findPair(spec, 'namespaceSelectors') !== undefined;
  const namespaces: Array<string | null> = listed.length > 0 && !selected ? listed : [null];
  return namespaces.map((namespace) => made(producer, name, namespace, file, entries, unknown)).filter((source): source is VariableSource => source !== null);
}

/** A SealedSecret: the Secret of its template (name default its own), keys of `encryptedData` and `template.data`. */
function sealedSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  if (!spec) return [];
  const own = getString(doc, root, 'metadata', 'name');
  const entries = new Map<string, SourceEntry>();
  keysOf(parsed, file, asMap(doc, findPair(spec, 'encryptedData')?.value), '(sealed)', 'encryptedData', entries);
  keysOf(parsed, file, asMap(doc, getNode(doc, spec, 'template', 'data')), '(templated by the SealedSecret)', 'template.data', entries);
  const name = getString(doc, spec, 'template', 'metadata', 'name') ?? own;
  const namespace = getString(doc, spec, 'template', 'metadata', 'namespace') ?? getString(doc, root, 'metadata', 'namespace');
  const source = made(`SealedSecret ${own ?? ''}`, name, namespace, file, entries, null);
  return source ? [source] : [];
}

/** An operator's Secret whose keys are the store's (not written here): declared, keys unknown. */
function storeSecret(file: string, parsed: ParsedDocument, root: YAMLMap, namePath: string[], store: string, namespacePath?: string[]): VariableSource[] {
  const { doc } = parsed;
  const kind = getString(doc, root, 'kind') ?? '';
  const producer = `${kind} ${getString(doc, root, 'metadata', 'name') ?? ''}`;
  const namespace = (namespacePath ? getString(doc, root, ...namespacePath) : null) ?? getString(doc, root, 'metadata', 'namespace');
  const source = made(producer, getString(doc, root, ...namePath), namespace, file, new Map(), {
    why: `${producer} fills it with the keys of ${store}`,
    span: nodeSpan(parsed, findPair(root, 'kind')?.key),
  });
  return source ? [source] : [];
}

/** Vault Secrets Operator: `spec.destination.name`; with `transformation.excludeRaw` only its templates' keys. */
function vaultSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const transformation = asMap(doc, getNode(doc, root, 'spec', 'destination', 'transformation'));
  const templates = asMap(doc, findPair(transformation, 'templates')?.value);
  if (getString(doc, transformation, 'excludeRaw') !== 'true' || !templates) return storeSecret(file, parsed, root, ['spec', 'destination', 'name'], 'the Vault path');
  const entries = new Map<string, SourceEntry>();
  keysOf(parsed, file, templates, '(templated by the Vault Secrets Operator)', 'destination.transformation.templates', entries);
  const own = getString(doc, root, 'metadata', 'name');
  const source = made(`${getString(doc, root, 'kind')} ${own ?? ''}`, getString(doc, root, 'spec', 'destination', 'name'), getString(doc, root, 'metadata', 'namespace'), file, entries, null);
  return source ? [source] : [];
}

/** Bitwarden: `spec.secretName`; with `onlyMappedSecrets: true` just the keys its `map` names. */
function bitwardenSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  if (getString(doc, spec, 'onlyMappedSecrets') !== 'true') return storeSecret(file, parsed, root, ['spec', 'secretName'], 'the Bitwarden project');
  const entries = new Map<string, SourceEntry>();
  (asSeq(doc, findPair(spec, 'map')?.value)?.items ?? []).forEach((item, index) => {
    const key = getNode(doc, item, 'secretKeyName');
    const name = scalarText(doc, key);
    if (name) entries.set(name, entry(parsed, file, key, FROM_STORE, `map[${index}].secretKeyName`));
  });
  const source = made(`BitwardenSecret ${getString(doc, root, 'metadata', 'name') ?? ''}`, getString(doc, spec, 'secretName'), getString(doc, root, 'metadata', 'namespace'), file, entries, null);
  return source ? [source] : [];
}

/**
 * Infisical: each managed Secret (`managedSecretReference`, `managedKubeSecretReferences[]`), in
 * its `secretNamespace`. With a template that does not include all of the project's secrets, the
 * template's keys; else the project's keys, unknown here.
 */
function infisicalSecret(file: string, parsed: ParsedDocument, root: YAMLMap): VariableSource[] {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const own = getString(doc, root, 'metadata', 'name');
  const producer = `InfisicalSecret ${own ?? ''}`;
  const refs: Array<{ node: unknown; at: string }> = [];
  const single = findPair(spec, 'managedSecretReference')?.value;
  if (single) refs.push({ node: single, at: 'managedSecretReference' });
  (asSeq(doc, findPair(spec, 'managedKubeSecretReferences')?.value)?.items ?? []).forEach((node, index) => refs.push({ node, at: `managedKubeSecretReferences[${index}]` }));
  const out: VariableSource[] = [];
  for (const { node, at } of refs) {
    const template = asMap(doc, getNode(doc, node, 'template'));
    const entries = new Map<string, SourceEntry>();
    keysOf(parsed, file, asMap(doc, findPair(template, 'data')?.value), '(templated by the InfisicalSecret)', `${at}.template.data`, entries);
    const all = !template || getString(doc, template, 'includeAllSecrets') === 'true';
    const unknown = all ? { why: `${producer} fills it with the keys of the Infisical project`, span: nodeSpan(parsed, findPair(asMap(doc, node), 'secretName')?.key) } : null;
    const source = made(producer, getString(doc, node, 'secretName'), getString(doc, node, 'secretNamespace') ?? getString(doc, root, 'metadata', 'namespace'), file, entries, unknown);
    if (source) out.push(source);
  }
  return out;
}
