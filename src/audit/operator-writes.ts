// Every operator write request runs in one transaction that first names its operator: the row
// triggers of migration 0014 read that name and write the audit rows in the same transaction, so
// a rolled-back change leaves no row and a committed one always has its rows (docs/audit.md).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { inRequestTransaction } from '../db/request-transaction.ts';
import type { OperatorWrite } from '../http/admin-scope.ts';
import { auditedInTransaction, insertOperationEvent, nameOperator } from './store.ts';

/**
 * Answers the function the admin scope runs each write request through. A write that changed no
 * audited row (e.g. the development faucet, which changes the chain only) still leaves one row:
 * entity type 'operation', the route as its id, and the path parameters (never the body, which may
 * hold a private key).
 */
export function operatorWrites(db: Kysely<DB>, clock: Clock) {
  return async function inOperatorTransaction<T>(write: OperatorWrite, work: () => Promise<T>): Promise<T> {
    return inRequestTransaction(db, async (trx) => {
      await nameOperator(trx, { adminId: write.adminId, requestId: write.requestId, at: clock.now() });
      const result = await work();
      if (!(await auditedInTransaction(trx))) await insertOperationEvent(trx, write.route, write.params);
      return result;
    });
  };
}
