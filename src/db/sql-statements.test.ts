import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listMigrations } from './migrate.ts';
import { splitSqlStatements } from './sql-statements.ts';

describe('a migration split into its statements', () => {
  it('splits at the semicolons between statements, and drops comment-only pieces', () => {
    expect(splitSqlStatements('CREATE TABLE a (x int);\n-- a note\nINSERT INTO a VALUES (1);\n')).toEqual([
      'CREATE TABLE a (x int)',
      '-- a note\nINSERT INTO a VALUES (1)',
    ]);
    expect(splitSqlStatements('-- only a comment;\n/* and; another */')).toEqual([]);
  });
  it('keeps semicolons inside strings, quoted names, comments and dollar-quoted bodies', () => {
    const script = [
      "INSERT INTO t VALUES ('a;b', 'it''s; fine');",
      'SELECT "odd;name" FROM t;',
      '-- a comment; with a semicolon',
      'SELECT 1 /* a; b */;',
      'CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; PERFORM 2; END $$;',
      "DO $body$ BEGIN RAISE NOTICE '%', 'x;y'; END $body$;",
      'SELECT $1::int',
    ].join('\n');
    expect(splitSqlStatements(script)).toEqual([
      "INSERT INTO t VALUES ('a;b', 'it''s; fine')",
      'SELECT "odd;name" FROM t',
      '-- a comment; with a semicolon\nSELECT 1 /* a; b */',
      'CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; PERFORM 2; END $$',
      "DO $body$ BEGIN RAISE NOTICE '%', 'x;y'; END $body$",
      'SELECT $1::int',
    ]);
  });
  it('splits every migration into statements that put together give the same script', () => {
    for (const migration of listMigrations()) {
      const statements = splitSqlStatements(migration.sql);
      expect(statements.length, migration.version).toBeGreaterThan(0);
      // Nothing lost: the statements are the script's own text, in order.
      let at = 0;
      for (const statement of statements) {
        const found = migration.sql.indexOf(statement, at);
        expect(found, `${migration.version}: ${statement.slice(0, 60)}`).toBeGreaterThanOrEqual(at);
        at = found + statement.length;
      }
    }
    // The functions of the audit and Citus migrations stay whole.
    const citus = readFileSync(new URL('./migrations/0032_citus_distribution.sql', import.meta.url), 'utf8');
    const functions = splitSqlStatements(citus).filter((s) => /CREATE OR REPLACE FUNCTION/.test(s));
    for (const fn of functions) expect(fn.trimEnd().endsWith('$$'), fn.slice(0, 80)).toBe(true);
  });
});
