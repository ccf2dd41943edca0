// Granting claims: each (user, source, period) at most once, the amount reserved from the budget
// (budgets/reservations.ts), operator caps counted under row locks, and the claim with its first
// history rows written in one statement (claimsCtes). Only a linked user holds budget.
import { sql } from 'kysely';
import type { RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { homeStripe } from '../domain/stripes.ts';
import { newId } from '../domain/ids.ts';
import { release, reserveMany, takeFromOneFreeStripe } from '../budgets/reservations.ts';
import { webhookOutboxCte } from '../webhooks/outbox.ts';
import { claimEvents } from '../webhooks/events.ts';

export interface Grant {
  budget: { id: string; asset_id: string; stripes: number };
  amount: bigint;
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  sourceId: string;
  periodKey: string;
  now: Date;
  /** Granted when the user linked, for a completion made before (then): the mission page says so. */
  completedBeforeLink?: Date;
  /** The W3C traceparent of the request that earned it: the payout's span links to it. */
  traceContext?: string;
}

/** Why a claim was refused: no budget left, an operator cap, or a completion too old when the user linked. */
export type RefusalReason = 'BUDGET_EXHAUSTED' | 'CAP_REACHED' | 'EXPIRED';

/** What grantClaims learns about each grant in its first statement: the user's account and the budget's caps. */
interface GrantFacts {
  accountId: string | null;
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
  for (const budgetId of [...new Set(grants.map((g) => g.budget.id))].sort()) {
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
    if (indices.every((i) => (grants[i] as Grant).amount === first.amount)) {
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
      indices.map((i) => ({ amount: (grants[i] as Grant).amount, key: userKey(grants[i] as Grant) })),
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
    const query = sql<{ id: string; status: ClaimStatus }>`
      WITH ${claimsCtes(
        grantRows(
          picked,
          rest.map((i) => ids[i] as string),
          rest.map((i) => reasons[i] ?? null),
        ),
        sql`true`,
      )}
      SELECT id, status FROM claim`;
    const inserted = new Map(
      (await trx.executeQuery(prepared('claims_grant', query.compile(trx)))).rows.map((r) => [r.id, r]),
    );
    for (const i of rest) answers[i] = inserted.get(ids[i] as string);
  }
  for (const [i, grant] of grants.entries()) {
    // Already granted for this period: give the reservation back.
    if (answers[i] === undefined && reserved[i])
      await release(trx, grant.budget.id, grant.amount, userKey(grant), grant.budget.stripes);
  }
  // A cap counts what was granted: claims written with budget (not refused, not already there).
  for (const { indices, caps } of capped) {
    await caps.commit(
      indices
        .filter((i) => answers[i] !== undefined && reserved[i])
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
  const column = <T>(pick: (g: Grant) => T) => grants.map(pick);
  const query = sql<{ account_id: string | null; per_account: string | null; per_partner: string | null }>`
    WITH input AS (
      SELECT * FROM unnest(${[...ids]}::text[], ${column((g) => g.budget.id)}::text[], ${column((g) => g.partnerId)}::text[],
                           ${column((g) => g.partnerUid)}::text[], ${column((g) => g.promotionId)}::text[], ${column((g) => g.source)}::text[],
                           ${column((g) => g.sourceId)}::text[], ${column((g) => g.periodKey)}::text[], ${column((g) => g.amount.toString())}::numeric[],
                           ${column((g) => (g.completedBeforeLink ?? g.now).toISOString())}::timestamptz[])
             WITH ORDINALITY AS i(id, budget_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, at, n)
    ), facts AS (
      SELECT i.*, m.account_id, c.per_account_per_day::text AS per_account, c.per_partner_per_day::text AS per_partner
      FROM input i
      LEFT JOIN user_mappings m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      LEFT JOIN budget_caps c ON c.budget_id = i.budget_id
    ), deferred AS (
      INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
      SELECT id, 'CLAIM', partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, at
      FROM facts WHERE account_id IS NULL
      ORDER BY partner_id, partner_uid, source, source_id, period_key
      ON CONFLICT DO NOTHING
    )
    SELECT account_id, per_account, per_partner FROM facts ORDER BY n`;
  const rows = (await trx.executeQuery(prepared('claims_defer_unlinked', query.compile(trx)))).rows;
  return rows.map((r) => ({
    accountId: r.account_id,
    perAccountPerDay: r.per_account === null ? null : BigInt(r.per_account),
    perPartnerPerDay: r.per_partner === null ? null : BigInt(r.per_partner),
  }));
}

// --- Caps ---

interface CapSubject {
  day: string;
  scope: 'ACCOUNT' | 'PARTNER';
  subject: string;
  cap: bigint;
}

/** The cap counters a grant counts against: its account's and its partner's, on the UTC day it is granted. */
function capSubjects(grant: Grant, facts: GrantFacts): CapSubject[] {
  const day = grant.now.toISOString().slice(0, 10);
  const subjects: CapSubject[] = [];
  if (facts.perAccountPerDay !== null)
    subjects.push({ day, scope: 'ACCOUNT', subject: facts.accountId as string, cap: facts.perAccountPerDay });
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
  const locked = sql<{ day: string; scope: string; subject: string; used: string }>`
    INSERT INTO cap_usage (budget_id, day, scope, subject, used)
    SELECT ${budgetId}, k.day::date, k.scope, k.subject, 0
    FROM unnest(${keys.map((k) => k.day)}::text[], ${keys.map((k) => k.scope)}::text[], ${keys.map((k) => k.subject)}::text[]) WITH ORDINALITY AS k(day, scope, subject, n)
    ORDER BY k.n
    ON CONFLICT (budget_id, day, scope, subject) DO UPDATE SET used = cap_usage.used
    RETURNING day::text AS day, scope, subject, used::text AS used`;
  const rows = (await trx.executeQuery(prepared('caps_lock', locked.compile(trx)))).rows;
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
      await sql`
        UPDATE cap_usage u SET used = u.used + v.amount
        FROM unnest(${changed.map((k) => k.day)}::text[], ${changed.map((k) => k.scope)}::text[], ${changed.map((k) => k.subject)}::text[],
                    ${changed.map((k) => (added.get(capKey(k)) as bigint).toString())}::numeric[]) AS v(day, scope, subject, amount)
        WHERE u.budget_id = ${budgetId} AND u.day = v.day::date AND u.scope = v.scope AND u.subject = v.subject`.execute(
        trx,
      );
    },
  };
}

/**
 * One statement: take the amounts of all `grants` (one budget, one amount) from a single stripe
 * nobody holds that has room for all of them, and write their claims and history. Answers per
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
  const query = sql<{ stripe: number; id: string | null; status: ClaimStatus | null }>`
    WITH ${takeFromOneFreeStripe(first.budget.id, first.budget.stripes, homeStripe(userKey(first), first.budget.stripes), total)},
         ${claimsCtes(
           grantRows(
             grants,
             ids,
             grants.map(() => null),
           ),
           sql`EXISTS (SELECT 1 FROM take)`,
         )}
    SELECT t.stripe, c.id, c.status FROM take t LEFT JOIN claim c ON true`;
  const rows = (await trx.executeQuery(prepared('claims_grant_one_stripe', query.compile(trx)))).rows;
  if (rows.length === 0) return undefined;
  const inserted = new Map(
    rows
      .filter((r) => r.id !== null)
      .map((r) => [r.id as string, { id: r.id as string, status: r.status as ClaimStatus }]),
  );
  return ids.map((id) => inserted.get(id));
}

/** The grants as rows for claimsCtes: one per grant, in order, with why it was refused (null: reserved). */
export function grantRows(
  grants: readonly Grant[],
  ids: readonly string[],
  refused: ReadonlyArray<RefusalReason | null>,
): RawBuilder<unknown> {
  const column = <T>(pick: (g: Grant) => T) => grants.map(pick);
  return sql`
    SELECT * FROM unnest(${ids}::text[], ${column((g) => g.budget.id)}::text[], ${column((g) => g.budget.asset_id)}::text[],
                         ${column((g) => g.partnerId)}::text[], ${column((g) => g.partnerUid)}::text[], ${column((g) => g.promotionId)}::text[],
                         ${column((g) => g.source)}::text[], ${column((g) => g.sourceId)}::text[], ${column((g) => g.periodKey)}::text[],
                         ${column((g) => g.amount.toString())}::numeric[], ${[...refused]}::text[],
                         ${column((g) => g.now.toISOString())}::timestamptz[], ${column((g) => g.completedBeforeLink?.toISOString() ?? null)}::timestamptz[],
                         ${column((g) => g.traceContext ?? null)}::text[])
           WITH ORDINALITY AS i(id, budget_id, asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, refused, at,
                                completed_before_link, trace_context, n)`;
}

/**
 * The CTEs `input`, `claim` and `history`: a claim for each row of `rows` (columns id, budget_id,
 * asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, refused,
 * at, completed_before_link, trace_context, n) not granted yet, only when `onlyIf` holds, each with the user's
 * account when linked, and their first history rows. A claim not refused (its amount taken) is
 * REQUESTED when its user is linked, else RESERVED (only claims of before migration 0008); a
 * refused one is REJECTED with the reason. The CTE `claim_hooks` writes their webhook messages.
 */
export function claimsCtes(rows: RawBuilder<unknown>, onlyIf: RawBuilder<unknown>) {
  return sql`
    input AS (${rows}), claim AS (
      INSERT INTO claims (id, budget_id, asset_id, partner_id, partner_uid, account_id, promotion_id, source, source_id,
                          period_key, amount, status, reason, next_attempt_at, created_at, updated_at, completed_before_link, trace_context)
      SELECT i.id, i.budget_id, i.asset_id, i.partner_id, i.partner_uid, m.account_id, i.promotion_id, i.source, i.source_id,
             i.period_key, i.amount, s.status, i.refused,
             CASE WHEN s.status = 'REQUESTED' THEN i.at END, i.at, i.at, i.completed_before_link, i.trace_context
      FROM input i
      LEFT JOIN user_mappings m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      CROSS JOIN LATERAL (SELECT CASE WHEN i.refused IS NOT NULL THEN 'REJECTED'
                                      WHEN m.account_id IS NOT NULL THEN 'REQUESTED' ELSE 'RESERVED' END AS status) s
      WHERE ${onlyIf}
      ORDER BY i.n
      ON CONFLICT (partner_id, partner_uid, source, source_id, period_key) DO NOTHING
      RETURNING id, status, reason, created_at, partner_id, partner_uid, asset_id, amount, source, source_id, period_key
    ), history AS (
      INSERT INTO claim_events (claim_id, from_status, to_status, reason, at)
      SELECT claim.id, e.from_status, e.to_status, e.reason, claim.created_at
      FROM claim CROSS JOIN LATERAL (VALUES
        (1, NULL::text, CASE WHEN claim.status = 'REQUESTED' THEN 'RESERVED' ELSE claim.status END,
            CASE WHEN claim.status = 'REJECTED' THEN claim.reason END),
        (2, 'RESERVED', 'REQUESTED', 'user is linked')
      ) AS e(n, from_status, to_status, reason)
      WHERE e.n = 1 OR claim.status = 'REQUESTED'
      ORDER BY claim.id, e.n
    ), ${webhookOutboxCte(
      'claim_hooks',
      claimEvents(
        sql`(SELECT claim.*, e.status AS moved_to FROM claim CROSS JOIN LATERAL (VALUES
               (1, CASE WHEN claim.status = 'REQUESTED' THEN 'RESERVED' ELSE claim.status END), (2, 'REQUESTED')
             ) AS e(n, status) WHERE e.n = 1 OR claim.status = 'REQUESTED' ORDER BY claim.id, e.n) c`,
        sql`c.moved_to`,
        sql`c.created_at`,
      ),
    )}`;
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
