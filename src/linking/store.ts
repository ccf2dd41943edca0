// SQL of the login journey: logins in progress, platform accounts, mapping tokens and user
// mappings (partner user -> platform account).
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { DB, LoginStatesTable, MappingTokensTable } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { mappingsOfBatch } from '../db/citus.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { userLinkEvents } from '../webhooks/store/events.ts';

export interface PartnerUser {
  partnerId: string;
  partnerUid: string;
}

/** Which of these partner users are linked: one statement for any number of them. */
export async function linkedAmong(db: Kysely<DB>, users: readonly PartnerUser[]): Promise<boolean[]> {
  const result = await db.executeQuery(linkedAmongStatement(db, users));
  const linked = new Set(result.rows.map((r) => r.n));
  return users.map((_, i) => linked.has(i + 1));
}

/** linkedAmong's statement, compiled (test/citus/distribution.citus.test.ts reads its plan). */
export function linkedAmongStatement(db: Kysely<DB>, users: readonly PartnerUser[]) {
  const query = sql<{ n: number }>`
    SELECT q.n::int AS n
    FROM unnest(${users.map((u) => u.partnerId)}::text[], ${users.map((u) => u.partnerUid)}::text[]) WITH ORDINALITY AS q(partner_id, partner_uid, n)
    -- A join on the primary key (at most one row each), not EXISTS: Citus plans no correlated
    -- sub-query over a function's rows (docs/scaling.md "On Citus").
    JOIN ${mappingsOfBatch(users)} m ON m.partner_id = q.partner_id AND m.partner_uid = q.partner_uid`;
  return prepared('linked_among', query.compile(db));
}

export async function findAccountWithMappings(db: Kysely<DB>, accountId: string) {
  const account = await db
    .selectFrom('platform_accounts')
    .select(['id', 'display_name'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return undefined;
  const mappings = await db
    .selectFrom('user_mappings as m')
    .innerJoin('partners as p', 'p.id', 'm.partner_id')
    .select(['m.partner_id', 'p.name', 'm.partner_uid', 'm.region', 'm.created_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('m.created_at')
    .execute();
  return {
    accountId: account.id,
    displayName: account.display_name,
    mappings: mappings.map((m) => ({
      partnerId: m.partner_id,
      partnerName: m.name,
      partnerUid: m.partner_uid,
      region: m.region,
      linkedAt: m.created_at.toISOString(),
    })),
  };
}

// --- Logins in progress ---

export type LoginStateRow = Selectable<LoginStatesTable>;

export async function insertLoginState(db: Kysely<DB>, row: Insertable<LoginStatesTable>): Promise<void> {
  // Expired ones are purged in bounded batches on a timer (expiry-purge.ts), not by each start.
  await db.insertInto('login_states').values(row).execute();
}

/** Reads a login state without using it (the callback checks it before consuming it). */
export async function findLoginState(db: Kysely<DB>, stateHash: string): Promise<LoginStateRow | undefined> {
  return db.selectFrom('login_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
}

/** Takes a login state out of the table: whoever gets the row, gets it once. */
export async function consumeLoginState(
  db: Kysely<DB>,
  stateHash: string,
): Promise<LoginStateRow | undefined> {
  return db.deleteFrom('login_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
}

// --- Platform accounts ---

export async function findOrCreateAccount(
  db: Kysely<DB>,
  input: { id: string; issuer: string; subject: string; displayName: string | null; now: Date },
): Promise<string> {
  // One statement, safe when the same person logs in twice at once.
  const row = await db
    .insertInto('platform_accounts')
    .values({
      id: input.id,
      issuer: input.issuer,
      subject: input.subject,
      display_name: input.displayName,
      created_at: input.now,
    })
    .onConflict((oc) =>
      oc.columns(['issuer', 'subject']).doUpdateSet((eb) => ({
        display_name: eb.fn.coalesce(
          eb.ref('excluded.display_name'),
          eb.ref('platform_accounts.display_name'),
        ),
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// --- Mapping tokens ---

export async function insertMappingToken(db: Kysely<DB>, row: Insertable<MappingTokensTable>): Promise<void> {
  // Tokens a day past their expiry are purged on a timer (expiry-purge.ts).
  await db.insertInto('mapping_tokens').values(row).execute();
}

/**
 * Locks the partner's token. By partner and hash: on Citus the row lock must name the shard (the
 * partner), docs/scaling.md "On Citus".
 */
export async function lockMappingToken(trx: Transaction<DB>, partnerId: string, tokenHash: string) {
  return trx
    .selectFrom('mapping_tokens')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

/** Whether a token with this hash exists for any partner (no lock: it only names the refusal). */
export async function mappingTokenExists(trx: Transaction<DB>, tokenHash: string): Promise<boolean> {
  const row = await trx
    .selectFrom('mapping_tokens')
    .select('token_hash')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row !== undefined;
}

export async function markMappingTokenUsed(
  trx: Transaction<DB>,
  partnerId: string,
  tokenHash: string,
  partnerUid: string,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('mapping_tokens')
    .set({ consumed_at: now, consumed_uid: partnerUid })
    .where('partner_id', '=', partnerId)
    .where('token_hash', '=', tokenHash)
    .execute();
}

// --- Mappings ---

export async function findMapping(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  return db
    .selectFrom('user_mappings')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', partnerUid)
    .executeTakeFirst();
}

export async function findMappingOfAccount(db: Kysely<DB>, partnerId: string, accountId: string) {
  return db
    .selectFrom('user_mappings')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Inserts a mapping unless either side is taken; true when this call wrote it. */
export async function insertMapping(
  trx: Transaction<DB>,
  row: { partnerId: string; partnerUid: string; accountId: string; region: string; now: Date },
): Promise<boolean> {
  // The user.linked webhook messages are written by the same statement (src/webhooks/store/outbox.ts).
  const query = sql<{ partner_uid: string }>`
    WITH linked AS (
      INSERT INTO user_mappings (partner_id, partner_uid, account_id, region, created_at)
      VALUES (${row.partnerId}, ${row.partnerUid}, ${row.accountId}, ${row.region}, ${row.now}::timestamptz)
      ON CONFLICT DO NOTHING
      RETURNING *
    ), ${webhookOutboxCte('hooks', userLinkEvents(sql`linked m`, 'user.linked', row.now))}
    SELECT partner_uid FROM linked`;
  const inserted = await query.execute(trx);
  return inserted.rows.length > 0;
}

export async function updateMappingRegion(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
  region: string,
): Promise<void> {
  await trx
    .updateTable('user_mappings')
    .set({ region })
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', partnerUid)
    .execute();
}

/** Removes a link and writes its user.unlinked webhook messages, in one statement. */
export async function deleteMapping(db: Kysely<DB>, partnerId: string, partnerUid: string, now: Date) {
  const query = sql<Selectable<DB['user_mappings']>>`
    WITH removed AS (
      DELETE FROM user_mappings WHERE partner_id = ${partnerId} AND partner_uid = ${partnerUid}
      RETURNING *
    ), ${webhookOutboxCte('hooks', userLinkEvents(sql`removed m`, 'user.unlinked', now))}
    SELECT * FROM removed`;
  return (await query.execute(db)).rows[0];
}

/** A partner's mappings with their platform accounts (the operator's view of a linked user). */
export function mappingsWithAccounts(db: Kysely<DB>, partnerId: string) {
  return db
    .selectFrom('user_mappings as m')
    .innerJoin('platform_accounts as a', 'a.id', 'm.account_id')
    .select([
      'm.partner_id',
      'm.partner_uid',
      'm.region',
      'm.created_at',
      'a.id as account_id',
      'a.issuer',
      'a.subject',
      'a.display_name',
      'a.created_at as account_created_at',
    ])
    .where('m.partner_id', '=', partnerId);
}

export async function findMappingWithAccount(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  return mappingsWithAccounts(db, partnerId).where('m.partner_uid', '=', partnerUid).executeTakeFirst();
}

// --- The purge of expired login data (expiry-purge.ts): one bounded batch per call ---

/** Deletes up to `limit` login states expired before `now`; answers how many. */
export async function deleteExpiredLoginStates(db: Kysely<DB>, now: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('login_states')
    .where('state_hash', 'in', (eb) =>
      eb.selectFrom('login_states').select('state_hash').where('expires_at', '<', now).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` mapping tokens expired before `before`; answers how many. */
export async function deleteExpiredMappingTokens(
  db: Kysely<DB>,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('mapping_tokens')
    .where('token_hash', 'in', (eb) =>
      eb.selectFrom('mapping_tokens').select('token_hash').where('expires_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` end-user sessions expired before `now`; answers how many. */
export async function deleteExpiredSessions(db: Kysely<DB>, now: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('user_sessions')
    .where('id_hash', 'in', (eb) =>
      eb.selectFrom('user_sessions').select('id_hash').where('expires_at', '<', now).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
