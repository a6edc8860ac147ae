// Reads the contract file and checks it against contract.md's schema. Every
// problem becomes a `contract-invalid` (or `contract-reason-missing`) finding
// on the key that is wrong; the rest of the file still counts.
import { LineIndex } from '../yaml/line-index';
import type { Finding, RuleMeta, SeveritySetting } from '../base/types';
import { asMap, asSeq, Document, findPair, isScalar, keyText, Pair, parseYamlFile, ParsedDocument, YAMLMap } from '../yaml/documents';
import { Contract, contractDir, DEFAULT_CONVERGENCE_NOTE, DEFAULT_INCLUDE, DEFAULT_REQUIRED_TTL, ExternalAccount, Settings, Span, TtlEntry, TtlListName } from './model';
import { joinRepoPath } from '../base/paths';
import type { OffsetEdit } from '../yaml/edit';
import { globProblem } from '../base/glob';
import { isPlaceholderReason } from '../base/placeholders';
import { closest } from '../base/words';
import { contractInvalid } from '../rules/contract-invalid';
import { contractReasonMissing } from '../rules/contract-reason-missing';
import { contractDuplicate } from '../rules/contract-duplicate';
import type { DeclaredSource } from '../flux/model/variables';

/** The parser's message for a key written twice in one mapping (its code is DUPLICATE_KEY). */
const DUPLICATE_KEY_MESSAGE = 'Map keys must be unique';

export const SEVERITY_SETTINGS: readonly SeveritySetting[] = ['error', 'warning', 'info', 'off'];

const SCHEMA: Record<string, readonly string[]> = {
  '': ['jobs', 'ttl', 'serviceAccounts', 'flux', 'rules'],
  jobs: ['include', 'exclude'],
  ttl: ['required', 'convergenceNote', 'noFinishTimeout', 'otherFinishTimeout'],
  'ttl.noFinishTimeout[]': ['file', 'job', 'reason'],
  'ttl.otherFinishTimeout[]': ['file', 'job', 'value', 'reason'],
  serviceAccounts: ['external'],
  'serviceAccounts.external[]': ['name', 'namespace', 'reason'],
  flux: ['substitution', 'strict', 'roots', 'sources', 'substituteFrom', 'variables'],
  'flux.sources[]': ['kind', 'name', 'namespace', 'path'],
  'flux.substituteFrom[]': ['kind', 'name', 'optional'],
  'flux.variables[]': ['name', 'from', 'names', 'reason'],
  'flux.variables[].from': ['kind', 'name', 'namespace'],
};

export interface LoadedContract {
  contract: Contract;
  findings: Finding[];
}

/** The contract that applies when a repository has no contract file. */
export function defaultContract(path: string, settings: Settings = {}): Contract {
  return {
    path,
    exists: false,
    text: '',
    include: [...DEFAULT_INCLUDE],
    exclude: [],
    requiredTtl: settings.requiredTtl ?? DEFAULT_REQUIRED_TTL,
    // The editor always sends its setting, whose default is the default: only another value is the setting's.
    requiredTtlFrom: settings.requiredTtl === undefined || settings.requiredTtl === DEFAULT_REQUIRED_TTL ? 'default' : 'setting',
    convergenceNote: DEFAULT_CONVERGENCE_NOTE,
    noFinishTimeout: [],
    otherFinishTimeout: [],
    externalAccounts: [],
    substitution: 'auto',
    strict: true,
    strictFrom: 'default',
    flux: { roots: [], sources: [], substituteFrom: [], variables: null, declaredSources: [] },
    rules: { ...settings.rules },
    includeSpan: null,
  };
}

/**
 * @param path repository-relative path of the contract file
 * @param text its content, or undefined when there is no file
 * @param knownRules rule ids the `rules:` map may name
 */
export function loadContract(path: string, text: string | undefined, settings: Settings, knownRules: ReadonlySet<string>): LoadedContract {
  const contract = defaultContract(path, settings);
  if (text === undefined) return { contract, findings: [] };
  contract.exists = true;
  contract.text = text;
  const reader = new ContractReader(contract, text, knownRules);
  reader.read();
  return { contract, findings: reader.findings };
}

class ContractReader {
  readonly findings: Finding[] = [];
  private readonly lines: LineIndex;
  private parsed!: ParsedDocument;
  private doc!: Document;

  constructor(
    private readonly contract: Contract,
    private readonly text: string,
    private readonly knownRules: ReadonlySet<string>,
  ) {
    this.lines = new LineIndex(text);
  }

  read(): void {
    const docs = parseYamlFile(this.text)
      // A key written twice is reported below by checkKeys, with the key's name (the parser's message has none).
      .map((d) => ({ ...d, errors: d.errors.filter((error) => !error.message.startsWith(DUPLICATE_KEY_MESSAGE)) }))
      .filter((d) => d.doc.contents !== null || d.errors.length > 0);
    if (docs.length === 0) return; // an empty contract file: every default applies
    for (const error of docs.flatMap((d) => d.errors)) {
      this.report(contractInvalid.meta, [error.start, error.end], `The contract file is not valid YAML: ${error.message}`);
    }
    if (docs.some((d) => d.errors.length > 0)) return;
    if (docs.length > 1) {
      // Spans are relative to their own document's chunk: not to the first document's.
      const range = (docs[1].doc.contents as { range?: [number, number, number] } | null)?.range;
      const span: Span = range ? [docs[1].base + range[0], docs[1].base + range[1]] : [docs[1].base, docs[1].base];
      this.report(contractInvalid.meta, span, 'The contract file must hold one YAML document.');
    }
    this.parsed = docs[0];
    this.doc = docs[0].doc;
    const root = this.map(this.doc.contents, '(root)');
    if (!root) return;
    this.checkKeys(root, '');
    this.readJobs(this.map(findPair(root, 'jobs')?.value, 'jobs'));
    this.readTtl(this.map(findPair(root, 'ttl')?.value, 'ttl'));
    this.readServiceAccounts(this.map(findPair(root, 'serviceAccounts')?.value, 'serviceAccounts'));
    this.readFlux(this.map(findPair(root, 'flux')?.value, 'flux'));
    this.readRules(this.map(findPair(root, 'rules')?.value, 'rules'));
  }

  private readJobs(jobs: YAMLMap | null): void {
    if (!jobs) return;
    this.checkKeys(jobs, 'jobs');
    const include = findPair(jobs, 'include');
    if (include) {
      this.contract.includeSpan = this.spanOf(include.key);
      const globs = this.stringList(include, 'jobs.include');
      if (globs) this.contract.include = globs;
    }
    const exclude = findPair(jobs, 'exclude');
    if (exclude) this.contract.exclude = this.stringList(exclude, 'jobs.exclude') ?? [];
  }

  private readTtl(ttl: YAMLMap | null): void {
    if (!ttl) return;
    this.checkKeys(ttl, 'ttl');
    const required = this.integer(findPair(ttl, 'required'), 'ttl.required');
    if (required !== null) {
      this.contract.requiredTtl = required;
      this.contract.requiredTtlFrom = 'contract';
    }
    const note = this.string(findPair(ttl, 'convergenceNote'), 'ttl.convergenceNote');
    if (note !== null) {
      if (note.trim() === '') this.report(contractInvalid.meta, this.spanOf(findPair(ttl, 'convergenceNote')!.value)!, '`ttl.convergenceNote` must not be empty.');
      else this.contract.convergenceNote = note.trim();
    }
    this.contract.noFinishTimeout = this.ttlList(ttl, 'noFinishTimeout');
    this.contract.otherFinishTimeout = this.ttlList(ttl, 'otherFinishTimeout');
  }

  private ttlList(ttl: YAMLMap, list: TtlListName): TtlEntry[] {
    const key = `ttl.${list}`;
    const items = this.sequence(findPair(ttl, list), key);
    const entries: TtlEntry[] = [];
    items.forEach((item, index) => {
      const where = `${key}[${index}]`;
      const map = this.map(item, where);
      if (!map) return;
      this.checkKeys(map, `${key}[]`, where);
      const itemSpan = this.spanOf(map)!;
      const filePair = findPair(map, 'file');
      const fileAsWritten = this.string(filePair, `${where}.file`);
      if (!filePair) this.report(contractInvalid.meta, this.firstLine(itemSpan), `\`${where}\` has no \`file\`: name the manifest the entry is about.`);
      if (fileAsWritten === null) return;
      const file = this.repoPath(fileAsWritten, filePair!, `${where}.file`);
      if (file === null) return;
      const value = list === 'otherFinishTimeout' ? this.integer(findPair(map, 'value'), `${where}.value`) : null;
      if (list === 'otherFinishTimeout' && !findPair(map, 'value')) {
        this.report(contractInvalid.meta, this.firstLine(itemSpan), `\`${where}\` has no \`value\`: say which finish timeout the Job keeps.`);
      }
      const jobPair = findPair(map, 'job');
      const reasonPair = findPair(map, 'reason');
      const job = this.string(jobPair, `${where}.job`);
      const reason = this.reason(reasonPair, itemSpan, where);
      entries.push({
        list,
        file,
        fileAsWritten,
        job,
        value,
        reason,
        spans: {
          item: itemSpan,
          file: this.spanOf(filePair!.value)!,
          job: jobPair ? (this.spanOf(jobPair.value) ?? undefined) : undefined,
          value: list === 'otherFinishTimeout' ? (this.spanOf(findPair(map, 'value')?.value) ?? undefined) : undefined,
          reason: reasonPair ? (this.spanOf(reasonPair.value) ?? undefined) : undefined,
        },
      });
    });
    return entries;
  }

  private readServiceAccounts(accounts: YAMLMap | null): void {
    if (!accounts) return;
    this.checkKeys(accounts, 'serviceAccounts');
    const items = this.sequence(findPair(accounts, 'external'), 'serviceAccounts.external');
    items.forEach((item, index) => {
      const where = `serviceAccounts.external[${index}]`;
      const map = this.map(item, where);
      if (!map) return;
      this.checkKeys(map, 'serviceAccounts.external[]', where);
      const itemSpan = this.spanOf(map)!;
      const namePair = findPair(map, 'name');
      const name = this.string(namePair, `${where}.name`);
      if (!namePair) this.report(contractInvalid.meta, this.firstLine(itemSpan), `\`${where}\` has no \`name\`: name the ServiceAccount.`);
      if (name === null) return;
      const namespacePair = findPair(map, 'namespace');
      const account: ExternalAccount = {
        name,
        namespace: this.string(namespacePair, `${where}.namespace`),
        reason: this.reason(findPair(map, 'reason'), itemSpan, where),
        spans: { item: itemSpan, name: this.spanOf(namePair!.value)!, namespace: this.spanOf(namespacePair?.value) ?? undefined },
      };
      this.contract.externalAccounts.push(account);
    });
  }

  private readFlux(flux: YAMLMap | null): void {
    if (!flux) return;
    this.checkKeys(flux, 'flux');
    const mode = this.string(findPair(flux, 'substitution'), 'flux.substitution');
    if (mode !== null) {
      if (mode === 'auto' || mode === 'always' || mode === 'never') this.contract.substitution = mode;
      else this.report(contractInvalid.meta, this.spanOf(findPair(flux, 'substitution')!.value)!, '`flux.substitution` must be one of auto, always, never.');
    }
    const strict = findPair(flux, 'strict');
    if (strict) {
      const value = isScalar(strict.value) ? strict.value.value : undefined;
      if (typeof value === 'boolean') {
        this.contract.strict = value;
        this.contract.strictFrom = 'contract';
      } else this.report(contractInvalid.meta, this.spanOf(strict.value) ?? this.spanOf(strict.key)!, '`flux.strict` must be true or false.');
    }
    this.readRoots(flux);
    this.readSources(flux);
    this.readSubstituteFrom(flux);
    this.readVariables(flux);
  }

  private readRoots(flux: YAMLMap): void {
    const pair = findPair(flux, 'roots');
    if (!pair) return;
    this.sequence(pair, 'flux.roots').forEach((item, index) => {
      const where = `flux.roots[${index}]`;
      const span = this.spanOf(item) ?? this.spanOf(pair.key)!;
      if (!isScalar(item) || typeof item.value !== 'string') return this.report(contractInvalid.meta, span, `\`${where}\` must be a string: a folder, relative to the contract file.`);
      const path = this.folder(item.value, span, where);
      if (path !== null) this.contract.flux.roots.push({ path, file: this.contract.path, span });
    });
  }

  private readSources(flux: YAMLMap): void {
    this.sequence(findPair(flux, 'sources'), 'flux.sources').forEach((item, index) => {
      const where = `flux.sources[${index}]`;
      const map = this.map(item, where);
      if (!map) return;
      this.checkKeys(map, 'flux.sources[]', where);
      const span = this.spanOf(map)!;
      const kind = this.string(findPair(map, 'kind'), `${where}.kind`);
      const name = this.string(findPair(map, 'name'), `${where}.name`);
      const written = this.string(findPair(map, 'path'), `${where}.path`);
      if (kind !== null && !['GitRepository', 'OCIRepository', 'Bucket'].includes(kind))
        this.report(contractInvalid.meta, this.spanOf(findPair(map, 'kind')!.value)!, `\`${where}.kind\` must be one of GitRepository, OCIRepository, Bucket.`);
      for (const key of ['kind', 'name', 'path']) if (!findPair(map, key)) this.report(contractInvalid.meta, this.firstLine(span), `\`${where}\` has no \`${key}\`.`);
      const path = written === null ? null : this.folder(written, this.spanOf(findPair(map, 'path')!.value)!, `${where}.path`);
      if (kind === null || name === null || path === null || !['GitRepository', 'OCIRepository', 'Bucket'].includes(kind)) return;
      const namespace = this.string(findPair(map, 'namespace'), `${where}.namespace`);
      this.contract.flux.sources.push({ kind: kind as 'OCIRepository', name, namespace, path, file: this.contract.path, span: this.spanOf(findPair(map, 'path')!.value)!, item: span });
    });
  }

  private readSubstituteFrom(flux: YAMLMap): void {
    this.sequence(findPair(flux, 'substituteFrom'), 'flux.substituteFrom').forEach((item, index) => {
      const where = `flux.substituteFrom[${index}]`;
      const map = this.map(item, where);
      if (!map) return;
      this.checkKeys(map, 'flux.substituteFrom[]', where);
      const span = this.spanOf(map)!;
      const kind = this.string(findPair(map, 'kind'), `${where}.kind`);
      const name = this.string(findPair(map, 'name'), `${where}.name`);
      const optionalPair = findPair(map, 'optional');
      const optional = optionalPair && isScalar(optionalPair.value) ? optionalPair.value.value : false;
      if (optionalPair && typeof optional !== 'boolean') this.report(contractInvalid.meta, this.spanOf(optionalPair.value) ?? span, `\`${where}.optional\` must be true or false.`);
      if (kind !== null && kind !== 'ConfigMap' && kind !== 'Secret') this.report(contractInvalid.meta, this.spanOf(findPair(map, 'kind')!.value)!, `\`${where}.kind\` must be ConfigMap or Secret.`);
      for (const key of ['kind', 'name']) if (!findPair(map, key)) this.report(contractInvalid.meta, this.firstLine(span), `\`${where}\` has no \`${key}\`.`);
      if ((kind === 'ConfigMap' || kind === 'Secret') && name) this.contract.flux.substituteFrom.push({ kind, name, optional: optional === true, file: this.contract.path, span });
    });
  }

  /**
   * `flux.variables`: items `{name, reason}` (names from outside, the old form) and `{from, names?, reason}`
   * (one outside source and exactly the names it defines, or none: unknown on purpose).
   */
  private readVariables(flux: YAMLMap): void {
    const pair = findPair(flux, 'variables');
    if (!pair) return;
    const variables: NonNullable<Contract['flux']['variables']> = [];
    const declared = this.contract.flux.declaredSources;
    this.sequence(pair, 'flux.variables').forEach((item, index) => {
      const where = `flux.variables[${index}]`;
      const map = this.map(item, where);
      if (!map) return;
      this.checkKeys(map, 'flux.variables[]', where);
      const span = this.spanOf(map)!;
      const namePair = findPair(map, 'name');
      const fromPair = findPair(map, 'from');
      const reason = this.reason(findPair(map, 'reason'), span, where);
      if (namePair && fromPair)
        return this.report(contractInvalid.meta, this.spanOf(fromPair.key)!, `\`${where}\` has both \`name\` and \`from\`: write one variable, or one source with its \`names\`.`);
      if (fromPair) {
        const source = this.declaredSource(map, fromPair, where, reason, span);
        if (!source) return;
        const twice = declared.find((other) => other.kind === source.kind && other.name === source.name && other.namespace === source.namespace);
        if (twice) return this.report(contractDuplicate.meta, source.span, `\`${where}\` declares ${source.kind} ${source.name} again: keep one item.`);
        declared.push(source);
        return;
      }
      if (findPair(map, 'names'))
        this.report(contractInvalid.meta, this.spanOf(findPair(map, 'names')!.key)!, `\`${where}.names\` lists the names of a source: add \`from\`, or write one item per name.`);
      const name = this.string(namePair, `${where}.name`);
      if (!namePair) this.report(contractInvalid.meta, this.firstLine(span), `\`${where}\` has no \`name\` or \`from\`: name the variable, or the source it comes from.`);
      if (name !== null) variables.push({ name, reason, file: this.contract.path, span: this.spanOf(namePair!.value)!, item: span });
    });
    // The old items stand for every outside source no `from` item covers; a list of `from` items only says nothing of the others.
    this.contract.flux.variables = variables.length > 0 || declared.length === 0 ? variables : null;
  }

  /** A `from` item: `{kind, name, namespace?}`, and `names` (a list of strings) when given. */
  private declaredSource(map: YAMLMap, fromPair: Pair, where: string, reason: string, item: Span): DeclaredSource | null {
    const from = this.map(fromPair.value, `${where}.from`);
    if (!from) {
      if (fromPair.value === null || (isScalar(fromPair.value) && fromPair.value.value === null))
        this.report(contractInvalid.meta, this.spanOf(fromPair.key)!, `\`${where}.from\` must name a ConfigMap or Secret: \`{ kind: Secret, name: … }\`.`);
      return null;
    }
    this.checkKeys(from, 'flux.variables[].from', `${where}.from`);
    const kind = this.string(findPair(from, 'kind'), `${where}.from.kind`);
    const name = this.string(findPair(from, 'name'), `${where}.from.name`);
    const namespace = this.string(findPair(from, 'namespace'), `${where}.from.namespace`);
    const span = this.spanOf(from)!;
    for (const key of ['kind', 'name']) if (!findPair(from, key)) this.report(contractInvalid.meta, this.firstLine(span), `\`${where}.from\` has no \`${key}\`.`);
    if (kind !== null && kind !== 'ConfigMap' && kind !== 'Secret')
      this.report(contractInvalid.meta, this.spanOf(findPair(from, 'kind')!.value)!, `\`${where}.from.kind\` must be ConfigMap or Secret.`);
    if ((kind !== 'ConfigMap' && kind !== 'Secret') || !name) return null;
    const namesPair = findPair(map, 'names');
    let names: DeclaredSource['names'] = null;
    if (namesPair) {
      names = [];
      this.sequence(namesPair, `${where}.names`).forEach((node, i) => {
        const at = this.spanOf(node) ?? this.spanOf(namesPair.key)!;
        if (!isScalar(node) || typeof node.value !== 'string' || node.value === '') return this.report(contractInvalid.meta, at, `\`${where}.names[${i}]\` must be a variable name.`);
        if (names!.some((other) => other.name === node.value)) return this.report(contractInvalid.meta, at, `\`${where}.names\` lists ${node.value} twice.`);
        names!.push({ name: node.value, span: at });
      });
    }
    return { kind, name, namespace, names, reason, file: this.contract.path, span, item };
  }

  /** A folder path in the contract: relative to the contract file, inside the repository. */
  private folder(written: string, span: Span, where: string): string | null {
    const resolved = joinRepoPath(contractDir(this.contract.path), written.trim());
    if (resolved === null) this.report(contractInvalid.meta, span, `\`${where}\` points outside the repository (${written}).`);
    return resolved;
  }

  private readRules(rules: YAMLMap | null): void {
    if (!rules) return;
    const seen = new Set<string>();
    for (const pair of rules.items) {
      const id = keyText(pair);
      const keySpan = this.spanOf(pair.key) ?? [0, 0];
      if (id !== null && seen.has(id)) {
        this.report(contractInvalid.meta, keySpan, `Key \`rules.${id}\` is written twice.`);
        continue;
      }
      if (id !== null) seen.add(id);
      if (id === null || !this.knownRules.has(id)) {
        const meant = closest(id ?? '', [...this.knownRules]);
        this.report(contractInvalid.meta, keySpan, `Unknown rule \`rules.${id ?? '?'}\`${meant ? ` (did you mean \`${meant}\`?)` : ''}.`, this.renameTo(keySpan, meant));
        continue;
      }
      const value = isScalar(pair.value) ? pair.value.value : undefined;
      if (typeof value === 'string' && (SEVERITY_SETTINGS as string[]).includes(value)) this.contract.rules[id] = value as SeveritySetting;
      else this.report(contractInvalid.meta, this.spanOf(pair.value) ?? keySpan, `\`rules.${id}\` must be one of ${SEVERITY_SETTINGS.join(', ')}.`);
    }
  }

  // ---- typed readers: each reports `contract-invalid` naming the key, and returns null ----

  private checkKeys(map: YAMLMap, schemaKey: string, where = schemaKey): void {
    const allowed = SCHEMA[schemaKey];
    const seen = new Set<string>();
    for (const pair of map.items) {
      const key = keyText(pair);
      const keySpan = this.spanOf(pair.key) ?? this.spanOf(map)!;
      const path = where ? `${where}.${key}` : String(key);
      if (key === null || !allowed.includes(key)) {
        const meant = closest(key ?? '', allowed);
        this.report(contractInvalid.meta, keySpan, `Unknown key \`${path}\`${meant ? ` (did you mean \`${meant}\`?)` : ''}.`, this.renameTo(keySpan, meant));
      } else if (seen.has(key)) {
        this.report(contractInvalid.meta, keySpan, `Key \`${path}\` is written twice.`);
      }
      if (key !== null) seen.add(key);
    }
  }

  private map(node: unknown, where: string): YAMLMap | null {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return null;
    const map = asMap(this.doc, node);
    if (!map) this.report(contractInvalid.meta, this.spanOf(node) ?? [0, 0], `\`${where}\` must be a mapping.`);
    return map;
  }

  private sequence(pair: Pair | undefined, where: string): unknown[] {
    if (!pair || (isScalar(pair.value) && pair.value.value === null)) return [];
    const seq = asSeq(this.doc, pair.value);
    if (!seq) {
      this.report(contractInvalid.meta, this.spanOf(pair.value) ?? this.spanOf(pair.key)!, `\`${where}\` must be a list.`);
      return [];
    }
    return seq.items;
  }

  private string(pair: Pair | undefined, where: string): string | null {
    if (!pair) return null;
    if (isScalar(pair.value) && typeof pair.value.value === 'string') return pair.value.value;
    this.report(contractInvalid.meta, this.spanOf(pair.value) ?? this.spanOf(pair.key)!, `\`${where}\` must be a string.`);
    return null;
  }

  private stringList(pair: Pair, where: string): string[] | null {
    const items = this.sequence(pair, where);
    const strings: string[] = [];
    items.forEach((item, index) => {
      const span = this.spanOf(item) ?? this.spanOf(pair.key)!;
      if (!isScalar(item) || typeof item.value !== 'string') {
        this.report(contractInvalid.meta, span, `\`${where}[${index}]\` must be a string.`);
        return;
      }
      const problem = globProblem(item.value);
      if (problem) this.report(contractInvalid.meta, span, `\`${where}[${index}]\`: ${problem}`);
      else strings.push(item.value);
    });
    return strings;
  }

  private integer(pair: Pair | undefined, where: string): number | null {
    if (!pair) return null;
    const node = pair.value;
    const source = isScalar(node) ? node.source : undefined;
    if (isScalar(node) && typeof node.value === 'number' && Number.isSafeInteger(node.value) && node.value >= 0 && /^[0-9]+$/.test(source ?? '')) {
      return node.value;
    }
    this.report(contractInvalid.meta, this.spanOf(node) ?? this.spanOf(pair.key)!, `\`${where}\` must be a non-negative integer.`);
    return null;
  }

  private reason(pair: Pair | undefined, itemSpan: Span, where: string): string {
    const reason = pair && isScalar(pair.value) && typeof pair.value.value === 'string' ? pair.value.value.trim() : '';
    if (pair && isScalar(pair.value) && pair.value.value !== null && typeof pair.value.value !== 'string') {
      this.report(contractInvalid.meta, this.spanOf(pair.value)!, `\`${where}.reason\` must be a string.`);
    } else if (reason === '') {
      const span = pair ? (this.spanOf(pair.value) ?? this.spanOf(pair.key)!) : this.firstLine(itemSpan);
      this.report(contractReasonMissing.meta, span, `\`${where}\` has no reason: write down why this is an exception.`);
    } else if (isPlaceholderReason(reason)) {
      // What a quick fix wrote is a prompt, not a reason (as the `# converges: TODO` comment is).
      this.report(contractReasonMissing.meta, this.spanOf(pair!.value)!, `\`${where}\` still holds the placeholder reason: write down why this is an exception.`);
    }
    return reason;
  }

  /** A contract `file:` must stay inside the repository and name one file. */
  private repoPath(written: string, pair: Pair, where: string): string | null {
    const span = this.spanOf(pair.value)!;
    if (written.trim() === '') {
      this.report(contractInvalid.meta, span, `\`${where}\` is empty: name the manifest the entry is about.`);
      return null;
    }
    if (/[*?[{]/.test(written)) {
      this.report(contractInvalid.meta, span, `\`${where}\` must name one file, not a glob.`);
      return null;
    }
    const resolved = joinRepoPath(contractDir(this.contract.path), written);
    if (resolved === null) {
      this.report(contractInvalid.meta, span, `\`${where}\` points outside the repository (${written}): entries name files inside it.`);
      return null;
    }
    return resolved;
  }

  private spanOf(node: unknown): Span | null {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    return range ? [this.parsed.base + range[0], this.parsed.base + range[1]] : null;
  }

  private firstLine(span: Span): Span {
    const position = this.lines.position(span[0]);
    return [span[0], Math.max(span[0], Math.min(span[1], this.lines.lineEnd(position.line)))];
  }

  private report(meta: RuleMeta, span: Span, message: string, fixes: Array<{ title: string; edit: OffsetEdit }> = []): void {
    const finding: Finding = { rule: meta.id, severity: 'error', file: this.contract.path, range: this.lines.range(span[0], span[1]), message, job: null };
    if (fixes.length > 0)
      finding.fixes = fixes.map(({ title, edit }) => ({ title, edits: [{ file: this.contract.path, range: this.lines.range(edit.start, edit.end), newText: edit.newText }], preferred: true }));
    this.findings.push(finding);
  }

  /** Renaming a misspelt key to the one it was meant to be. */
  private renameTo(keySpan: Span, to: string | null): Array<{ title: string; edit: OffsetEdit }> {
    return to === null ? [] : [{ title: `Rename to \`${to}\``, edit: { start: keySpan[0], end: keySpan[1], newText: to } }];
  }
}
