// The rule registry (server/src/engine/rules/registry.ts) is the one list of rules: every id has
// its module rules/<id>.ts; no other source file writes a rule id as a string; the contract's
// JSON Schema, the fluxJobGuard.rules setting and docs/rules.md (its index, its headings, each
// heading's default severity) agree with it. Each check is a function over texts, run here on the
// repository and, as its negative control, on a planted disagreement that must go red.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as ts from 'typescript';
import { RULES } from '../server/src/engine/rules/registry';
import type { Rule } from '../server/src/engine/rules/rule';

const ROOT = join(__dirname, '..', '..');
const RULES_DIR = join(ROOT, 'server', 'src', 'engine', 'rules');
/** The modules of rules/ that are the rules' frame, not a rule. */
const FRAME = new Set(['rule.ts', 'registry.ts', 'finding.ts', 'docs.ts']);
const IDS = RULES.map((rule) => rule.meta.id);
const load = createRequire(__filename);

/** Rule modules that are not in the registry, and registry ids without their module. */
function moduleProblems(ids: readonly string[], moduleFiles: readonly string[]): string[] {
  const modules = moduleFiles.filter((file) => !FRAME.has(file)).map((file) => file.replace(/\.ts$/, ''));
  return [
    ...modules.filter((module) => !ids.includes(module)).map((module) => `rules/${module}.ts is not in the registry`),
    ...ids.filter((id) => !modules.includes(id)).map((id) => `${id} has no module rules/${id}.ts`),
  ];
}

/** String literals spelling a rule id, outside that rule's own module: `file: 'id'`. */
function literalIds(ids: readonly string[], sources: ReadonlyArray<{ file: string; text: string }>): string[] {
  const known = new Set(ids);
  const found: string[] = [];
  for (const { file, text } of sources) {
    const own = /(?:^|\/)rules\/([^/]+)\.ts$/.exec(file)?.[1];
    const visit = (node: ts.Node): void => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && known.has(node.text) && node.text !== own) found.push(`${file}: '${node.text}'`);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  }
  return found;
}

/** Where a list of ids disagrees with the registry. */
function sameIds(ids: readonly string[], listed: readonly string[], where: string): string[] {
  return [...ids.filter((id) => !listed.includes(id)).map((id) => `${where} lacks ${id}`), ...listed.filter((id) => !ids.includes(id)).map((id) => `${where} names ${id}, which is no rule`)];
}

/** docs/rules.md against the registry: the index at the top, one `### id` heading per rule, and the default severity it states. */
function docsProblems(rules: readonly Rule[], markdown: string): string[] {
  const ids = rules.map((rule) => rule.meta.id);
  const index = [...markdown.split(/\n(?=#)/)[0].matchAll(/\[([a-z-]+)\]\(#\1\)/g)].map((match) => match[1]);
  const headings = [...markdown.matchAll(/^### ([a-z-]+)\n\*\*(\w+)/gm)];
  const problems = [
    ...sameIds(ids, index, 'the index of docs/rules.md'),
    ...sameIds(
      ids,
      headings.map((match) => match[1]),
      'the headings of docs/rules.md',
    ),
  ];
  for (const [, id, severity] of headings) {
    const rule = rules.find((candidate) => candidate.meta.id === id);
    if (rule && rule.meta.defaultSeverity !== severity) problems.push(`docs/rules.md says ${id} is ${severity}, the registry ${rule.meta.defaultSeverity}`);
  }
  return problems;
}

function sourceFiles(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [{ file: path.slice(ROOT.length + 1), text: readFileSync(path, 'utf8') }] : [];
  });
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the rule registry', () => {
  test('lists every rule once, each with its module rules/<id>.ts that exports it', () => {
    assert.equal(new Set(IDS).size, IDS.length, 'ids are unique');
    assert.deepEqual(
      moduleProblems(
        IDS,
        readdirSync(RULES_DIR).filter((file) => file.endsWith('.ts')),
      ),
      [],
    );
    for (const rule of RULES) {
      const module = load(join(__dirname, '..', 'server', 'src', 'engine', 'rules', `${rule.meta.id}.js`)) as Record<string, unknown>;
      assert.ok(Object.values(module).includes(rule), `rules/${rule.meta.id}.ts exports the rule the registry lists`);
      // Ruff's shape: what it does, why it matters, an example, the fix.
      assert.match(
        readFileSync(join(RULES_DIR, `${rule.meta.id}.ts`), 'utf8'),
        new RegExp(
          `^/\\*\\*\\n \\* ${rule.meta.id} \\(${rule.meta.defaultSeverity === 'off' ? 'off by default' : rule.meta.defaultSeverity}\\): [\\s\\S]*Why it matters: [\\s\\S]*Example[\\s\\S]*Fix[\\s\\S]*\\*/`,
        ),
        `${rule.meta.id}: its doc comment`,
      );
    }
  });

  test('negative control: a module the registry misses, or an id without its module, is found', () => {
    assert.deepEqual(moduleProblems(['ttl-missing'], ['ttl-missing.ts', 'ttl-new.ts', 'rule.ts']), ['rules/ttl-new.ts is not in the registry']);
    assert.deepEqual(moduleProblems(['ttl-missing', 'ttl-gone'], ['ttl-missing.ts']), ['ttl-gone has no module rules/ttl-gone.ts']);
  });

  test('no source file but the rule module writes a rule id as a string', () => {
    assert.deepEqual(literalIds(IDS, [...sourceFiles(join(ROOT, 'server', 'src')), ...sourceFiles(join(ROOT, 'client', 'src'))]), []);
  });

  test('negative control: a rule id written as a string outside its module is found, in its own module it is not', () => {
    const sources = [
      { file: 'server/src/engine/pipeline/x.ts', text: "if (finding.rule === 'ttl-missing') skip();\nconst other = `yaml-syntax`;\nconst fine = 'flux-system';" },
      { file: 'server/src/engine/rules/ttl-missing.ts', text: "export const ttlMissing = { meta: { id: 'ttl-missing' } };" },
    ];
    assert.deepEqual(literalIds(IDS, sources), ["server/src/engine/pipeline/x.ts: 'ttl-missing'", "server/src/engine/pipeline/x.ts: 'yaml-syntax'"]);
  });

  test('the JSON Schema and the fluxJobGuard.rules setting name exactly the registry', () => {
    const schema = JSON.parse(read('schemas/flux-job-guard.schema.json')) as { properties: { rules: { properties: Record<string, unknown> } } };
    const manifest = JSON.parse(read('package.json')) as { contributes: { configuration: { properties: Record<string, { propertyNames: { enum: string[] } }> } } };
    assert.deepEqual(sameIds(IDS, Object.keys(schema.properties.rules.properties), 'the schema'), []);
    assert.deepEqual(sameIds(IDS, manifest.contributes.configuration.properties['fluxJobGuard.rules'].propertyNames.enum, 'the fluxJobGuard.rules setting'), []);
  });

  test('docs/rules.md indexes and documents every rule with its default severity', () => {
    assert.deepEqual(docsProblems(RULES, read('docs/rules.md')), []);
  });

  test('negative control: docs/rules.md without a rule, with a rule too many, or with another severity, disagrees', () => {
    const markdown = read('docs/rules.md');
    const [ttlMissing] = RULES;
    assert.ok(docsProblems(RULES, markdown.replace(/^### ttl-forbidden\n/m, '### ttl-forbidden-old\n')).includes('the headings of docs/rules.md lacks ttl-forbidden'));
    assert.ok(docsProblems(RULES, markdown.replace('[ttl-invalid](#ttl-invalid), ', '')).includes('the index of docs/rules.md lacks ttl-invalid'));
    assert.ok(docsProblems([...RULES, { meta: { id: 'ttl-new', defaultSeverity: 'warning', summary: '' } }], markdown).includes('the headings of docs/rules.md lacks ttl-new'));
    assert.ok(docsProblems(RULES, markdown.replace(/^(### ttl-missing\n)\*\*error/m, '$1**warning')).includes(`docs/rules.md says ${ttlMissing.meta.id} is warning, the registry error`));
    assert.deepEqual(sameIds(IDS, [...IDS, 'ttl-new'], 'the schema'), ['the schema names ttl-new, which is no rule']);
  });
});
