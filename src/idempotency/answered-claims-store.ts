// The SQL of an idempotency key claimed and answered inside the operation's own statement
// (claim-in-statement.ts, docs/idempotency.md "In the operation's statement"): the CTE that writes
// the keys' rows as DONE with their answer. Other capabilities' stores compose it into their
// statements, as they do the webhook outbox's CTE.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { StoredAnswer } from './service.ts';

/** A key to take in the operation's statement, answered with `answer` if the statement commits. */
export interface AnsweredClaim {
  scope: string;
  key: string;
  fingerprint: string;
  owner: string;
  now: Date;
  expiresAt: Date;
  answer: StoredAnswer;
}

// Times go as ISO text, as in the service's other batch statements: a Date in a parameter array is
// formatted by the driver's own JavaScript (the largest share of a keyed batch's parameters).
// An operation answers every request with the same answer object (achieve's empty 200), so its
// headers are serialised once, not once per key.
const headersJsonOf = new WeakMap<StoredAnswer['headers'], string>();
function headersJson(headers: StoredAnswer['headers']): string {
  let json = headersJsonOf.get(headers);
  if (json === undefined) {
    json = JSON.stringify(headers);
    headersJsonOf.set(headers, json);
  }
  return json;
}

/**
 * `INSERT … RETURNING scope, key` of the keys it took, for a `WITH <name> AS (…)` of the operation's
 * statement. A key is taken when it is new, when its row expired, or when a run of the same request
 * holding it stopped renewing its lease (a crashed process), the same rule as the claim of a run
 * (store.ts claimInsert). Keys must be distinct: ON CONFLICT may not touch a row twice.
 * `onlyIf` may refer to the statement's other CTEs, not to the claims' columns.
 */
export function answeredClaimsInsert(
  claims: readonly AnsweredClaim[],
  /** Claims only when this holds (the operation writes nothing otherwise). */
  onlyIf: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  const column = <T>(pick: (c: AnsweredClaim) => T) => claims.map(pick);
  return sql`
    INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, owner, locked_until, created_at, expires_at,
                                       response_status, response_headers, response_body)
    SELECT s, kk, f, 'DONE', o, c, c, e, st, h::jsonb, b
    FROM unnest(${column((c) => c.scope)}::text[], ${column((c) => c.key)}::text[], ${column((c) => c.fingerprint)}::text[],
                ${column((c) => c.owner)}::text[], ${column((c) => c.now.toISOString())}::timestamptz[],
                ${column((c) => c.expiresAt.toISOString())}::timestamptz[], ${column((c) => c.answer.status)}::int[],
                ${column((c) => headersJson(c.answer.headers))}::text[], ${column((c) => c.answer.body)}::text[])
         AS t(s, kk, f, o, c, e, st, h, b)
    WHERE ${onlyIf}
    ORDER BY s, kk
    ${takeWhenFree}
    RETURNING scope, key`;
}

/**
 * The same claims as one multi-row `INSERT ... VALUES` (a statement of its own, in the operation's
 * transaction): on Citus routed to the shard of the keys' partner, where the `INSERT ... SELECT`
 * of answeredClaimsInsert goes through the coordinator and a CTE is a sub-plan of its own
 * (docs/scaling.md "The transaction's way routed too"). Rows in key order, as there.
 */
export function answeredClaimsValues(claims: readonly AnsweredClaim[]) {
  const rows = [...claims].sort((a, b) =>
    a.scope === b.scope ? (a.key < b.key ? -1 : 1) : a.scope < b.scope ? -1 : 1,
  );
  const values = rows.map((c) => {
    const at = c.now.toISOString();
    return sql`(${c.scope}, ${c.key}, ${c.fingerprint}, 'DONE', ${c.owner}, ${at}::timestamptz, ${at}::timestamptz,
                ${c.expiresAt.toISOString()}::timestamptz, ${c.answer.status}::int, ${headersJson(c.answer.headers)}::jsonb,
                ${c.answer.body}::text)`;
  });
  return sql<{ scope: string; key: string }>`
    INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, owner, locked_until, created_at, expires_at,
                                       response_status, response_headers, response_body)
    VALUES ${sql.join(values)}
    ${takeWhenFree}
    RETURNING scope, key`;
}

/**
 * A key is taken when it is new, when its row expired, or when a run of the same request holding it
 * stopped renewing its lease (a crashed process), the same rule as the claim of a run (store.ts
 * claimInsert).
 */
const takeWhenFree = sql`
    ON CONFLICT (scope, key) DO UPDATE SET
      fingerprint = excluded.fingerprint, state = 'DONE', owner = excluded.owner,
      locked_until = excluded.locked_until, created_at = excluded.created_at, expires_at = excluded.expires_at,
      response_status = excluded.response_status, response_headers = excluded.response_headers,
      response_body = excluded.response_body
    WHERE k.expires_at <= excluded.created_at
       OR (k.state = 'RUNNING' AND k.locked_until <= excluded.created_at AND k.fingerprint = excluded.fingerprint)`;
