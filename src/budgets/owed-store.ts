// What a budget owes (OWED_CLAIM_STATUSES, src/domain/claims.ts) as a SQL condition, for the
// statements that sum it in raw SQL (src/chain/store.ts owedByBudget).
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { OWED_CLAIM_STATUSES } from '../domain/claims.ts';

/** SQL condition: the claim of alias `claim` is owed by its budget. */
export function isOwedClaim(claim: string): RawBuilder<boolean> {
  const list = sql.join(OWED_CLAIM_STATUSES.map((status) => sql.lit(status)));
  return sql<boolean>`${sql.ref(`${claim}.status`)} IN (${list})`;
}
