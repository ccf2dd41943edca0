// Lucky draws: an operator schedules a draw among the RECEIVED tickets of a LUCKY_DRAW budget (or of
// one mission); the service publishes a commitment to a secret seed at once and the seed after the
// draw, so anyone can recompute the winners (domain/draws.ts, docs/rewards.md). The draw runs at its
// time (the reward worker) or when an operator asks, marks every entry DRAWN, and gives each winner a
// claim for the prize from the budget, exactly like a FIXED reward (REJECTED when the budget is short).
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { commitmentOf, pickWinners, sortTicketIds } from '../domain/draws.ts';
import { newId } from '../domain/ids.ts';
import { appError, AppError } from '../errors.ts';
import { grantClaim } from './completion.ts';
import { homeStripe } from './reservation.ts';
import { amountOf, decimalsOf, findBudget } from './service.ts';

export type DrawStatus = 'SCHEDULED' | 'COMMITTED' | 'DRAWN';

export interface DrawInput {
  budgetId: string;
  missionId?: string | null;
  title: string;
  prizeAmount: string;
  winnersCount: number;
  scheduledAt: string;
}

export interface DrawWinner {
  ticketId: string;
  partnerId: string;
  partnerUid: string;
  claimId: string | null;
  claimStatus: string | null;
}

/** The operator's view. The seed stays secret (null) until the draw has run, even for operators. */
export interface DrawView {
  id: string;
  title: string;
  budgetId: string;
  missionId: string | null;
  status: DrawStatus;
  scheduledAt: string;
  commitment: string;
  seed: string | null;
  prizeAmount: string;
  assetSymbol: string;
  decimals: number;
  winnersCount: number;
  ticketCount: number | null;
  winners: DrawWinner[] | null;
  createdAt: string;
  drawnAt: string | null;
}

/** Published to anyone (GET /v1/draws/{id}); docs/plans/me-api.md. */
export interface PublicDrawView {
  id: string;
  title: string;
  status: DrawStatus;
  scheduledAt: string;
  commitment: string;
  seed: string | null;
  prizeAmount: string;
  assetSymbol: string;
  winnersCount: number;
  ticketCount: number | null;
  winners: Array<{ ticketId: string }> | null;
}

/** SCHEDULED: entries still open; COMMITTED: entries closed at scheduledAt, result not yet revealed; DRAWN. */
function statusAt(stored: 'COMMITTED' | 'DRAWN', scheduledAt: Date, now: Date): DrawStatus {
  if (stored === 'DRAWN') return 'DRAWN';
  return now < scheduledAt ? 'SCHEDULED' : 'COMMITTED';
}

export async function createDraw(db: Kysely<DB>, clock: Clock, input: DrawInput, newSeed: () => string = () => randomBytes(32).toString('hex')): Promise<DrawView> {
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== 'LUCKY_DRAW') {
    throw appError('BUDGET_TYPE_MISMATCH', `a draw pays from a LUCKY_DRAW budget; budget '${budget.id}' is ${budget.type}`, { field: 'budgetId' });
  }
  const prize = amountOf(input.prizeAmount, await decimalsOf(db, budget.asset_id), 'prizeAmount');
  if (input.missionId !== undefined && input.missionId !== null) {
    const mission = await db.selectFrom('missions').select('id').where('id', '=', input.missionId).executeTakeFirst();
    if (!mission) throw appError('NOT_FOUND_MISSION', `no mission '${input.missionId}'`, { field: 'missionId' });
  }
  const now = clock.now();
  const scheduledAt = new Date(input.scheduledAt);
  // The commitment must be public before the set of entries is known, or it proves nothing.
  if (scheduledAt <= now) {
    throw appError('VALIDATION_FAILED', 'scheduledAt must be in the future: entries close then, after the commitment is published', {
      field: 'body.scheduledAt',
    });
  }
  const seed = newSeed();
  const id = newId('drw');
  await db
    .insertInto('draws')
    .values({
      id,
      budget_id: budget.id,
      mission_id: input.missionId ?? null,
      title: input.title,
      prize_amount: prize,
      winners_count: input.winnersCount,
      scheduled_at: scheduledAt,
      status: 'COMMITTED',
      commitment: commitmentOf(seed),
      seed,
      created_at: now,
    })
    .execute();
  return getDraw(db, clock, id);
}

function drawQuery(db: Kysely<DB>) {
  return db
    .selectFrom('draws as d')
    .innerJoin('budgets as b', 'b.id', 'd.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'd.id',
      'd.title',
      'd.budget_id',
      'd.mission_id',
      'd.status',
      'd.scheduled_at',
      'd.commitment',
      'd.seed',
      sql<string>`d.prize_amount::text`.as('prize_amount'),
      'd.winners_count',
      'd.ticket_count',
      'd.created_at',
      'd.drawn_at',
      'a.symbol',
      'a.decimals',
    ]);
}

type DrawRow = Awaited<ReturnType<ReturnType<typeof drawQuery>['executeTakeFirstOrThrow']>>;

async function winnersOf(db: Kysely<DB>, drawId: string): Promise<DrawWinner[]> {
  const rows = await db
    .selectFrom('tickets as t')
    .leftJoin('claims as c', (join) => join.on('c.source', '=', 'DRAW').on('c.source_id', '=', drawId).onRef('c.period_key', '=', 't.id'))
    .select(['t.id', 't.partner_id', 't.partner_uid', 'c.id as claim_id', 'c.status as claim_status'])
    .where('t.draw_id', '=', drawId)
    .where('t.won', '=', true)
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({ ticketId: r.id, partnerId: r.partner_id, partnerUid: r.partner_uid, claimId: r.claim_id, claimStatus: r.claim_status }));
}

async function drawView(db: Kysely<DB>, row: DrawRow, now: Date): Promise<DrawView> {
  const decimals = row.decimals ?? 0;
  const drawn = row.status === 'DRAWN';
  return {
    id: row.id,
    title: row.title,
    budgetId: row.budget_id,
    missionId: row.mission_id,
    status: statusAt(row.status, row.scheduled_at, now),
    scheduledAt: row.scheduled_at.toISOString(),
    commitment: row.commitment,
    seed: drawn ? row.seed : null,
    prizeAmount: formatAmount(row.prize_amount, decimals),
    assetSymbol: row.symbol,
    decimals,
    winnersCount: row.winners_count,
    ticketCount: row.ticket_count,
    winners: drawn ? await winnersOf(db, row.id) : null,
    createdAt: row.created_at.toISOString(),
    drawnAt: row.drawn_at?.toISOString() ?? null,
  };
}

export async function getDraw(db: Kysely<DB>, clock: Clock, drawId: string): Promise<DrawView> {
  const row = await drawQuery(db).where('d.id', '=', drawId).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_DRAW', `no draw '${drawId}'`);
  return drawView(db, row, clock.now());
}

export async function listDraws(
  db: Kysely<DB>,
  clock: Clock,
  filter: { budgetId?: string; status?: DrawStatus; limit: number; offset: number },
): Promise<DrawView[]> {
  const now = clock.now();
  let query = drawQuery(db);
  if (filter.budgetId !== undefined) query = query.where('d.budget_id', '=', filter.budgetId);
  if (filter.status === 'DRAWN') query = query.where('d.status', '=', 'DRAWN');
  if (filter.status === 'SCHEDULED') query = query.where('d.status', '=', 'COMMITTED').where('d.scheduled_at', '>', now);
  if (filter.status === 'COMMITTED') query = query.where('d.status', '=', 'COMMITTED').where('d.scheduled_at', '<=', now);
  const rows = await query.orderBy('d.scheduled_at', 'desc').orderBy('d.id').limit(filter.limit).offset(filter.offset).execute();
  return Promise.all(rows.map((row) => drawView(db, row, now)));
}

export async function getPublicDraw(db: Kysely<DB>, clock: Clock, drawId: string): Promise<PublicDrawView> {
  const view = await getDraw(db, clock, drawId);
  return {
    id: view.id,
    title: view.title,
    status: view.status,
    scheduledAt: view.scheduledAt,
    commitment: view.commitment,
    seed: view.seed,
    prizeAmount: view.prizeAmount,
    assetSymbol: view.assetSymbol,
    winnersCount: view.winnersCount,
    ticketCount: view.ticketCount,
    winners: view.winners?.map((w) => ({ ticketId: w.ticketId })) ?? null,
  };
}

/** Everything needed to check a drawn draw: the seed and every entry's ticket id, sorted. */
export async function drawEntries(db: Kysely<DB>, clock: Clock, drawId: string) {
  const view = await getDraw(db, clock, drawId);
  if (view.status !== 'DRAWN' || view.seed === null) {
    throw appError('DRAW_NOT_DRAWN', `draw '${drawId}' has not been drawn yet; its entries are published with the seed`);
  }
  const rows = await db.selectFrom('tickets').select('id').where('draw_id', '=', drawId).execute();
  return {
    drawId,
    commitment: view.commitment,
    seed: view.seed,
    winnersCount: view.winnersCount,
    ticketIds: sortTicketIds(rows.map((r) => r.id)),
    winners: pickWinners(view.seed, rows.map((r) => r.id), view.winnersCount),
  };
}

/**
 * Runs a due draw in one transaction: the entries are the RECEIVED tickets of its budget (and
 * mission) issued up to scheduledAt; every entry becomes DRAWN, the winners get claims.
 */
export async function runDraw(db: Kysely<DB>, clock: Clock, drawId: string): Promise<DrawView> {
  await db.transaction().execute(async (trx) => {
    const draw = await trx
      .selectFrom('draws as d')
      .innerJoin('budgets as b', 'b.id', 'd.budget_id')
      .select([
        'd.id',
        'd.status',
        'd.scheduled_at',
        'd.seed',
        'd.mission_id',
        'd.winners_count',
        sql<string>`d.prize_amount::text`.as('prize_amount'),
        'b.id as budget_id',
        'b.asset_id',
        'b.stripes',
      ])
      .where('d.id', '=', drawId)
      .forUpdate('d')
      .executeTakeFirst();
    if (!draw) throw appError('NOT_FOUND_DRAW', `no draw '${drawId}'`);
    if (draw.status === 'DRAWN') throw appError('DRAW_ALREADY_DRAWN', `draw '${drawId}' has already been drawn`);
    const now = clock.now();
    if (now < draw.scheduled_at) {
      throw appError('DRAW_NOT_DUE', `draw '${drawId}' is scheduled at ${draw.scheduled_at.toISOString()}; its entries are still open`);
    }
    let entries = trx
      .selectFrom('tickets')
      .select(['id', 'partner_id', 'partner_uid'])
      .where('status', '=', 'RECEIVED')
      .where('budget_id', '=', draw.budget_id)
      .where('created_at', '<=', draw.scheduled_at);
    if (draw.mission_id !== null) entries = entries.where('mission_id', '=', draw.mission_id);
    const tickets = await entries.orderBy('id').forUpdate().execute();
    const ids = tickets.map((t) => t.id);
    const winners = new Set(pickWinners(draw.seed, ids, draw.winners_count));
    if (ids.length > 0) {
      // One array parameter, not one parameter per id: a draw may have more entries than a statement has parameters.
      await trx
        .updateTable('tickets')
        .set({ status: 'DRAWN', draw_id: drawId, won: sql<boolean>`id = ANY(${[...winners]}::text[])` })
        .where(sql<boolean>`id = ANY(${ids}::text[])`)
        .execute();
    }
    // Winners in home-stripe order: the stripes this transaction takes one after another are then
    // taken in the global order (stripe number), like a top-up's.
    const stripeOf = (t: { partner_id: string; partner_uid: string }) => homeStripe(`${t.partner_id}:${t.partner_uid}`, draw.stripes);
    const winning = tickets.filter((t) => winners.has(t.id)).sort((a, b) => stripeOf(a) - stripeOf(b) || (a.id < b.id ? -1 : 1));
    for (const ticket of winning) {
      await grantClaim(trx, {
        budget: { id: draw.budget_id, assetId: draw.asset_id, stripes: draw.stripes },
        amount: BigInt(draw.prize_amount),
        partnerId: ticket.partner_id,
        partnerUid: ticket.partner_uid,
        accountId: undefined,
        promotionId: null,
        source: 'DRAW',
        sourceId: drawId,
        periodKey: ticket.id,
        now,
      });
    }
    await trx.updateTable('draws').set({ status: 'DRAWN', ticket_count: ids.length, drawn_at: now }).where('id', '=', drawId).execute();
  });
  return getDraw(db, clock, drawId);
}

/** Runs every draw whose time has come (the reward worker calls this); answers how many it ran. */
export async function runDueDraws(db: Kysely<DB>, clock: Clock, limit = 10): Promise<number> {
  const due = await db
    .selectFrom('draws')
    .select('id')
    .where('status', '=', 'COMMITTED')
    .where('scheduled_at', '<=', clock.now())
    .orderBy('scheduled_at')
    .limit(limit)
    .execute();
  let ran = 0;
  for (const { id } of due) {
    try {
      await runDraw(db, clock, id);
      ran += 1;
    } catch (error) {
      // Another worker (or an operator) ran it first.
      if (error instanceof AppError && error.errorName === 'DRAW_ALREADY_DRAWN') continue;
      throw error;
    }
  }
  return ran;
}
