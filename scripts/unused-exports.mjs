// Dead code ESLint cannot see: an export of server/src or client/src that nothing references.
// (no-unused-vars stops at the module's edge.) Uses TypeScript's own find-references over the
// program tsconfig.json compiles, tests and benchmarks included, so an export only a test uses
// counts as used. An entry of an export list (`export { a, b as c }`, `export { x } from './y'`)
// names something declared elsewhere, so find-references would count the declaration's own uses:
// it counts as used only when a module imports that name from this one (or imports all of it).
// Exits 1 and lists each unused export as file:line: name.
import { createRequire } from 'node:module';
import path from 'node:path';

const ts = createRequire(import.meta.url)('typescript');
const root = path.resolve(import.meta.dirname, '..');

/** Exports read by a host, not by our code: the extension's entry points. */
const ENTRY_POINTS = new Map([
  ['client/src/extension-node.ts', new Set(['activate', 'deactivate'])],
  ['client/src/extension-browser.ts', new Set(['activate', 'deactivate'])],
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

/** For each module, the names other modules import from it (`*`: a namespace import or `export *`). */
function importedNames(program) {
  const byModule = new Map();
  const add = (from, specifier, names) => {
    const resolved = ts.resolveModuleName(specifier, from, config.options, ts.sys).resolvedModule;
    if (!resolved) return;
    const target = path.resolve(resolved.resolvedFileName);
    if (!byModule.has(target)) byModule.set(target, new Set());
    for (const name of names) byModule.get(target).add(name);
  };
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile) continue;
    for (const statement of source.statements) {
      if (!statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const specifier = statement.moduleSpecifier.text;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        const bindings = clause?.namedBindings;
        const names = [];
        if (clause?.name) names.push('default');
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
        add(source.fileName, specifier, names);
      } else if (ts.isExportDeclaration(statement)) {
        const clause = statement.exportClause;
        const names = !clause || ts.isNamespaceExport(clause) ? ['*'] : clause.elements.map((element) => (element.propertyName ?? element.name).text);
        add(source.fileName, specifier, names);
      }
    }
  }
  return byModule;
}

/** The entries of a module's export lists: `export { a }` and `export { a } from './b'`. */
function exportListNames(node) {
  if (!ts.isExportDeclaration(node) || !node.exportClause || !ts.isNamedExports(node.exportClause)) return [];
  return node.exportClause.elements.map((element) => element.name);
}

const program = service.getProgram();
const imported = importedNames(program);
const unused = [];
for (const source of program.getSourceFiles()) {
  const file = path.relative(root, source.fileName);
  if (!file.startsWith('server/src/') && !file.startsWith('client/src/')) continue;
  const allowed = ENTRY_POINTS.get(file);
  if (allowed === null) continue;
  const importedHere = imported.get(path.resolve(source.fileName)) ?? new Set();
  ts.forEachChild(source, (node) => {
    for (const name of exportListNames(node)) {
      if (allowed?.has(name.text) || importedHere.has('*') || importedHere.has(name.text)) continue;
      unused.push(`${file}:${source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1}: ${name.text}`);
    }
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
