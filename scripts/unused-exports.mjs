// Dead code ESLint cannot see: an export of server/src or client/src that nothing references.
// (no-unused-vars stops at the module's edge.) Uses TypeScript's own find-references over the
// program tsconfig.json compiles, tests and benchmarks included, so an export only a test uses
// counts as used. Exits 1 and lists each unused export as file:line: name.
import { createRequire } from 'node:module';
import path from 'node:path';

const ts = createRequire(import.meta.url)('typescript');
const root = path.resolve(import.meta.dirname, '..');

/** Exports read by a host, not by our code: the extension's entry points, and the rule catalogue (enumerated with Object.values). */
const ENTRY_POINTS = new Map([
  ['client/src/extension-node.ts', new Set(['activate', 'deactivate'])],
  ['client/src/extension-browser.ts', new Set(['activate', 'deactivate'])],
  ['server/src/engine/rules/catalogue.ts', null],
]);

const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
const service = ts.createLanguageService(
  {
    getScriptFileNames: () => config.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => (ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file)) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => config.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
  },
  ts.createDocumentRegistry(),
);

function exportedNames(node) {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) return [];
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((declaration) => declaration.name).filter(ts.isIdentifier);
  return node.name ? [node.name] : [];
}

const unused = [];
for (const source of service.getProgram().getSourceFiles()) {
  const file = path.relative(root, source.fileName);
  if (!file.startsWith('server/src/') && !file.startsWith('client/src/')) continue;
  const allowed = ENTRY_POINTS.get(file);
  if (allowed === null) continue;
  ts.forEachChild(source, (node) => {
    for (const name of exportedNames(node)) {
      if (allowed?.has(name.text)) continue;
      const references = (service.findReferences(source.fileName, name.getStart(source)) ?? []).flatMap((symbol) => symbol.references);
      if (references.some((reference) => !reference.isDefinition)) continue;
      unused.push(`${file}:${source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1}: ${name.text}`);
    }
  });
}
if (unused.length > 0) {
  console.error(`unused exports (nothing references them; remove them):\n${unused.map((line) => `  ${line}`).join('\n')}`);
  process.exitCode = 1;
}
