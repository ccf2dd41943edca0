// A suite may be skipped only through test/requirements.ts, which puts the reason in its name for
// test/skipped-suites-reporter.ts to print at the end of the run: a bare `skipIf` or `.skip` would
// leave a plain `npm test` silent about what it did not run.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeUnless, firstReason, needsPostgres } from './requirements.ts';

const root = path.dirname(fileURLToPath(import.meta.url));
const here = path.basename(fileURLToPath(import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.ts') && entry.name !== here && entry.name !== 'requirements.ts'
      ? [full]
      : [];
  });
}

describe('skipped suites', () => {
  it('are skipped only through test/requirements.ts, with their reason', () => {
    const bare = testFiles(root).filter((file) =>
      /\b(describe|it|test)\.(skipIf|runIf|skip)\s*\(/.test(readFileSync(file, 'utf8')),
    );
    expect(bare.map((file) => path.relative(root, file))).toEqual([]);
  });

  it('names the first missing requirement', () => {
    expect(firstReason(undefined, 'b', 'c')).toBe('b');
    expect(firstReason(undefined, undefined)).toBeUndefined();
    const saved = process.env.DATABASE_URL;
    try {
      process.env.DATABASE_URL = '';
      expect(needsPostgres('it needs X')).toBe('it needs X: set DATABASE_URL');
      process.env.DATABASE_URL = 'postgres://127.0.0.1/db';
      expect(needsPostgres()).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
  });
});

// Skipped on purpose, with its reason in its name, so that the reporter has one line to print.
describeUnless('never met: this suite shows how a skipped suite is reported')(
  'a suite that is never run',
  () => {
    it('would fail', () => {
      expect(true).toBe(false);
    });
  },
);
