// SQL of partners and their API keys.
import type { Kysely, Selectable } from 'kysely';
import type { DB, PartnerApiKeysTable, PartnersTable } from '../db/schema.ts';

export type PartnerRow = Selectable<PartnersTable>;
export type ApiKeyRow = Selectable<PartnerApiKeysTable>;

export async function insertPartner(
  db: Kysely<DB>,
  values: { id: string; name: string; allowedIps: string[]; redirectUrls: string[]; now: Date },
): Promise<PartnerRow> {
  return db
    .insertInto('partners')
    .values({
      id: values.id,
      name: values.name,
      allowed_ips: values.allowedIps,
      redirect_urls: values.redirectUrls,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findPartner(db: Kysely<DB>, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPartners(db: Kysely<DB>, limit: number, offset: number): Promise<PartnerRow[]> {
  return db
    .selectFrom('partners')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function updatePartner(
  db: Kysely<DB>,
  id: string,
  changes: {
    name?: string;
    status?: 'ACTIVE' | 'DISABLED';
    allowedIps?: string[];
    redirectUrls?: string[];
    now: Date;
  },
): Promise<PartnerRow | undefined> {
  return db
    .updateTable('partners')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.allowedIps !== undefined && { allowed_ips: changes.allowedIps }),
      ...(changes.redirectUrls !== undefined && { redirect_urls: changes.redirectUrls }),
      updated_at: changes.now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function insertApiKey(
  db: Kysely<DB>,
  values: {
    id: string;
    partnerId: string;
    keyHash: string;
    keyPrefix: string;
    name: string | null;
    now: Date;
  },
): Promise<ApiKeyRow> {
  return db
    .insertInto('partner_api_keys')
    .values({
      id: values.id,
      partner_id: values.partnerId,
      key_hash: values.keyHash,
      key_prefix: values.keyPrefix,
      name: values.name,
      created_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listApiKeys(db: Kysely<DB>, partnerId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('partner_api_keys')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes a key; returns the row, or undefined when the partner has no such key. Idempotent. */
export async function revokeApiKey(
  db: Kysely<DB>,
  partnerId: string,
  keyId: string,
  now: Date,
): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('partner_api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('partner_id', '=', partnerId)
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst();
}

/** What authenticating a partner call needs: the partner and the hashes of its live keys. */
export async function findPartnerCredentials(
  db: Kysely<DB>,
  partnerId: string,
): Promise<{ partner: PartnerRow; keyHashes: string[] } | undefined> {
  const partner = await findPartner(db, partnerId);
  if (!partner) return undefined;
  const keys = await db
    .selectFrom('partner_api_keys')
    .select('key_hash')
    .where('partner_id', '=', partnerId)
    .where('revoked_at', 'is', null)
    .execute();
  return { partner, keyHashes: keys.map((k) => k.key_hash) };
}
