// The SQL of lucky draws: a draw and its secret seed, its public view, the order draws of a budget
// run in, the tickets a run closes over and marks, the result, and the ticket listings.
import { sql } from 'kysely';
import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { DB, DrawsTable } from '../db/schema.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { drawRunEvents } from '../webhooks/store/events.ts';
import { lockPartnerByPartner } from '../db/citus.ts';

type Db = Kysely<DB> | Transaction<DB>;

/** A new draw with its seed (draw_seeds, read by nothing but the run), in one transaction. */
export async function insertDraw(db: Kysely<DB>, draw: Insertable<DrawsTable>, seed: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('draws').values(draw).execute();
    await trx.insertInto('draw_seeds').values({ draw_id: draw.id, seed }).execute();
  });
}

/** Changes a draw's title or titles; undefined when there is no such draw. */
export function updateDrawTitles(
  db: Kysely<DB>,
  id: string,
  set: Pick<Updateable<DrawsTable>, 'title' | 'titles'>,
) {
  return db.updateTable('draws').set(set).where('id', '=', id).returning('id').executeTakeFirst();
}

/** A draw with its asset and its beacon network's name, for the public view. */
export function drawViewRow(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('draws as d')
    .innerJoin('budgets as b', 'b.id', 'd.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .leftJoin('chain_networks as n', 'n.id', 'd.beacon_network_id')
    .selectAll('d')
    .select(['a.symbol', 'a.decimals', 'n.name as network_name'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** The tickets a draw ran over, by id, and whether each won. */
export function drawTickets(db: Kysely<DB>, id: string) {
  return db.selectFrom('tickets').select(['id', 'won']).where('draw_id', '=', id).orderBy('id').execute();
}

/** Draw ids, newest first. */
export function drawIdsPage(db: Kysely<DB>, limit: number, offset: number) {
  return db
    .selectFrom('draws')
    .select('id')
    .orderBy('created_at', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** A draw's row, locked FOR UPDATE when `lock`. */
export function lockableDraw(db: Db, id: string, lock: boolean) {
  const query = db.selectFrom('draws').selectAll().where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The first COMMITTED draw of the same budget that runs before this one (by close, creation, id). */
export function earlierPendingDraw(
  db: Db,
  draw: { id: string; budget_id: string; closes_at: Date; created_at: Date },
) {
  const { id } = draw;
  return db
    .selectFrom('draws')
    .select('id')
    .where('budget_id', '=', draw.budget_id)
    .where('status', '=', 'COMMITTED')
    .where('id', '<>', id)
    .where((eb) =>
      eb.or([
        eb('closes_at', '<', draw.closes_at),
        eb.and([
          eb('closes_at', '=', draw.closes_at),
          eb.or([
            eb('created_at', '<', draw.created_at),
            eb.and([eb('created_at', '=', draw.created_at), eb('id', '<', id)]),
          ]),
        ]),
      ]),
    )
    .orderBy('closes_at')
    .executeTakeFirst();
}

/** A draw's secret seed. */
export async function drawSeed(trx: Transaction<DB>, drawId: string): Promise<string> {
  const { seed } = await trx
    .selectFrom('draw_seeds')
    .select('seed')
    .where('draw_id', '=', drawId)
    .executeTakeFirstOrThrow();
  return seed;
}

/** The budget a draw pays from, as grantClaim takes it. */
export function budgetOfDraw(trx: Transaction<DB>, budgetId: string) {
  return trx
    .selectFrom('budgets')
    .select(['id', 'asset_id', 'stripes'])
    .where('id', '=', budgetId)
    .executeTakeFirstOrThrow();
}

/**
 * The budget's RECEIVED tickets received by the draw's close, locked FOR UPDATE partner by partner
 * (on Citus tickets are distributed on partner_id and a row lock must name one shard, docs/scaling.md
 * "On Citus"; the partners are read first, without a lock). A ticket is issued before the close and
 * a draw runs after it, so no partner's first ticket arrives between the two reads.
 */
export async function lockTicketsOfDraw(trx: Transaction<DB>, draw: { budget_id: string; closes_at: Date }) {
  const received = (partnerId?: string) => {
    let query = trx
      .selectFrom('tickets')
      .where('budget_id', '=', draw.budget_id)
      .where('status', '=', 'RECEIVED')
      .where('created_at', '<=', draw.closes_at);
    if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
    return query;
  };
  const partners = await received().select('partner_id').distinct().orderBy('partner_id').execute();
  return lockPartnerByPartner(
    partners.map((p) => p.partner_id),
    Number.MAX_SAFE_INTEGER,
    (partnerId) => received(partnerId).select(['id', 'partner_id', 'partner_uid']).forUpdate().execute(),
  );
}

/** Marks the tickets DRAWN by this draw, `winners` among them won. */
export async function markTicketsDrawn(
  trx: Transaction<DB>,
  drawId: string,
  ticketIds: string[],
  winners: string[],
): Promise<void> {
  if (ticketIds.length === 0) return;
  // One array parameter, not one per ticket: a draw may have more entries than a statement has
  // parameters (65535).
  await trx
    .updateTable('tickets')
    .set({ status: 'DRAWN', draw_id: drawId, won: sql<boolean>`id = ANY(${winners}::text[])` })
    .where(sql<boolean>`id = ANY(${ticketIds}::text[])`)
    .execute();
}

/** The draw's result: DRAWN, when, over how many tickets, its seed and its beacon block. */
export async function markDrawDrawn(
  trx: Transaction<DB>,
  drawId: string,
  result: Pick<
    Updateable<DrawsTable>,
    'drawn_at' | 'ticket_count' | 'seed' | 'beacon_block_number' | 'beacon_block_hash'
  >,
): Promise<void> {
  await trx
    .updateTable('draws')
    .set({ status: 'DRAWN', ...result })
    .where('id', '=', drawId)
    .execute();
}

/** The draw.run webhook messages, in the draw's transaction (src/webhooks/store/outbox.ts). */
export async function queueDrawRunWebhooks(trx: Transaction<DB>, drawId: string, now: Date): Promise<void> {
  await sql`WITH ${webhookOutboxCte('hooks', drawRunEvents(drawId, now))} SELECT 1`.execute(trx);
}

/** COMMITTED draws whose time has come, in the order of their close. */
export function dueDrawIds(db: Kysely<DB>, now: Date) {
  return db
    .selectFrom('draws')
    .select('id')
    .where('status', '=', 'COMMITTED')
    .where('scheduled_at', '<=', now)
    .orderBy('closes_at')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The network of a budget's chain asset (a draw's beacon), or undefined for a ledger budget. */
export function chainOfBudget(db: Db, budgetId: string) {
  return db
    .selectFrom('budgets as b')
    .innerJoin('chain_assets as ca', 'ca.asset_id', 'b.asset_id')
    .innerJoin('chain_networks as n', 'n.id', 'ca.network_id')
    .select(['n.id', 'n.chain_id'])
    .where('b.id', '=', budgetId)
    .executeTakeFirst();
}

/** The beacon network of a draw: where to read its block, and how many confirmations it needs. */
export function beaconNetwork(db: Kysely<DB>, networkId: string) {
  return db
    .selectFrom('chain_networks')
    .select(['chain_id', 'rpc_url', 'fallback_rpc_urls', 'confirmations', 'name'])
    .where('id', '=', networkId)
    .executeTakeFirstOrThrow();
}

export interface TicketRowFilter {
  status?: 'RECEIVED' | 'DRAWN';
  partnerId?: string;
  partnerUid?: string;
  accountId?: string;
  /** Keyset paging: only the tickets listed after this ticket (newest first, then by id). */
  afterId?: string;
}

/** Tickets with their mission's title, newest first (ties by id), filtered. */
export function ticketRows(db: Kysely<DB>, filter: TicketRowFilter, limit: number, offset: number) {
  let query = db
    .selectFrom('tickets as t')
    .innerJoin('missions as m', 'm.id', 't.mission_id')
    .select([
      't.id',
      't.status',
      't.partner_id',
      't.partner_uid',
      't.mission_id',
      'm.title',
      't.period_key',
      't.draw_id',
      't.won',
      't.created_at',
    ]);
  if (filter.status) query = query.where('t.status', '=', filter.status);
  if (filter.partnerId) query = query.where('t.partner_id', '=', filter.partnerId);
  if (filter.partnerUid) query = query.where('t.partner_uid', '=', filter.partnerUid);
  if (filter.accountId) {
    const accountId = filter.accountId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('user_mappings as u')
          .select('u.partner_uid')
          .whereRef('u.partner_id', '=', 't.partner_id')
          .whereRef('u.partner_uid', '=', 't.partner_uid')
          .where('u.account_id', '=', accountId),
      ),
    );
  }
  if (filter.afterId) {
    // Compared in SQL with the cursor row's own created_at: microseconds a JS Date would round off.
    const cursorAt = db.selectFrom('tickets').select('created_at').where('id', '=', filter.afterId);
    const afterId = filter.afterId;
    query = query.where((eb) =>
      eb.or([
        eb('t.created_at', '<', cursorAt),
        eb.and([eb('t.created_at', '=', cursorAt), eb('t.id', '>', afterId)]),
      ]),
    );
  }
  // Ties broken by id, so that a page ends at one place (the keyset above).
  return query.orderBy('t.created_at', 'desc').orderBy('t.id').limit(limit).offset(offset).execute();
}
