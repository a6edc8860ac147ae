// The contract's JSON Schema (schemas/flux-job-guard.schema.json, contributed
// to the Red Hat YAML extension through package.json's yamlValidation):
//   - the contracts of this repository validate against it (the example
//     repository's breaks it exactly where the engine says it is broken), so do
//     the examples in docs/contract.md and the README; broken contracts do not;
//   - its shape: every object closed (additionalProperties: false), every key
//     described, the rules map names every rule;
//   - yaml-language-server (the server of the Red Hat YAML extension, a dev
//     dependency here) given the association exactly as that extension makes it
//     from our package.json, validates .flux-job-guard.yaml, completes its keys
//     and shows their descriptions on hover; other YAML files are left alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createProtocolConnection, Diagnostic, ProtocolConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { spawn } from 'node:child_process';
import { parse } from 'yaml';
import { ALL_RULES, RULE_IDS } from '../server/src/engine/rules/registry';
import { objectSchemas, Schema, validate } from './helpers/json-schema';
import { messageText } from './helpers/lsp-client';
import { removeTempRepos, tempRepo } from './helpers/temp-repo';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  contributes: {
    configuration: { properties: { 'fluxJobGuard.rules': { propertyNames: { enum: string[] } } } };
    yamlValidation: Array<{ fileMatch: string | string[]; url: string }>;
  };
};
const schema = JSON.parse(read('schemas/flux-job-guard.schema.json')) as Schema;

/** The ```yaml blocks of a Markdown file that are contracts (they have a top-level `ttl:`). */
function contractExamples(markdown: string): string[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]).filter((block) => /^ttl:$/m.test(block));
}

describe('the contract schema validates contracts', () => {
  test('the e2e fixture contract is valid', () => {
    assert.deepEqual(validate(parse(read('test/e2e/fixtures/workspace/.flux-job-guard.yaml')), schema), []);
  });

  test('the examples in docs/contract.md and the README are valid', () => {
    const examples = [...contractExamples(read('docs/contract.md')), ...contractExamples(read('README.md'))];
    assert.ok(examples.length >= 2, `found ${examples.length} examples`);
    for (const example of examples) assert.deepEqual(validate(parse(example), schema), [], example);
  });

  test('the example repository breaks it where the engine reports contract-invalid and contract-reason-missing', () => {
    // test/cli.test.ts: `rulez` (38:1) is contract-invalid, otherFinishTimeout[2]'s reason "" (30:15) contract-reason-missing
    assert.deepEqual(validate(parse(read('examples/flux-repo/.flux-job-guard.yaml')), schema), [
      '/ttl/otherFinishTimeout/2/reason: must not be shorter than 1',
      '/ttl/otherFinishTimeout/2/reason: must match \\S',
      '/rulez: unknown key',
    ]);
  });

  test('an empty contract file is valid (every default applies)', () => {
    assert.deepEqual(validate(parse(''), schema), []);
  });

  const broken: Array<[string, string, string[]]> = [
    ['an unknown nested key', 'ttl:\n  requird: 3600\n', ['/ttl/requird: unknown key']],
    ['an entry without reason', 'ttl:\n  noFinishTimeout:\n    - file: a.yaml\n', ['/ttl/noFinishTimeout/0: missing required reason']],
    ['a blank reason', 'serviceAccounts:\n  external:\n    - {name: bot, reason: "   "}\n', ['/serviceAccounts/external/0/reason: must match \\S']],
    ['otherFinishTimeout without value', 'ttl:\n  otherFinishTimeout:\n    - {file: a.yaml, reason: r}\n', ['/ttl/otherFinishTimeout/0: missing required value']],
    ['a negative TTL', 'ttl:\n  required: -1\n', ['/ttl/required: must be at least 0']],
    ['a TTL that is not an integer', 'ttl:\n  required: "86400"\n', ['/ttl/required: must be integer, not string']],
    ['a glob as a contract file', 'ttl:\n  noFinishTimeout:\n    - {file: "apps/*.yaml", reason: r}\n', ['/ttl/noFinishTimeout/0/file: must match ^(?![/\\\\])[^*?[{]+$']],
    ['an unknown rule', 'rules:\n  ttl-mising: warning\n', ['/rules/ttl-mising: unknown key']],
    ['an unknown severity', 'rules:\n  ttl-missing: loud\n', ['/rules/ttl-missing: must be one of error, warning, info, off']],
    ['an unknown substitution mode', 'flux:\n  substitution: sometimes\n', ['/flux/substitution: must be one of auto, always, never']],
    ['a substituteFrom of another kind', 'flux:\n  substituteFrom:\n    - {kind: Deployment, name: x}\n', ['/flux/substituteFrom/0/kind: must be one of ConfigMap, Secret']],
    ['a variable without reason', 'flux:\n  variables:\n    - name: SECRET_DOMAIN\n', ['/flux/variables/0: missing required reason']],
    ['a source without path', 'flux:\n  sources:\n    - {kind: OCIRepository, name: x}\n', ['/flux/sources/0: missing required path']],
  ];
  for (const [name, text, problems] of broken) {
    test(`rejected: ${name}`, () => assert.deepEqual(validate(parse(text), schema), problems));
  }
});

describe('the contract schema itself', () => {
  test('every object is closed: additionalProperties false', () => {
    const open = objectSchemas(schema).filter(({ schema: object }) => object.additionalProperties !== false);
    assert.deepEqual(
      open.map(({ path }) => path),
      [],
    );
  });

  test('every key has a description and a markdownDescription', () => {
    const undescribed = objectSchemas(schema).flatMap(({ path, schema: object }) =>
      Object.entries((object.properties ?? {}) as Record<string, Schema>)
        .filter(([, property]) => typeof property.description !== 'string' || typeof property.markdownDescription !== 'string')
        .map(([key]) => `${path}/properties/${key}`),
    );
    assert.deepEqual(undescribed, []);
  });

  test('the rules map and the setting name exactly the rules the engine knows, described by the catalogue', () => {
    const rules = (schema.properties as Record<string, Schema>).rules.properties as Record<string, Schema>;
    const setting = manifest.contributes.configuration.properties['fluxJobGuard.rules'].propertyNames.enum;
    assert.deepEqual(Object.keys(rules).sort(), [...RULE_IDS].sort(), 'the schema');
    assert.deepEqual(setting.slice().sort(), [...RULE_IDS].sort(), 'the fluxJobGuard.rules setting');
    for (const meta of ALL_RULES) assert.equal(rules[meta.id].description, `${meta.summary} Default: ${meta.defaultSeverity}.`, meta.id);
  });

  test('package.json contributes it for .flux-job-guard.yaml, and the .vsix ships it', () => {
    assert.deepEqual(manifest.contributes.yamlValidation, [{ fileMatch: '.flux-job-guard.yaml', url: './schemas/flux-job-guard.schema.json' }]);
    assert.match(read('.vscodeignore'), /^!schemas\/flux-job-guard\.schema\.json$/m);
  });
});

// ---- yaml-language-server, as the Red Hat YAML extension runs it -------------------------------

const YAML_LS = join(ROOT, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');

/**
 * What the Red Hat YAML extension sends for our package.json's yamlValidation (its getSchemaAssociations):
 * `./` urls resolved against the extension's folder, a fileMatch without a leading `/` given one.
 */
function associationsFor(extensionDir: string): Array<{ fileMatch: string[]; uri: string }> {
  return manifest.contributes.yamlValidation.map(({ fileMatch, url }) => ({
    fileMatch: (Array.isArray(fileMatch) ? fileMatch : [fileMatch]).map((pattern) => (/^(\w+:\/\/|\/|!)/.test(pattern) ? pattern : `/${pattern}`)),
    uri: url.startsWith('./') ? pathToFileURL(join(extensionDir, url.slice(2))).toString() : url,
  }));
}

describe('yaml-language-server picks the schema up for .flux-job-guard.yaml', () => {
  let connection: ProtocolConnection;
  let stop: () => void;
  let repo: string;
  const published = new Map<string, Diagnostic[]>();
  const waiters: Array<() => void> = [];

  before(async () => {
    const server = spawn(process.execPath, [YAML_LS, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    stop = () => server.kill();
    connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
    connection.onNotification('textDocument/publishDiagnostics', (params: { uri: string; diagnostics: Diagnostic[] }) => {
      published.set(params.uri, params.diagnostics);
      for (const wake of waiters.splice(0)) wake();
    });
    const yamlSettings = { validate: true, hover: true, completion: true, format: { enable: false }, schemaStore: { enable: false, url: '' }, schemas: {}, customTags: [], yamlVersion: '1.2' };
    connection.onRequest('workspace/configuration', (params: { items: Array<{ section?: string }> }) =>
      params.items.map((item) => (item.section === 'yaml' ? yamlSettings : item.section === 'http' ? { proxy: '', proxyStrictSSL: false } : {})),
    );
    for (const method of ['client/registerCapability', 'client/unregisterCapability', 'window/workDoneProgress/create', 'window/showMessageRequest']) connection.onRequest(method, () => null);
    connection.listen();
    repo = tempRepo('fjg-yaml-ls-', { 'placeholder.txt': '' });
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(repo).toString(),
      workspaceFolders: [{ uri: pathToFileURL(repo).toString(), name: 'repo' }],
      capabilities: {
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
        textDocument: { completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } }, hover: { contentFormat: ['markdown', 'plaintext'] } },
      },
    });
    await connection.sendNotification('initialized', {});
    await connection.sendNotification('json/schemaAssociations', associationsFor(ROOT));
  });

  after(() => {
    connection?.dispose();
    stop?.();
    removeTempRepos();
  });

  /** Opens a document and waits (polling on every publish, 30 s at most) until its diagnostics satisfy `accept`. */
  async function openAndWait(name: string, text: string, accept: (diagnostics: Diagnostic[]) => boolean): Promise<{ uri: string; diagnostics: Diagnostic[] }> {
    const uri = pathToFileURL(join(repo, name)).toString();
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const diagnostics = published.get(uri);
      if (diagnostics && accept(diagnostics)) return { uri, diagnostics };
      if (Date.now() > deadline) throw new Error(`no accepted diagnostics for ${name}; last: ${JSON.stringify(diagnostics)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  const CONTRACT = 'ttl:\n  requird: 3600\n  noFinishTimeout:\n    - file: apps/seed.yaml\nrules:\n  \n';

  test('validation: an unknown key and a missing reason in .flux-job-guard.yaml', async () => {
    const { diagnostics } = await openAndWait('.flux-job-guard.yaml', CONTRACT, (d) => d.length >= 2);
    const messages = diagnostics.map((d) => `${d.range.start.line}: ${messageText(d)}`).join('\n');
    assert.match(messages, /^1: Property requird is not allowed\.$/m);
    assert.match(messages, /^3: Missing property "reason"\.$/m);
  });

  test('completion: the top-level keys, and every rule id under rules:', async () => {
    const uri = pathToFileURL(join(repo, '.flux-job-guard.yaml')).toString();
    type Completion = { items: Array<{ label: string }> } | Array<{ label: string }>;
    const labels = (result: Completion) => (Array.isArray(result) ? result : result.items).map((item) => item.label);
    const atRules = labels(await connection.sendRequest<Completion>('textDocument/completion', { textDocument: { uri }, position: { line: 5, character: 2 } }));
    for (const id of ['ttl-missing', 'flux-substitution-undefined', 'yaml-syntax', 'flux-no-root']) assert.ok(atRules.includes(id), `${id} among ${atRules.join(', ')}`);
    const other = pathToFileURL(join(repo, 'nested', '.flux-job-guard.yaml')).toString();
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: other, languageId: 'yaml', version: 1, text: '\n' } });
    const atTop = labels(await connection.sendRequest<Completion>('textDocument/completion', { textDocument: { uri: other }, position: { line: 0, character: 0 } }));
    assert.deepEqual(
      ['flux', 'jobs', 'rules', 'serviceAccounts', 'ttl'].filter((key) => !atTop.includes(key)),
      [],
      `top-level keys among ${atTop.join(', ')}`,
    );
  });

  test('hover: a key shows its description', async () => {
    const uri = pathToFileURL(join(repo, '.flux-job-guard.yaml')).toString();
    const hover = await connection.sendRequest<{ contents: { value: string } | string } | null>('textDocument/hover', { textDocument: { uri }, position: { line: 2, character: 4 } });
    const text = typeof hover?.contents === 'string' ? hover.contents : (hover?.contents.value ?? '');
    assert.match(text, /keep \*\*no\*\* `ttlSecondsAfterFinished`/, `hover on noFinishTimeout: ${text}`);
  });

  test('another YAML file gets no contract diagnostics (negative control)', async () => {
    const { diagnostics } = await openAndWait('apps/job.yaml', CONTRACT, () => true);
    assert.deepEqual(diagnostics, []);
  });
});
