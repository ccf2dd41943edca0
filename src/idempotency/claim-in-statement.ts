// An idempotency key claimed and answered inside the operation's own statement (docs/idempotency.md
// "In the operation's statement"): for an operation whose answer is known before it runs (achieve
// answers an empty 200 once what it wrote has committed), the key's row is written as DONE
// with that answer by a CTE of the very statement that does the work, and the work's rows are
// written only for the keys the CTE took. Claim, work and answer commit together or not at all:
// one round trip instead of three, and no RUNNING row a crash could leave behind. The CTE's SQL is
// answered-claims-store.ts; this module chooses a batch's claims and reads which were taken.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AnsweredClaim } from './answered-claims-store.ts';
import { answeredClaimsValues } from './answered-claims-store.ts';

export { answeredClaimsInsert } from './answered-claims-store.ts';
export type { AnsweredClaim } from './answered-claims-store.ts';

// A key is printable ASCII without spaces and a scope names a partner or an admin credential:
// neither holds a line break, so the pair joined by one is unambiguous.
const claimId = (claim: { scope: string; key: string }) => `${claim.scope}\n${claim.key}`;

/**
 * The claims of a batch of items that may carry one: one per key (ON CONFLICT may not touch a row
 * twice), the first item's. `written` is the batch as the operation's statement is to see it: an
 * item whose key went to another item keeps its claim with a key no claim row answers for (keys are
 * never empty), so it is not written (its request learns the key's state the usual way).
 */
export function claimsOfBatch<R extends { claim?: AnsweredClaim | undefined }>(
  items: readonly R[],
): { claims: AnsweredClaim[]; written: R[] } {
  const chosen = new Map<string, AnsweredClaim>();
  for (const { claim } of items) {
    if (claim === undefined) continue;
    const id = claimId(claim);
    if (!chosen.has(id)) chosen.set(id, claim);
  }
  const claims = new Set(chosen.values());
  const written = items.map((item) =>
    item.claim === undefined || claims.has(item.claim)
      ? item
      : { ...item, claim: { ...item.claim, key: '' } },
  );
  return { claims: [...claims], written };
}

/** Which claims of a batch the statement took, from the (scope, key) rows its claims CTE answered. */
export function takenClaims(
  claims: readonly AnsweredClaim[],
  rows: ReadonlyArray<{ scope?: string | null; key?: string | null }>,
): Set<AnsweredClaim> {
  const keys = new Set<string>();
  for (const { scope, key } of rows) if (scope != null && key != null) keys.add(claimId({ scope, key }));
  return new Set(claims.filter((c) => keys.has(claimId(c))));
}

/**
 * Takes a batch's claims as a statement of their own, in the operation's transaction (on Citus, where
 * the work is routed statements too: docs/idempotency.md "In the operation's statement"); answers
 * those taken. The work must then write only the items whose claim was taken, in the same transaction.
 */
export async function takeAnsweredClaims(
  trx: Kysely<DB>,
  claims: readonly AnsweredClaim[],
): Promise<Set<AnsweredClaim>> {
  if (claims.length === 0) return new Set();
  const { rows } = await answeredClaimsValues(claims).execute(trx);
  return takenClaims(claims, rows);
}
