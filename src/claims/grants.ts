// Granting claims: each (user, source, period) at most once, the amount reserved from the budget
// (budgets/reservations.ts), operator caps counted under row locks, and the claim with its first
// history rows written in one statement (claimsCtes). Only a linked user holds budget.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { homeStripe } from '../domain/stripes.ts';
import { newId } from '../domain/ids.ts';
import { releaseMany, reserveMany, stripeOwner } from '../budgets/reservations.ts';
import {
  addCapUsage,
  claimFromOneFreeStripeRows,
  deferUnlinkedGrants,
  insertClaims,
  lockCapUsage,
} from './grant-store.ts';
import type { Grant, RefusalReason } from './grant-store.ts';
import {
  claimFromOneFreeStripeRouted,
  insertGrantClaimsRouted,
  routedClaimOf,
} from './routed-claims-store.ts';
import { onCitusCoordinator } from '../db/citus.ts';

export type { Grant, RefusalReason } from './grant-store.ts';
export { claimsCtes, grantRows } from './grant-store.ts';

/** What grantClaims learns about each grant in its first statement: the user's account and the budget's caps. */
interface GrantFacts {
  accountId: string | null;
  /** The payout address the account has bound (lower case), if any: caps count per address too. */
  address: string | null;
  perAccountPerDay: bigint | null;
  perPartnerPerDay: bigint | null;
}

/**
 * Creates the claims of many grants, each (user, source, period) at most once, and reserves their
 * amounts, budget by budget in id order (so that concurrent granters never wait on each other in
 * a cycle). Only a linked user holds budget (DESIGN.md 4): the grant of a user who has not linked
 * becomes a deferred reward (no claim, nothing taken), granted when the user links
 * (grantDeferredRewards). A linked user's claim is REQUESTED at once; past a cap of the budget or
 * with no budget left it is REJECTED (CAP_REACHED, BUDGET_EXHAUSTED). A grant whose claim already
 * exists (or that repeats one earlier in the list) gets undefined, and its reservation goes back
 * to the budget. Answers per grant, in the order given (undefined also for a deferred grant).
 *
 * The usual case (a crowd completing one mission) takes one statement per budget: when all of a
 * budget's grants are of one amount and a stripe nobody holds has room for all of them, the take
 * and the claims are written together. Otherwise reserveMany shares out the budget (stripes,
 * savepoint, ordered gather) and one statement at the end writes the claims of those grants.
 * Caps, when the budget has them, are read and locked before its stripes and updated after.
 */
export async function grantClaims(
  trx: Transaction<DB>,
  grants: readonly Grant[],
): Promise<Array<{ id: string; status: ClaimStatus } | undefined>> {
  const answers: Array<{ id: string; status: ClaimStatus } | undefined> = grants.map(() => undefined);
  if (grants.length === 0) return answers;
  const ids = grants.map(() => newId('clm'));
  const facts = await deferUnlinked(trx, grants, ids);
  const reasons: Array<RefusalReason | null> = grants.map(() => null);
  const reserved = grants.map(() => false);
  const rest: number[] = [];
  const capped: Array<{ indices: number[]; caps: LockedCaps }> = [];
  const budgetIds = [...new Set(grants.map((g) => g.budget.id))].sort();
  for (const budgetId of budgetIds) {
    const all = grants.flatMap((g, i) => (g.budget.id === budgetId && facts[i]?.accountId ? [i] : []));
    if (all.length === 0) continue;
    const budgetFacts = facts[all[0] as number] as GrantFacts;
    let indices = all;
    if (budgetFacts.perAccountPerDay !== null || budgetFacts.perPartnerPerDay !== null) {
      const caps = await lockCaps(
        trx,
        budgetId,
        all.map((i) => capSubjects(grants[i] as Grant, facts[i] as GrantFacts)),
      );
      const allowed = all.filter((i) =>
        caps.admit(capSubjects(grants[i] as Grant, facts[i] as GrantFacts), (grants[i] as Grant).amount),
      );
      for (const i of all) if (!allowed.includes(i)) reasons[i] = 'CAP_REACHED';
      rest.push(...all.filter((i) => !allowed.includes(i)));
      capped.push({ indices: all, caps });
      indices = allowed;
      if (indices.length === 0) continue;
    }
    const first = grants[indices[0] as number] as Grant;
    const owner = stripeOwner(first.partnerId);
    const same = (i: number) =>
      (grants[i] as Grant).amount === first.amount && stripeOwner((grants[i] as Grant).partnerId) === owner;
    // The claims and the take at once: only for grants of one budget (a transaction that has
    // written claims must not then wait for a stripe: a refill, the last units, the next budget).
    // It writes and locks nothing when no free stripe has room (no savepoint to go back to).
    if (budgetIds.length === 1 && indices.every(same)) {
      const taken = await claimFromOneFreeStripe(
        trx,
        indices.map((i) => grants[i] as Grant),
        indices.map((i) => ids[i] as string),
      );
      if (taken) {
        indices.forEach((i, j) => {
          reserved[i] = true;
          answers[i] = taken[j];
        });
        continue;
      }
    }
    const covered = await reserveMany(
      trx,
      budgetId,
      first.budget.stripes,
      indices.map((i) => ({
        amount: (grants[i] as Grant).amount,
        owner: stripeOwner((grants[i] as Grant).partnerId),
        key: userKey(grants[i] as Grant),
      })),
    );
    covered.forEach((ok, j) => {
      const i = indices[j] as number;
      reserved[i] = ok;
      if (!ok) reasons[i] = 'BUDGET_EXHAUSTED';
    });
    rest.push(...indices);
  }
  if (rest.length > 0) {
    const picked = rest.map((i) => grants[i] as Grant);
    const pickedIds = rest.map((i) => ids[i] as string);
    const refused = rest.map((i) => reasons[i] ?? null);
    const inserted = new Map(
      (onCitusCoordinator()
        ? await insertGrantClaimsRouted(
            trx,
            picked.map((g, j) => routedClaimOf(g, pickedIds[j] as string, refused[j] ?? null)),
          )
        : await insertClaims(trx, picked, pickedIds, refused)
      ).map((r) => [r.id, { id: r.id, status: r.status }]),
    );
    for (const i of rest) answers[i] = inserted.get(ids[i] as string);
  }
  // Already granted for this period (to this partner user, or to the person through another one):
  // give the reservations back (one statement, stripes in order).
  await releaseMany(
    trx,
    grants.flatMap((grant, i) =>
      (answers[i] === undefined || answers[i]?.status === 'REJECTED') && reserved[i]
        ? [
            {
              budgetId: grant.budget.id,
              stripes: grant.budget.stripes,
              partnerId: grant.partnerId,
              key: userKey(grant),
              amount: grant.amount,
            },
          ]
        : [],
    ),
  );
  // A cap counts what was granted: claims written with budget (not refused, not already there).
  for (const { indices, caps } of capped) {
    await caps.commit(
      indices
        .filter((i) => answers[i] !== undefined && answers[i]?.status !== 'REJECTED' && reserved[i])
        .map((i) => ({
          subjects: capSubjects(grants[i] as Grant, facts[i] as GrantFacts),
          amount: (grants[i] as Grant).amount,
        })),
    );
  }
  return answers;
}

/**
 * One statement: each grant's account (its user's link) and its budget's caps; the grants of users
 * who have not linked are written as deferred rewards (no claim, nothing taken from the budget).
 * Read in one snapshot, so each grant is either deferred or granted, never both.
 */
async function deferUnlinked(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
): Promise<GrantFacts[]> {
  const rows = await deferUnlinkedGrants(trx, grants, ids);
  return rows.map((r) => ({
    accountId: r.account_id,
    address: r.address,
    perAccountPerDay: r.per_account === null ? null : BigInt(r.per_account),
    perPartnerPerDay: r.per_partner === null ? null : BigInt(r.per_partner),
  }));
}

// --- Caps ---

interface CapSubject {
  day: string;
  scope: 'ACCOUNT' | 'PARTNER' | 'ADDRESS';
  subject: string;
  cap: bigint;
}

/**
 * The cap counters a grant counts against, on the UTC day it is granted: its account's, its payout
 * address's (the per-account cap bounds every account bound to one address together: one wallet,
 * many accounts, collects no more than one account), and its partner's.
 */
function capSubjects(grant: Grant, facts: GrantFacts): CapSubject[] {
  const day = grant.now.toISOString().slice(0, 10);
  const subjects: CapSubject[] = [];
  if (facts.perAccountPerDay !== null) {
    subjects.push({ day, scope: 'ACCOUNT', subject: facts.accountId as string, cap: facts.perAccountPerDay });
    if (facts.address !== null)
      subjects.push({ day, scope: 'ADDRESS', subject: facts.address, cap: facts.perAccountPerDay });
  }
  if (facts.perPartnerPerDay !== null)
    subjects.push({ day, scope: 'PARTNER', subject: grant.partnerId, cap: facts.perPartnerPerDay });
  return subjects;
}

const capKey = (s: Pick<CapSubject, 'day' | 'scope' | 'subject'>) =>
  `${s.day}\u0000${s.scope}\u0000${s.subject}`;

interface LockedCaps {
  /** Whether `amount` fits under every cap of `subjects` (counting what was admitted before); if so, counts it. */
  admit(subjects: CapSubject[], amount: bigint): boolean;
  /** Writes what was granted in the end (admitted, written and reserved) to the locked counters. */
  commit(granted: Array<{ subjects: CapSubject[]; amount: bigint }>): Promise<void>;
}

/**
 * Locks the cap counters of a budget that the grants count against (creating missing ones at 0),
 * in key order, so concurrent granters never pass a cap and never wait on each other in a cycle;
 * they stay locked until the transaction ends, which lets the counts be decided here and written
 * after the budget has answered. Two statements: the upsert that locks, and the final update.
 */
async function lockCaps(
  trx: Transaction<DB>,
  budgetId: string,
  subjectsPerGrant: CapSubject[][],
): Promise<LockedCaps> {
  const unique = new Map<string, CapSubject>();
  for (const s of subjectsPerGrant.flat()) unique.set(capKey(s), s);
  const keys = [...unique.values()].sort((a, b) => (capKey(a) < capKey(b) ? -1 : 1));
  const rows = await lockCapUsage(trx, budgetId, keys);
  const used = new Map(
    rows.map((r) => [
      capKey({ day: r.day, scope: r.scope as CapSubject['scope'], subject: r.subject }),
      BigInt(r.used),
    ]),
  );
  const admitted = new Map<string, bigint>();
  return {
    admit(subjects, amount) {
      const fits = subjects.every(
        (s) => (used.get(capKey(s)) ?? 0n) + (admitted.get(capKey(s)) ?? 0n) + amount <= s.cap,
      );
      if (fits) for (const s of subjects) admitted.set(capKey(s), (admitted.get(capKey(s)) ?? 0n) + amount);
      return fits;
    },
    async commit(granted) {
      const added = new Map<string, bigint>();
      for (const g of granted)
        for (const s of g.subjects) added.set(capKey(s), (added.get(capKey(s)) ?? 0n) + g.amount);
      const changed = keys.filter((k) => added.has(capKey(k)));
      if (changed.length === 0) return;
      await addCapUsage(
        trx,
        budgetId,
        changed.map((k) => ({ ...k, amount: added.get(capKey(k)) as bigint })),
      );
    },
  };
}

/**
 * One statement: take the amounts of all `grants` (one budget, one partner, one amount) from a
 * single stripe of the partner's nobody holds that has room for all of them, and write their claims and history. Answers per
 * grant the claim written (undefined: it already existed), or undefined when no free stripe had
 * room; then nothing was taken, written or locked.
 */
async function claimFromOneFreeStripe(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
) {
  const first = grants[0] as Grant;
  const total = first.amount * BigInt(grants.length);
  const home = homeStripe(userKey(first), first.budget.stripes);
  if (onCitusCoordinator()) {
    const written = await claimFromOneFreeStripeRouted(
      trx,
      grants.map((g, j) => routedClaimOf(g, ids[j] as string, null)),
      first.budget.stripes,
      home,
      total,
    );
    if (written === undefined) return undefined;
    const byId = new Map(written.map((c) => [c.id, { id: c.id, status: c.status }]));
    return ids.map((id) => byId.get(id));
  }
  const rows = await claimFromOneFreeStripeRows(trx, grants, ids, home, total);
  if (rows.length === 0) return undefined;
  const inserted = new Map(
    rows
      .filter((r) => r.id !== null)
      .map((r) => [r.id as string, { id: r.id as string, status: r.status as ClaimStatus }]),
  );
  return ids.map((id) => inserted.get(id));
}

function userKey(grant: Pick<Grant, 'partnerId' | 'partnerUid'>): string {
  return `${grant.partnerId}:${grant.partnerUid}`;
}

/** One grant on its own (a draw's prize, say). */
export async function grantClaim(
  trx: Transaction<DB>,
  grant: Grant,
): Promise<{ id: string; status: ClaimStatus } | undefined> {
  const [answer] = await grantClaims(trx, [grant]);
  return answer;
}
