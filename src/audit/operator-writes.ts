// Every operator write request runs in one transaction that first names its operator: the row
// triggers of migration 0014 read that name and write the audit rows in the same transaction, so
// a rolled-back change leaves no row and a committed one always has its rows (docs/audit.md).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { inRequestTransaction } from '../db/request-transaction.ts';
import type { OperatorWrite } from '../http/admin-scope.ts';

/**
 * Answers the function the admin scope runs each write request through. A write that changed no
 * audited row (e.g. the development faucet, which changes the chain only) still leaves one row:
 * entity type 'operation', the route as its id, and the path parameters (never the body, which may
 * hold a private key).
 */
export function operatorWrites(db: Kysely<DB>, clock: Clock) {
  return async function inOperatorTransaction<T>(write: OperatorWrite, work: () => Promise<T>): Promise<T> {
    return inRequestTransaction(db, async (trx) => {
      await sql`SELECT set_config('mrs.actor', json_build_object(
          'id', ${write.adminId}::text,
          'name', coalesce((SELECT name FROM admin_credentials WHERE id = ${write.adminId}::text), ''),
          'requestId', ${write.requestId}::text,
          'at', ${clock.now().toISOString()}::timestamptz)::text, true)`.execute(trx);
      const result = await work();
      const audited = await sql<{
        audited: string | null;
      }>`SELECT current_setting('mrs.audited', true) AS audited`.execute(trx);
      if (audited.rows[0]?.audited !== 'yes') {
        await sql`INSERT INTO audit_events (at, actor_id, actor_name, action, entity_type, entity_id, before, after, request_id)
          SELECT (a ->> 'at')::timestamptz, a ->> 'id', a ->> 'name', 'update', 'operation', ${write.route}::text,
                 NULL, jsonb_build_object('params', ${JSON.stringify(write.params)}::jsonb), a ->> 'requestId'
          FROM (SELECT current_setting('mrs.actor')::jsonb AS a) actor`.execute(trx);
      }
      return result;
    });
  };
}
