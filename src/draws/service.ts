// Lucky draws: an operator creates a draw on a LUCKY_DRAW budget; the commitment is public at
// once; the draw runs by operator call or when its time comes (the payout worker looks), picks the
// winners among RECEIVED tickets of that budget (src/domain/draw.ts), marks every one DRAWN,
// creates the winners' claims from the budget, and publishes the seed.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { commitmentOf, drawWinners, newDrawSeed } from '../domain/draw.ts';
import { formatAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import { budgetTypeMismatch, drawAlreadyDrawn, drawNotFound } from '../error-factories.ts';
import { amountOf, decimalsOf, findBudget } from '../budgets/service.ts';
import { grantClaim } from '../claims/grants.ts';
import { webhookOutboxCte } from '../webhooks/outbox.ts';
import { drawRunEvents } from '../webhooks/events.ts';

export async function createDraw(
  db: Kysely<DB>,
  clock: Clock,
  input: { budgetId: string; title: string; prizeAmount: string; winnersCount: number; scheduledAt: string },
) {
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== 'LUCKY_DRAW') throw budgetTypeMismatch('a draw', 'LUCKY_DRAW', budget.id, budget.type);
  const prize = amountOf(input.prizeAmount, await decimalsOf(db, budget.asset_id), 'prizeAmount');
  const seed = newDrawSeed();
  const id = newId('drw');
  await db
    .insertInto('draws')
    .values({
      id,
      budget_id: budget.id,
      title: input.title,
      prize_amount: prize,
      winners_count: input.winnersCount,
      scheduled_at: new Date(input.scheduledAt),
      status: 'COMMITTED',
      commitment: commitmentOf(seed),
      seed,
      created_at: clock.now(),
    })
    .execute();
  return getDraw(db, id);
}

/** The public view: the seed and the result only once the draw has run. */
export async function getDraw(db: Kysely<DB>, id: string) {
  const row = await db
    .selectFrom('draws as d')
    .innerJoin('budgets as b', 'b.id', 'd.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .selectAll('d')
    .select(['a.symbol', 'a.decimals'])
    .where('d.id', '=', id)
    .executeTakeFirst();
  if (!row) throw drawNotFound(id);
  const drawn = row.status === 'DRAWN';
  const tickets = drawn
    ? await db.selectFrom('tickets').select(['id', 'won']).where('draw_id', '=', id).orderBy('id').execute()
    : [];
  return {
    id: row.id,
    budgetId: row.budget_id,
    title: row.title,
    status: row.status,
    scheduledAt: row.scheduled_at.toISOString(),
    commitment: row.commitment,
    seed: drawn ? row.seed : null,
    prizeAmount: formatAmount(row.prize_amount, row.decimals ?? 0),
    assetSymbol: row.symbol,
    winnersCount: row.winners_count,
    ticketCount: row.ticket_count,
    drawnAt: row.drawn_at?.toISOString() ?? null,
    tickets: drawn ? tickets.map((t) => t.id) : null,
    winners: drawn ? tickets.filter((t) => t.won).map((t) => ({ ticketId: t.id })) : null,
  };
}

export async function listDraws(db: Kysely<DB>, limit: number, offset: number) {
  const rows = await db
    .selectFrom('draws')
    .select('id')
    .orderBy('created_at', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return Promise.all(rows.map((r) => getDraw(db, r.id)));
}

/** Runs a draw once; a second run is refused (3507). */
export async function runDraw(db: Kysely<DB>, clock: Clock, id: string) {
  await db.transaction().execute(async (trx) => {
    const draw = await trx
      .selectFrom('draws')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!draw) throw drawNotFound(id);
    if (draw.status === 'DRAWN') throw drawAlreadyDrawn(id, draw.drawn_at?.toISOString());
    const budget = await trx
      .selectFrom('budgets')
      .select(['id', 'asset_id', 'stripes'])
      .where('id', '=', draw.budget_id)
      .executeTakeFirstOrThrow();
    const tickets = await trx
      .selectFrom('tickets')
      .select(['id', 'partner_id', 'partner_uid'])
      .where('budget_id', '=', draw.budget_id)
      .where('status', '=', 'RECEIVED')
      .forUpdate()
      .execute();
    const winners = new Set(
      drawWinners(
        draw.seed,
        tickets.map((t) => t.id),
        draw.winners_count,
      ),
    );
    const now = clock.now();
    if (tickets.length > 0) {
      // One array parameter, not one per ticket: a draw may have more entries than a statement has
      // parameters (65535).
      await trx
        .updateTable('tickets')
        .set({ status: 'DRAWN', draw_id: id, won: sql<boolean>`id = ANY(${[...winners]}::text[])` })
        .where(sql<boolean>`id = ANY(${tickets.map((t) => t.id)}::text[])`)
        .execute();
    }
    for (const ticket of tickets.filter((t) => winners.has(t.id))) {
      await grantClaim(trx, {
        budget,
        amount: BigInt(draw.prize_amount),
        partnerId: ticket.partner_id,
        partnerUid: ticket.partner_uid,
        promotionId: null,
        source: 'DRAW',
        sourceId: id,
        periodKey: ticket.id,
        now,
      });
    }
    await trx
      .updateTable('draws')
      .set({ status: 'DRAWN', drawn_at: now, ticket_count: tickets.length })
      .where('id', '=', id)
      .execute();
    // The draw.run webhook messages, in the draw's transaction (src/webhooks/outbox.ts).
    await sql`WITH ${webhookOutboxCte('hooks', drawRunEvents(id, now))} SELECT 1`.execute(trx);
  });
  return getDraw(db, id);
}

/** Runs every draw whose time has come (called by the payout worker's loop). */
export async function runDueDraws(db: Kysely<DB>, clock: Clock): Promise<number> {
  const due = await db
    .selectFrom('draws')
    .select('id')
    .where('status', '=', 'COMMITTED')
    .where('scheduled_at', '<=', clock.now())
    .execute();
  let ran = 0;
  for (const draw of due) {
    try {
      await runDraw(db, clock, draw.id);
      ran++;
    } catch (error) {
      // Another worker ran it first: fine.
      if (!(error instanceof Error && 'errorName' in error && error.errorName === 'DRAW_ALREADY_DRAWN'))
        throw error;
    }
  }
  return ran;
}
