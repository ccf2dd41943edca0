// The import rules of docs/architecture.md, read with TypeScript's own module resolution: no import
// cycles (between files, nor between capabilities), no capability reaching into another's store,
// and the HTTP kernel (src/http) importing no capability.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
/** Folders of src/ that are infrastructure, not capabilities: the kernel may use them. */
const INFRASTRUCTURE = new Set(['http', 'db', 'domain', 'cache', 'limits', 'metrics', 'logging']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function compilerOptions(): ts.CompilerOptions {
  const file = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return ts.parseJsonConfigFileContent(file.config, ts.sys, ROOT).options;
}

/** src-relative path (with /) of each file -> the src files it imports (types and re-exports too). */
function importGraph(): Map<string, string[]> {
  const options = compilerOptions();
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles.flatMap(({ fileName }) => {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
      return resolved && resolved.startsWith(SRC + sep) && !resolved.includes(`${sep}node_modules${sep}`)
        ? [srcPath(resolved)]
        : [];
    });
    graph.set(srcPath(file), [...new Set(targets)]);
  }
  return graph;
}

const srcPath = (file: string) => relative(SRC, file).split(sep).join('/');
/** The top-level folder of a src path, or undefined for a file at the root of src/ (app.ts, config.ts ...). */
const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : undefined);

/** Every cycle of a graph, as its nodes (strongly connected components of more than one node, or a self-loop). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, indices.get(next) as number));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

describe('import rules', () => {
  it('reads the source tree', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('app.ts')).toContain('http/server.ts');
  });

  it('has no import cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no import cycle between capabilities', () => {
    const folders = new Map<string, string[]>();
    for (const { from, to } of edges) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a === undefined || b === undefined || a === b) continue;
      folders.set(a, [...new Set([...(folders.get(a) ?? []), b])]);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it("has no capability importing another's store", () => {
    const reaching = edges.filter(
      ({ from, to }) =>
        folderOf(from) !== undefined && to.endsWith('/store.ts') && folderOf(from) !== folderOf(to),
    );
    expect(reaching).toEqual([]);
  });

  it('keeps src/http a kernel that imports no capability', () => {
    const kernelImports = edges.filter(({ from, to }) => {
      const target = folderOf(to);
      return folderOf(from) === 'http' && target !== undefined && !INFRASTRUCTURE.has(target);
    });
    expect(kernelImports).toEqual([]);
  });
});
