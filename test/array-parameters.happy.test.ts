// Arrays sent as statement parameters come back as they were sent, on PGlite and on PostgreSQL
// (where src/db/array-literal.ts writes them for pg): quotes, backslashes, commas and braces, the
// word NULL, Korean, Thai and emoji, empty strings, nulls, 18-decimal amounts and booleans.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './harness.ts';
import type { Database } from '../src/db/database.ts';

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
});
afterAll(async () => drop());

describe('array parameters', () => {
  it('round-trip text, numeric and boolean arrays exactly', async () => {
    const texts = [
      'a "quoted" word',
      'back\\slash',
      '\\"both\\"',
      'comma, {brace}',
      'NULL',
      '',
      ' spaced ',
      '한국어 미션 제목',
      'ภารกิจภาษาไทย',
      '🎁',
      null,
      'ptn_7e5KlbCOdpDRThTs6-NUFQ',
    ];
    const amounts = [10n ** 18n * 123456789n + 1n, 0n, 1n];
    const flags = [true, false, null];
    const { rows } = await sql<{
      texts: Array<string | null>;
      amounts: string[];
      flags: Array<boolean | null>;
    }>`
      SELECT ${texts}::text[] AS texts,
             (SELECT array_agg(a::text ORDER BY n) FROM unnest(${amounts}::numeric[]) WITH ORDINALITY AS u(a, n)) AS amounts,
             ${flags}::boolean[] AS flags`.execute(database.db);
    expect(rows[0]?.texts).toEqual(texts);
    expect(rows[0]?.amounts).toEqual(amounts.map(String));
    expect(rows[0]?.flags).toEqual(flags);
  });
});
