// What one file contributes to the repository model: Flux Kustomizations
// (path, postBuild, patches, components, lifecycle fields), kustomize
// `kustomization.yaml` references and generators, sources and syncs (where
// Flux starts), the ConfigMaps and Secrets that `substituteFrom` may name, and
// ServiceAccounts. A text prefilter keeps most files from being parsed at all.
import { podSpecOf } from '../../k8s/pods';
import {
  NAME_PLACEHOLDER,
  SourceEntry,
  isKustomizationFile,
  FluxKustomization,
  FluxKustomizeLayer,
  FLUX_KUSTOMIZE_GROUP,
  FileFacts,
  emptyFacts,
  EditTemplate,
  SOURCE_KINDS,
  SourceKind,
  VariableSource,
  ObjectDecl,
} from './model';
import { kustomizeConfig, pathRef } from './kustomize-config';
import { kustomizationPatch, readPostBuild } from './postbuild';
import { artifactDecls, isSourceApi, sourceDecl, syncDecl, webhookDecl } from './start';
import { asMap, asSeq, findPair, getNode, getString, keyText, nodeSpan, parseYamlFile, ParsedDocument, scalarText, YAMLMap } from '../../yaml/documents';
import { LineIndex } from '../../yaml/line-index';
import { setInMap } from '../../yaml/edit';
import { isProducer, mentionedSecrets, PRODUCER_KINDS, producedSecrets } from './producers';
import { accountCreator, MAY_HOLD_CREATOR, operatorAccount } from '../../k8s/account-creators';
import type { ResourceDoc } from '../../kustomize/resource-docs';
import { dependsOnRefs, HELM_GROUP, helmReleaseDecl } from './depends-on';
import { factsView } from './values-view';

const FACT_KINDS = new RegExp(`kind:\\s*["']?(ConfigMap|Secret|ServiceAccount|FluxInstance|ResourceSet|ArtifactGenerator|${PRODUCER_KINDS.join('|')})\\b`);

/** Cheap test: can this text hold anything the model needs? (Plain substring tests first: most files fail them all.) */
export function mayHoldFacts(path: string, text: string): boolean {
  return (
    isKustomizationFile(path) ||
    text.includes(FLUX_KUSTOMIZE_GROUP) ||
    text.includes('source.toolkit.fluxcd.io/') ||
    hasInstanceKey(text) ||
    text.includes('kustomize-mutating-webhook') ||
    (text.includes('serviceAccount') && /serviceAccount(Name)?\s*:/.test(text)) ||
    FACT_KINDS.test(text) ||
    MAY_HOLD_CREATOR.test(text)
  );
}

/**
 * Whether the text may hold an `instance` key (a FluxInstance's spec in the values of a
 * HelmRelease or of the chart: syncDecl). Not a label such as `app.kubernetes.io/instance:`, which
 * Helm writes into every object it renders: a name character or `.`, `/` before it makes it part
 * of a longer key.
 */
function hasInstanceKey(text: string): boolean {
  for (let at = text.indexOf('instance'); at !== -1; at = text.indexOf('instance', at + 1)) {
    if (at > 0 && /[\w./-]/.test(text[at - 1])) continue;
    INSTANCE_KEY_END.lastIndex = at + 'instance'.length;
    if (INSTANCE_KEY_END.test(text)) return true;
  }
  return false;
}

/** After the word: a closing quote, blanks and the colon of a key. */
const INSTANCE_KEY_END = /["']?[ \t]*:/y;

/**
 * Whether the only facts this text can hold are the accounts that custom resources' operators make,
 * named after each resource: then the documents' headers (which the kustomize model reads anyway)
 * are enough and nothing is parsed for the facts (headerFacts). No Flux object, no kind the facts
 * read, no Secret named, no account used, no List (whose items the headers list in its place).
 */
export function factsInHeaders(path: string, text: string): boolean {
  return (
    !isKustomizationFile(path) &&
    !text.includes('fluxcd.io') &&
    !hasInstanceKey(text) &&
    !text.includes('kustomize-mutating-webhook') &&
    !text.includes('serviceAccount') &&
    !/secret/i.test(text) &&
    !FACT_KINDS.test(text) &&
    !LIST_KIND.test(text)
  );
}

const LIST_KIND = /^kind:[ \t]*["']?[\w.-]*List\b/m;

/** The facts of a text factsInHeaders accepts, from its documents' headers; undefined where one is a producer's (read the whole text). */
export function headerFacts(path: string, headers: ResourceDoc[]): FileFacts | null | undefined {
  const facts = emptyFacts();
  for (const header of headers) {
    if (header.error !== null || header.kind === '' || header.name === '') continue;
    if (isProducer(header.kind, header.apiVersion)) return undefined;
    const creator = operatorAccount(path, header.kind, header.apiVersion, header.name, header.namespace === '' ? null : header.namespace);
    if (creator) facts.accountCreators.push(creator);
  }
  return facts.accountCreators.length > 0 ? facts : null;
}

/**
 * The file's facts. `documents`: the file parsed already (read them, not the view, where every one
 * parsed cleanly: the view blanks only what no fact reads, so it differs from them only by hiding
 * an error in a blanked block), or a function that parses it (called only where the view is the
 * text itself).
 */
export function extractFacts(path: string, text: string, documents?: ParsedDocument[] | (() => ParsedDocument[])): FileFacts | null {
  if (!mayHoldFacts(path, text)) return null;
  if (Array.isArray(documents) && documents.every((parsed) => parsed.errors.length === 0)) return factsOfDocuments(path, documents);
  const view = factsView(text);
  return factsOfDocuments(path, view !== null ? parseYamlFile(view) : typeof documents === 'function' ? documents() : (documents ?? parseYamlFile(text)));
}

/** The facts of a file's parsed documents (of its facts view, or of the text itself). */
export function factsOfDocuments(path: string, documents: ParsedDocument[]): FileFacts | null {
  const facts = emptyFacts();
  for (const parsed of documents) {
    if (parsed.errors.length > 0) continue;
    const { doc } = parsed;
    const root = asMap(doc, doc.contents);
    if (!root) continue;
    const kind = getString(doc, root, 'kind');
    const apiVersion = getString(doc, root, 'apiVersion') ?? '';
    const produced = producedSecrets(path, parsed, root, kind, apiVersion);
    if (kind === 'Kustomization' && apiVersion.startsWith(FLUX_KUSTOMIZE_GROUP)) {
      facts.kustomizations.push(fluxKustomization(path, parsed, root));
    } else if (isKustomizationFile(path) && (kind === 'Kustomization' || kind === 'Component' || kind === null)) {
      facts.kustomize = kustomizeConfig(path, parsed, root);
    } else if (produced) {
      facts.variableSources.push(...produced);
    } else if ((kind === 'ConfigMap' || kind === 'Secret') && apiVersion === 'v1') {
      facts.variableSources.push(variableSource(path, parsed, root, kind));
    } else if (kind === 'ServiceAccount' && apiVersion === 'v1') {
      const name = getString(doc, root, 'metadata', 'name');
      if (name) facts.serviceAccounts.push({ name, namespace: getString(doc, root, 'metadata', 'namespace'), file: path });
    } else if (kind !== null && SOURCE_KINDS.includes(kind) && isSourceApi(apiVersion)) {
      const source = sourceDecl(path, parsed, root, kind as SourceKind);
      if (source) facts.sources.push(source);
    } else if ((kind === 'HelmRepository' || kind === 'HelmChart') && isSourceApi(apiVersion)) {
      const name = getString(doc, root, 'metadata', 'name');
      if (name) facts.chartSources.push({ kind, name, namespace: getString(doc, root, 'metadata', 'namespace'), file: path });
    } else if (kind === 'ResourceSet' && apiVersion.startsWith('fluxcd.controlplane.io/')) {
      resourceSetFacts(path, parsed, root, facts);
    } else if (kind === 'ArtifactGenerator' && apiVersion.startsWith('source.extensions.fluxcd.io/')) {
      facts.artifacts.push(...artifactDecls(path, parsed, root));
    } else {
      facts.variableSources.push(...mentionedSecrets(path, parsed, root, kind, apiVersion));
    }
    if (kind === 'HelmRelease' && apiVersion.startsWith(HELM_GROUP)) {
      const release = helmReleaseDecl(path, parsed, root, linesOf(parsed.source));
      if (release) facts.helmReleases.push(release);
    }
    const sync = syncDecl(path, parsed, root, kind, apiVersion);
    if (sync) facts.syncs.push(sync);
    const webhook = webhookDecl(path, parsed, root, kind);
    if (webhook) facts.webhooks.push(webhook);
    const creator = accountCreator(path, doc, root, kind, apiVersion, mentions(parsed, 'serviceAccount'));
    if (creator) facts.accountCreators.push(creator);
    const podSpec = podSpecOf(doc);
    const account = podSpec ? (getString(doc, podSpec, 'serviceAccountName') ?? getString(doc, podSpec, 'serviceAccount')) : null;
    if (account) facts.serviceAccountUses.push({ name: account, namespace: getString(doc, root, 'metadata', 'namespace'), file: path });
  }
  const empty = Object.values(facts).every((value) => value === null || (Array.isArray(value) && value.length === 0));
  return empty ? null : facts;
}

function stringMap(parsed: ParsedDocument, node: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of asMap(parsed.doc, node)?.items ?? []) {
    const key = keyText(pair);
    const value = scalarText(parsed.doc, pair.value);
    if (key !== null && value !== null) out[key] = value;
  }
  return out;
}

/** The line index of the text being read (one per file, however many documents need it). */
let lastLines: LineIndex | null = null;
function linesOf(text: string): LineIndex {
  if (lastLines?.text !== text) lastLines = new LineIndex(text);
  return lastLines;
}

/** An edit template that sets `path` (ending in the name placeholder) to `""` under `map`. */
function defineTemplate(parsed: ParsedDocument, map: YAMLMap, path: string[]): EditTemplate | null {
  return insertTemplate(parsed, map, [...path, NAME_PLACEHOLDER], '""');
}

/** An edit template that inserts `path: value` under `map` (null where the key exists or cannot be written). */
function insertTemplate(parsed: ParsedDocument, map: YAMLMap, path: string[], value: string): EditTemplate | null {
  const edit = setInMap(parsed.source, map, parsed.base, path, value);
  return edit && edit.start === edit.end ? { range: linesOf(parsed.source).range(edit.start, edit.end), newText: edit.newText } : null;
}

function fluxKustomization(file: string, parsed: ParsedDocument, root: YAMLMap): FluxKustomization {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const pathNode = getNode(doc, spec, 'path');
  const written = scalarText(doc, pathNode) ?? '';
  const kindSpan = nodeSpan(parsed, findPair(root, 'kind')?.key) ?? nodeSpan(parsed, root) ?? [parsed.base, parsed.base];
  const postBuildPair = findPair(spec, 'postBuild');
  const range = linesOf(parsed.source).range(kindSpan[0], kindSpan[1]);
  return {
    file,
    name: getString(doc, root, 'metadata', 'name') ?? '',
    nameSpan: nodeSpan(parsed, getNode(doc, root, 'metadata', 'name')),
    namespace: getString(doc, root, 'metadata', 'namespace'),
    labels: stringMap(parsed, getNode(doc, root, 'metadata', 'labels')),
    span: kindSpan,
    line: range.start.line,
    range,
    define: asMap(doc, postBuildPair?.value) ? defineTemplate(parsed, root, ['spec', 'postBuild', 'substitute']) : null,
    path: normalizeSpecPath(written),
    pathAsWritten: written,
    pathSpan: pathNode ? nodeSpan(parsed, pathNode) : null,
    // Components are relative to spec.path; the build resolves them against the source.
    components: (asSeq(doc, findPair(spec, 'components')?.value)?.items ?? []).map((item) => pathRef(parsed, normalizeSpecPath(written) ?? '', item)),
    postBuild: readPostBuild(parsed, file, postBuildPair?.value),
    postBuildSpan: postBuildPair ? nodeSpan(parsed, postBuildPair.value) : null,
    patches: (asSeq(doc, findPair(spec, 'patches')?.value)?.items ?? []).map((item) => kustomizationPatch(parsed, file, item)),
    interval: getString(doc, spec, 'interval'),
    timeout: getString(doc, spec, 'timeout'),
    wait: getString(doc, spec, 'wait') === 'true',
    force: getString(doc, spec, 'force') === 'true',
    prune: getString(doc, spec, 'prune') === 'true',
    targetNamespace: getString(doc, spec, 'targetNamespace'),
    kustomizeLayer: kustomizeLayerOf(parsed, spec),
    sourceKind: getString(doc, spec, 'sourceRef', 'kind') ?? 'GitRepository',
    sourceName: getString(doc, spec, 'sourceRef', 'name'),
    sourceNamespace: getString(doc, spec, 'sourceRef', 'namespace'),
    dependsOn: dependsOnRefs(parsed, spec),
    // Where a fix adds the postBuild its siblings have (flux-substitution-not-run).
    addPostBuild: postBuildPair ? null : insertTemplate(parsed, root, ['spec', 'postBuild'], NAME_PLACEHOLDER),
  };
}

/** The fields of a Flux Kustomization's spec that kustomize-controller adds to the kustomization it builds. */
function kustomizeLayerOf(parsed: ParsedDocument, spec: YAMLMap | null): FluxKustomizeLayer | null {
  const { doc } = parsed;
  const patches: FluxKustomizeLayer['patches'] = [];
  for (const item of asSeq(doc, findPair(spec, 'patches')?.value)?.items ?? []) {
    const patch = getString(doc, item, 'patch');
    const target = getNode(doc, item, 'target');
    if (patch !== null) patches.push({ patch, target: asMap(doc, target) ? stringMap(parsed, target) : null, span: nodeSpan(parsed, item) ?? [0, 0] });
  }
  return patches.length > 0 ? { patches } : null;
}

/** `spec.path` without `./` and `..` that stays below the root (clamping is the build's business). */
function normalizeSpecPath(written: string): string | null {
  const parts: string[] = [];
  for (const part of written.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

const PLACEHOLDER = /<<-?\s*inputs\.([\w.]+)[^>]*?-?>>/g;
const HAS_PLACEHOLDER = /<<-?\s*inputs\./;

/**
 * A Flux Operator ResourceSet applies its template once per input set: the
 * Kustomizations and sources it templates are applied too. With inline
 * `inputs` each instance gets its values; with `inputsFrom` (a provider
 * outside the files) one instance stands for all, placeholders left as written.
 */
function resourceSetFacts(file: string, parsed: ParsedDocument, root: YAMLMap, facts: FileFacts): void {
  const { doc } = parsed;
  const spec = asMap(doc, findPair(root, 'spec')?.value);
  const inputs = (asSeq(doc, findPair(spec, 'inputs')?.value)?.items ?? []).map((item) => stringMap(parsed, item));
  const instances: Array<Record<string, string> | null> = findPair(spec, 'inputsFrom') || inputs.length === 0 ? [null] : inputs;
  const name = getString(doc, root, 'metadata', 'name') ?? '';
  const template = getString(doc, spec, 'resourcesTemplate');
  if (template !== null) facts.templated.push(...templatedObjects(file, template, instances, getString(doc, root, 'metadata', 'namespace')));
  for (const item of asSeq(doc, findPair(spec, 'resources')?.value)?.items ?? []) {
    const map = asMap(doc, item);
    const kind = getString(doc, map, 'kind');
    const apiVersion = getString(doc, map, 'apiVersion') ?? '';
    if (!map) continue;
    for (const input of instances) {
      const fill = (text: string) => (input ? text.replace(PLACEHOLDER, (whole, key: string) => input[key] ?? whole) : text);
      if (kind === 'Kustomization' && apiVersion.startsWith(FLUX_KUSTOMIZE_GROUP)) {
        const k = fluxKustomization(file, parsed, map);
        const path = fill(k.pathAsWritten);
        facts.kustomizations.push({
          ...k,
          name: fill(k.name),
          namespace: k.namespace === null ? null : fill(k.namespace),
          pathAsWritten: path,
          path: HAS_PLACEHOLDER.test(path) ? null : normalizeSpecPath(path),
          sourceName: k.sourceName === null ? null : fill(k.sourceName),
          sourceNamespace: k.sourceNamespace === null ? null : fill(k.sourceNamespace),
          dependsOn: k.dependsOn.map((ref) => ({ ...ref, name: fill(ref.name), namespace: ref.namespace === null ? null : fill(ref.namespace) })),
          addPostBuild: null,
          template: `ResourceSet ${name}`,
        });
      } else if (kind !== null && SOURCE_KINDS.includes(kind) && isSourceApi(apiVersion)) {
        const source = sourceDecl(file, parsed, map, kind as SourceKind);
        if (source) facts.sources.push({ ...source, name: fill(source.name), url: source.url === null ? null : fill(source.url) });
      } else if (kind !== null) {
        const objectName = getString(doc, map, 'metadata', 'name');
        const namespace = getString(doc, map, 'metadata', 'namespace');
        if (objectName) facts.templated.push({ kind, apiVersion, name: fill(objectName), namespace: namespace === null ? null : fill(namespace), file });
      }
    }
  }
}

/**
 * The objects a ResourceSet's `resourcesTemplate` makes (a text of YAML documents with `<< >>`
 * placeholders), per input set; a document the reader cannot parse (template control flow) may
 * make anything in the ResourceSet's namespace: kind `*`.
 */
function templatedObjects(file: string, template: string, instances: Array<Record<string, string> | null>, namespace: string | null): ObjectDecl[] {
  const out: ObjectDecl[] = [];
  for (const input of instances) {
    const text = input ? template.replace(PLACEHOLDER, (whole, key: string) => input[key] ?? whole) : template;
    for (const parsed of parseYamlFile(text)) {
      const { doc } = parsed;
      const map = asMap(doc, doc.contents);
      const kind = getString(doc, map, 'kind');
      const objectName = getString(doc, map, 'metadata', 'name');
      if (parsed.errors.length > 0 || (doc.contents !== null && (!kind || !objectName))) {
        out.push({ kind: '*', name: '*', namespace, file });
        continue;
      }
      if (kind && objectName) out.push({ kind, apiVersion: getString(doc, map, 'apiVersion') ?? '', name: objectName, namespace: getString(doc, map, 'metadata', 'namespace'), file });
    }
  }
  return out;
}

/**
 * A ConfigMap or Secret written here. SOPS-encrypted (a top-level `sops:` key): the key names are
 * plain text, the values are not (never decoded, never shown), and no fix may add a key (the file's
 * MAC would no longer match).
 */
function variableSource(file: string, parsed: ParsedDocument, root: YAMLMap, kind: 'ConfigMap' | 'Secret'): VariableSource {
  const { doc } = parsed;
  const sops = findPair(root, 'sops') !== undefined;
  const entries = new Map<string, SourceEntry>();
  const read = (key: string, decode: boolean) => {
    for (const pair of asMap(doc, findPair(root, key)?.value)?.items ?? []) {
      const name = keyText(pair);
      if (name === null) continue;
      const raw = sops ? SOPS_VALUE : (scalarText(doc, pair.value) ?? '');
      entries.set(name, { value: (decode && !sops ? decodeBase64(raw) : raw).replace(/\r?\n/g, ''), file, span: nodeSpan(parsed, pair.key)! });
    }
  };
  read('data', kind === 'Secret');
  if (kind === 'Secret') read('stringData', false);
  // A Secret's values are base64 or encrypted: a quick fix defines names in ConfigMaps only.
  const define = kind === 'ConfigMap' && !sops ? defineTemplate(parsed, root, ['data']) : null;
  return { kind, name: getString(doc, root, 'metadata', 'name') ?? '', namespace: getString(doc, root, 'metadata', 'namespace'), file, entries, secret: kind === 'Secret' || sops, define };
}

const SOPS_VALUE = '(encrypted with SOPS)';

function decodeBase64(text: string): string {
  try {
    return typeof atob === 'function' ? new TextDecoder().decode(Uint8Array.from(atob(text.replace(/\s/g, '')), (c) => c.charCodeAt(0))) : text;
  } catch {
    return text; // SOPS-encrypted or not base64: show it as written
  }
}

/** Whether the document's chunk of its file holds `word`. */
function mentions(parsed: ParsedDocument, word: string): boolean {
  const at = parsed.source.indexOf(word, parsed.base);
  return at !== -1 && at < parsed.end;
}
