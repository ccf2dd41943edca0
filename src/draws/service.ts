// Lucky draws: an operator creates a draw on a LUCKY_DRAW budget; the commitment is public at
// once and the seed stays secret (draw_seeds: no audit trigger, answer, log or metric reads it).
// Its ticket set closes at closesAt, fixed at creation and not in the past. The draw runs by
// operator call or when its time comes (the payout worker looks), never before its scheduled time
// (at or after the close), and picks the winners among the budget's RECEIVED tickets received by
// the close (src/domain/draw.ts), so whoever runs it cannot choose the ticket set by choosing the
// moment. On a chain budget the seed is mixed with the first block mined after the close
// (beacon.ts). The run marks the tickets DRAWN, creates the winners' claims and publishes the seed.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { commitmentOf, drawKeyOf, drawWinners, newDrawSeed } from '../domain/draw.ts';
import { formatAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import {
  budgetTypeMismatch,
  drawAlreadyDrawn,
  drawClosesInPast,
  drawRunsBeforeClose,
  drawEarlierPending,
  drawNotDue,
  drawNotFound,
} from '../error-factories.ts';
import { amountOf, decimalsOf, findBudget } from '../budgets/service.ts';
import { titleIn, titlesColumn } from '../catalog/titles.ts';
import type { Language, Titles } from '../catalog/titles.ts';
import { beaconBlockOfDraw, beaconNetworkOfBudget } from './beacon.ts';
import type { BeaconBlock } from './beacon.ts';
import { grantClaim } from '../claims/grants.ts';
import {
  budgetOfDraw,
  drawIdsPage,
  drawSeed,
  drawTickets,
  drawViewRow,
  dueDrawIds,
  earlierPendingDraw,
  insertDraw,
  lockableDraw,
  lockTicketsOfDraw,
  markDrawDrawn,
  markTicketsDrawn,
  queueDrawRunWebhooks,
  updateDrawTitles,
} from './store.ts';

export async function createDraw(
  db: Kysely<DB>,
  clock: Clock,
  input: {
    budgetId: string;
    title: string;
    titles?: Titles;
    prizeAmount: string;
    winnersCount: number;
    scheduledAt: string;
    closesAt?: string;
  },
) {
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== 'LUCKY_DRAW') throw budgetTypeMismatch('a draw', 'LUCKY_DRAW', budget.id, budget.type);
  const prize = amountOf(input.prizeAmount, await decimalsOf(db, budget.asset_id), 'prizeAmount');
  const scheduledAt = new Date(input.scheduledAt);
  const closesAt = new Date(input.closesAt ?? input.scheduledAt);
  const now = clock.now();
  // A close in the past would make a draw over tickets already known (and, on a chain, a block
  // already mined): whoever creates it could try draw after draw until one suits them.
  if (closesAt < now) throw drawClosesInPast(closesAt.toISOString(), now.toISOString());
  if (scheduledAt < closesAt) throw drawRunsBeforeClose(scheduledAt.toISOString(), closesAt.toISOString());
  const beacon = await beaconNetworkOfBudget(db, budget.id);
  const seed = newDrawSeed();
  const id = newId('drw');
  await insertDraw(
    db,
    {
      id,
      budget_id: budget.id,
      title: input.title,
      titles: titlesColumn(input.titles),
      prize_amount: prize,
      winners_count: input.winnersCount,
      scheduled_at: scheduledAt,
      closes_at: closesAt,
      status: 'COMMITTED',
      commitment: commitmentOf(seed),
      seed: null,
      created_at: now,
      beacon_network_id: beacon?.id ?? null,
      beacon_chain_id: beacon?.chainId ?? null,
    },
    seed,
  );
  return getDraw(db, id);
}

/** A draw's title and titles may change at any time: neither takes part in the draw. */
export async function updateDraw(db: Kysely<DB>, id: string, input: { title?: string; titles?: Titles }) {
  const updated = await updateDrawTitles(db, id, {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.titles !== undefined && { titles: titlesColumn(input.titles) }),
  });
  if (!updated) throw drawNotFound(id);
  return getDraw(db, id);
}

/**
 * The public view: the seed and the result only once the draw has run. With `lang` (the public
 * page), `title` is the reader's language's title when the operator gave one.
 */
export async function getDraw(db: Kysely<DB>, id: string, lang?: Language) {
  const row = await drawViewRow(db, id);
  if (!row) throw drawNotFound(id);
  const drawn = row.status === 'DRAWN';
  const tickets = drawn ? await drawTickets(db, id) : [];
  return {
    id: row.id,
    budgetId: row.budget_id,
    title: titleIn(row.title, row.titles, lang),
    titles: row.titles ?? {},
    status: row.status,
    closesAt: row.closes_at.toISOString(),
    scheduledAt: row.scheduled_at.toISOString(),
    commitment: row.commitment,
    seed: drawn ? row.seed : null,
    beacon:
      row.beacon_chain_id === null
        ? null
        : {
            chainId: Number(row.beacon_chain_id),
            networkName: row.network_name ?? null,
            blockNumber: row.beacon_block_number === null ? null : Number(row.beacon_block_number),
            blockHash: row.beacon_block_hash,
          },
    prizeAmount: formatAmount(row.prize_amount, row.decimals ?? 0),
    assetSymbol: row.symbol,
    decimals: row.decimals ?? 0,
    winnersCount: row.winners_count,
    ticketCount: row.ticket_count,
    drawnAt: row.drawn_at?.toISOString() ?? null,
    tickets: drawn ? tickets.map((t) => t.id) : null,
    winners: drawn ? tickets.filter((t) => t.won).map((t) => ({ ticketId: t.id })) : null,
  };
}

export async function listDraws(db: Kysely<DB>, limit: number, offset: number) {
  const rows = await drawIdsPage(db, limit, offset);
  return Promise.all(rows.map((r) => getDraw(db, r.id)));
}

type DrawRow = Awaited<ReturnType<typeof lockableDraw>>;

/** Why a draw cannot run now (not found, drawn, not due, an earlier draw pending), else nothing. */
async function checkRunnable(trx: Kysely<DB> | Transaction<DB>, id: string, draw: DrawRow, now: Date) {
  if (!draw) throw drawNotFound(id);
  if (draw.status === 'DRAWN') throw drawAlreadyDrawn(id, draw.drawn_at?.toISOString());
  // The ticket set closed at closesAt, fixed when the draw was created: running late adds no
  // ticket, and running before the scheduled time (at or after the close) is refused.
  if (now < draw.scheduled_at) throw drawNotDue(id, draw.scheduled_at.toISOString());
  // A budget's draws run in the order of their close (then creation), so which draw a ticket
  // falls to does not depend on the order an operator runs them in, and a draw created later
  // cannot take the tickets of one whose result is already computable.
  const earlier = await earlierPendingDraw(trx, draw);
  if (earlier) throw drawEarlierPending(id, earlier.id);
  return draw;
}

/**
 * Runs a draw once; a second run is refused (3507). A chain draw first reads its beacon block
 * (outside the transaction: no row stays locked while the network answers); it waits (503) until
 * that block is mined and confirmed.
 */
export async function runDraw(db: Kysely<DB>, clock: Clock, id: string) {
  let block: BeaconBlock | null = null;
  const first = await checkRunnable(db, id, await lockableDraw(db, id, false), clock.now());
  if (first.beacon_network_id !== null)
    block = await beaconBlockOfDraw(db, { ...first, beacon_network_id: first.beacon_network_id });
  await db.transaction().execute(async (trx) => {
    const now = clock.now();
    const draw = await checkRunnable(trx, id, await lockableDraw(trx, id, true), now);
    const seed = await drawSeed(trx, id);
    const budget = await budgetOfDraw(trx, draw.budget_id);
    const tickets = await lockTicketsOfDraw(trx, draw);
    const winners = new Set(
      drawWinners(
        drawKeyOf(seed, block?.hash ?? null),
        tickets.map((t) => t.id),
        draw.winners_count,
      ),
    );
    await markTicketsDrawn(
      trx,
      id,
      tickets.map((t) => t.id),
      [...winners],
    );
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
    // The seed is published with the result (and only now reaches the audit log).
    await markDrawDrawn(trx, id, {
      drawn_at: now,
      ticket_count: tickets.length,
      seed,
      ...(block && { beacon_block_number: block.number.toString(), beacon_block_hash: block.hash }),
    });
    // The draw.run webhook messages, in the draw's transaction (src/webhooks/store/outbox.ts).
    await queueDrawRunWebhooks(trx, id, now);
  });
  return getDraw(db, id);
}

/** A draw that cannot run yet for a reason the next cycle may lift: the worker tries again later. */
const WAITING = new Set([
  'DRAW_ALREADY_DRAWN',
  'DRAW_WAITING_FOR_BLOCK',
  'DRAW_CHAIN_UNAVAILABLE',
  'DRAW_EARLIER_PENDING',
]);

/**
 * Runs every draw whose time has come (called by the payout worker's loop), in the order of their
 * close. A draw waiting for its block (or its chain, or an earlier draw of its budget) is left for
 * the next cycle without stopping the others.
 */
export async function runDueDraws(db: Kysely<DB>, clock: Clock): Promise<number> {
  const due = await dueDrawIds(db, clock.now());
  let ran = 0;
  for (const draw of due) {
    try {
      await runDraw(db, clock, draw.id);
      ran++;
    } catch (error) {
      // Another worker ran it first, or it waits: fine.
      if (!(error instanceof Error && 'errorName' in error && WAITING.has(String(error.errorName))))
        throw error;
    }
  }
  return ran;
}
