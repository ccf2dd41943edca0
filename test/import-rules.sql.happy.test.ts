// Where SQL lives (docs/architecture.md "Where SQL lives"), read with TypeScript's own parser:
// query building (Kysely's selectFrom / insertInto / updateTable / deleteFrom / selectNoFrom /
// mergeInto, and its `sql` template) appears only in a capability's store modules and in the
// database infrastructure (src/db), and a route file imports no store, no module that builds
// queries, nothing of src/db but types, and no value of kysely. Routes call services, services
// call stores.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

const QUERY_METHODS = new Set([
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const srcPath = (file: string) => relative(SRC, file).split(sep).join('/');

/** A store module: `store.ts`, `<name>-store.ts`, or any file of a `store/` folder. */
export const isStore = (path: string) =>
  basename(path) === 'store.ts' || basename(path).endsWith('-store.ts') || path.split('/').includes('store');
/** Infrastructure that may speak SQL itself: the connection, migrations, request transactions. */
const isDatabaseInfrastructure = (path: string) => path.startsWith('db/');
const isRoute = (path: string) => path.split('/').at(-2) === 'routes';

interface Parsed {
  /** The query-building sites, as `line: text`. */
  queries: string[];
  /** Each import: its module specifier, whether it brings values (not `import type` only). */
  imports: { specifier: string; values: boolean }[];
}

function parse(file: string): Parsed {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const queries: string[] = [];
  const imports: Parsed['imports'] = [];
  /** Local names of kysely's `sql` imported as a value. */
  const sqlNames = new Set<string>();
  const at = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    return `${line + 1}: ${(node.getText().split('\n')[0] ?? '').slice(0, 80)}`;
  };
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    let values = true;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) values = false;
      else if (clause !== undefined && clause.name === undefined) {
        const bindings = clause.namedBindings;
        if (bindings !== undefined && ts.isNamedImports(bindings))
          values = bindings.elements.some((element) => !element.isTypeOnly);
      }
      const bindings = clause?.namedBindings;
      if (
        specifier.text === 'kysely' &&
        !clause?.isTypeOnly &&
        bindings !== undefined &&
        ts.isNamedImports(bindings)
      )
        for (const element of bindings.elements)
          if (!element.isTypeOnly && (element.propertyName ?? element.name).text === 'sql')
            sqlNames.add(element.name.text);
    } else if (statement.isTypeOnly) values = false;
    imports.push({ specifier: specifier.text, values });
  }
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      QUERY_METHODS.has(node.expression.name.text)
    )
      queries.push(at(node));
    else if (ts.isIdentifier(node) && sqlNames.has(node.text) && !ts.isImportSpecifier(node.parent))
      queries.push(at(node.parent));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { queries, imports };
}

const files = new Map(sourceFiles(SRC).map((file) => [srcPath(file), { file, ...parse(file) }]));
const buildsQueries = (path: string) => (files.get(path)?.queries.length ?? 0) > 0;

function resolve(specifier: string, from: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = join(dirname(from), specifier);
  return target.startsWith(SRC + sep) ? srcPath(target) : undefined;
}

describe('where SQL lives', () => {
  it('finds the query building it looks for', () => {
    // The detector itself: a store is found building queries, in both forms.
    expect(files.get('audit/store.ts')?.queries.some((q) => q.includes('selectFrom'))).toBe(true);
    expect([...files.values()].some(({ queries }) => queries.some((q) => /\bsql\b/.test(q)))).toBe(true);
    expect(isStore('chain/payout-store.ts') && isStore('x/store/y.ts') && !isStore('x/restore.ts')).toBe(
      true,
    );
  });

  it('builds queries only in store modules and src/db', () => {
    const outside = [...files]
      .filter(
        ([path, { queries }]) => queries.length > 0 && !isStore(path) && !isDatabaseInfrastructure(path),
      )
      .map(([path, { queries }]) => `${path} (${queries[0]})`);
    expect(outside).toEqual([]);
  });

  it('keeps route files to services: no store, no query-building module, no src/db value, no kysely value', () => {
    const routeFiles = [...files.keys()].filter(isRoute);
    expect(routeFiles.length).toBeGreaterThan(80);
    const offences = routeFiles.flatMap((path) => {
      const { file, imports, queries } = files.get(path) as Parsed & { file: string };
      const found = queries.map((query) => `${path} builds a query (${query})`);
      for (const { specifier, values } of imports) {
        if (specifier === 'kysely' && values) found.push(`${path} imports a value of kysely`);
        const target = resolve(specifier, file);
        if (target === undefined) continue;
        if (isStore(target)) found.push(`${path} imports the store ${target}`);
        else if (target.startsWith('db/') && values) found.push(`${path} imports ${target}`);
        else if (buildsQueries(target)) found.push(`${path} imports ${target}, which builds queries`);
      }
      return [...new Set(found)];
    });
    expect(offences).toEqual([]);
  });
});
