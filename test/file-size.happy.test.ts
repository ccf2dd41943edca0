// No source file of src/ over 400 lines (issue #32): a file that long holds more than one
// responsibility. The data tables are exempt: the error catalog, the settings and the table types
// are lists, one entry per error, variable or table.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 400;
const DATA_TABLES = new Set(['errors.ts', 'config.ts', 'db/schema.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const lengths = new Map(
  sourceFiles(SRC).map((file) => [
    relative(SRC, file).split(sep).join('/'),
    readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length,
  ]),
);

describe('file size', () => {
  it('reads the source tree and its data tables', () => {
    expect(lengths.size).toBeGreaterThan(100);
    for (const table of DATA_TABLES) expect(lengths.get(table)).toBeGreaterThan(0);
  });

  it(`has no source file over ${MAX_LINES} lines but the data tables`, () => {
    const long = [...lengths]
      .filter(([path, lines]) => lines > MAX_LINES && !DATA_TABLES.has(path))
      .map(([path, lines]) => `${path}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
