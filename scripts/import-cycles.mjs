// Import cycles ESLint cannot see: two modules of server/src or client/src that import each other,
// directly or around a longer circle. A cycle makes the load order decide what a module sees (a
// value read before the module that exports it has run is undefined), and it means two rooms are
// really one. Resolves every import with TypeScript's own module resolution (tsconfig.json's
// options); type-only imports count too, since they tie the rooms together just the same.
// Exits 1 and prints each cycle as a chain of files: a.ts -> b.ts -> a.ts.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');

/** The folders whose modules may not import each other in a circle (relative to the root). */
export const CHECKED_FOLDERS = ['server/src', 'client/src'];

/** The module specifiers a source file imports or re-exports, with whether each is for types only. */
function importsOf(source) {
  const found = [];
  const add = (specifier, typeOnly) => {
    if (specifier && ts.isStringLiteral(specifier)) found.push({ specifier: specifier.text, typeOnly });
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(statement.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(statement)) {
      const typeOnly =
        statement.isTypeOnly ||
        (statement.exportClause && ts.isNamedExports(statement.exportClause) && statement.exportClause.elements.length > 0 && statement.exportClause.elements.every((element) => element.isTypeOnly));
      add(statement.moduleSpecifier, Boolean(typeOnly));
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      add(statement.moduleReference.expression, statement.isTypeOnly);
    }
  }
  return found;
}

/**
 * The import graph of the TypeScript files under `folders` of `root`: file -> the files of those
 * folders it imports (repository-relative paths, `/`-separated). `valuesOnly` leaves out imports
 * that carry only types (erased when compiled).
 */
export function importGraph(root, folders = CHECKED_FOLDERS, { valuesOnly = false } = {}) {
  const configPath = path.join(root, 'tsconfig.json');
  const options = ts.sys.fileExists(configPath)
    ? ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined }).options
    : { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 };
  const inside = (file) => folders.some((folder) => file.startsWith(`${folder}/`));
  const relative = (file) => path.relative(root, file).split(path.sep).join('/');
  const files = folders.flatMap((folder) => ts.sys.readDirectory(path.join(root, folder), ['.ts', '.tsx', '.mts', '.cts'], ['**/*.d.ts'])).map((file) => path.resolve(file));
  const graph = new Map();
  for (const file of files.sort()) {
    const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest, false);
    const targets = new Set();
    for (const { specifier, typeOnly } of importsOf(source)) {
      if (valuesOnly && typeOnly) continue;
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const target = relative(path.resolve(resolved.resolvedFileName));
      if (inside(target) && !target.endsWith('.d.ts')) targets.add(target);
    }
    graph.set(relative(file), [...targets].sort());
  }
  return graph;
}

/** The strongly connected components of a graph (Tarjan), each a list of its nodes. */
function components(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest path from `from` back to itself inside `members` (breadth first). */
function shortestCycle(graph, from, members) {
  const previous = new Map([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === from) {
        const chain = [from];
        for (let at = node; at !== from; at = previous.get(at)) chain.splice(1, 0, at);
        return [...chain, from];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return null;
}

/**
 * The cycles of an import graph: for every module that lies on one, the shortest cycle through it
 * (once each), as a chain of files that starts and ends with the same file.
 */
export function findCycles(graph) {
  const cycles = new Map();
  for (const component of components(graph)) {
    const members = new Set(component);
    if (component.length === 1 && !(graph.get(component[0]) ?? []).includes(component[0])) continue;
    for (const node of [...component].sort()) {
      const cycle = shortestCycle(graph, node, members);
      if (!cycle) continue;
      // The same circle found from another of its files: keyed by its files starting at the smallest.
      const ring = cycle.slice(0, -1);
      const start = ring.indexOf([...ring].sort()[0]);
      const key = [...ring.slice(start), ...ring.slice(0, start)].join(' -> ');
      if (!cycles.has(key)) cycles.set(key, cycle);
    }
  }
  return [...cycles.values()];
}

/** The import cycles under `folders` of `root`, each a chain of files. */
export function importCycles(root, folders = CHECKED_FOLDERS) {
  return findCycles(importGraph(root, folders));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..');
  const cycles = importCycles(root);
  if (cycles.length > 0) {
    console.error(`import cycles (move what both sides need into a module below them):\n${cycles.map((cycle) => `  ${cycle.join(' -> ')}`).join('\n')}`);
    process.exitCode = 1;
  }
}
