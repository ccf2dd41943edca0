// The SQL of the completion-rate monitor (completion-rates.ts): a batch's completions counted per
// partner and window, compared with the baseline windows, and the alarms written, in one statement.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * Adds each partner's completions to this window, and raises (once per window) the alarm of those
 * whose rate reached `minCompletions` and exceeds `multiple` times their baseline; answers the
 * alarms raised now.
 */
export async function countAndCompare(
  db: Kysely<DB>,
  input: {
    partners: string[];
    counts: number[];
    now: Date;
    windowStart: Date;
    baselineFrom: Date;
    baselineWindows: number;
    minCompletions: number;
    multiple: number;
  },
) {
  const { rows } = await sql<{ partner_id: string; rate: string; baseline: string }>`
    WITH input AS (
      SELECT * FROM unnest(${input.partners}::text[], ${input.counts}::int8[]) AS i(partner_id, n)
    ), counted AS (
      INSERT INTO completion_rates (partner_id, window_start, completions)
      SELECT partner_id, ${input.windowStart}::timestamptz, n FROM input
      ORDER BY partner_id
      ON CONFLICT (partner_id, window_start) DO UPDATE SET completions = completion_rates.completions + excluded.completions
      RETURNING partner_id, completions
    ), compared AS (
      -- A join, not a correlated sub-query: Citus plans no correlated sub-query over the rows a
      -- statement wrote (docs/scaling.md "On Citus").
      SELECT c.partner_id, c.completions AS rate,
             coalesce(b.completions, 0)::numeric / ${input.baselineWindows}::numeric AS baseline
      FROM counted c
      LEFT JOIN (
        SELECT r.partner_id, sum(r.completions) AS completions FROM completion_rates r
        WHERE r.partner_id = ANY (${input.partners}::text[])
          AND r.window_start >= ${input.baselineFrom}::timestamptz AND r.window_start < ${input.windowStart}::timestamptz
        GROUP BY r.partner_id
      ) b ON b.partner_id = c.partner_id
    )
    INSERT INTO completion_alarms (partner_id, alarms, last_window, last_rate, last_baseline, last_at)
    SELECT partner_id, 1, ${input.windowStart}::timestamptz, rate, baseline, ${input.now}::timestamptz FROM compared
    WHERE rate >= ${input.minCompletions}::int8 AND rate > baseline * ${input.multiple}::numeric
    ORDER BY partner_id
    ON CONFLICT (partner_id) DO UPDATE
      SET alarms = completion_alarms.alarms + 1, last_window = excluded.last_window, last_rate = excluded.last_rate,
          last_baseline = excluded.last_baseline, last_at = excluded.last_at
      WHERE completion_alarms.last_window < excluded.last_window
    RETURNING partner_id, last_rate::text AS rate, last_baseline::text AS baseline`.execute(db);
  return rows;
}

/** The alarm counter per partner. */
export function completionAlarmRows(db: Kysely<DB>) {
  return db
    .selectFrom('completion_alarms')
    .select(['partner_id', 'alarms', 'last_window'])
    .orderBy('partner_id')
    .execute();
}
