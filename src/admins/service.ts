// Operator credentials: bearer secrets with a role, stored as SHA-256 only and shown once.
import type { Kysely, Selectable } from 'kysely';
import { appError } from '../errors.ts';
import type { AdminCredentialsTable, AdminRole, DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId, newSecret, sha256Hex } from '../domain/ids.ts';

type AdminRow = Selectable<AdminCredentialsTable>;

export interface AdminView {
  id: string;
  name: string;
  role: AdminRole;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

function adminView(row: AdminRow): AdminView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.secret_prefix,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

const RANK: Record<AdminRole, number> = { VIEWER: 1, OPERATOR: 2, OWNER: 3 };

export function roleAtLeast(role: AdminRole, required: AdminRole): boolean {
  return RANK[role] >= RANK[required];
}

export interface AuthenticatedAdmin {
  id: string;
  role: AdminRole;
}

/** Looks a bearer secret up by its hash; a revoked credential fails at once. */
export async function authenticateAdmin(db: Kysely<DB>, secret: string): Promise<AuthenticatedAdmin | undefined> {
  const row = await db
    .selectFrom('admin_credentials')
    .select(['id', 'role'])
    .where('secret_hash', '=', sha256Hex(secret))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row;
}

export async function createAdminCredential(
  db: Kysely<DB>,
  clock: Clock,
  input: { name: string; role: AdminRole },
): Promise<AdminView & { secret: string }> {
  const secret = newSecret('adm');
  const row = await db
    .insertInto('admin_credentials')
    .values({
      id: newId('adc'),
      name: input.name,
      role: input.role,
      secret_hash: sha256Hex(secret),
      secret_prefix: secret.slice(0, 10),
      created_at: clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...adminView(row), secret };
}

export async function listAdminCredentials(db: Kysely<DB>): Promise<AdminView[]> {
  const rows = await db.selectFrom('admin_credentials').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(adminView);
}

/** Revokes a credential. The last live OWNER cannot be revoked: nobody could manage admins any more. */
export async function revokeAdminCredential(db: Kysely<DB>, clock: Clock, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Lock the live owners so that two concurrent revocations cannot remove the last two together.
    const owners = await trx
      .selectFrom('admin_credentials')
      .select('id')
      .where('role', '=', 'OWNER')
      .where('revoked_at', 'is', null)
      .forUpdate()
      .execute();
    const row = await trx.selectFrom('admin_credentials').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw appError('NOT_FOUND_ADMIN_CREDENTIAL', `no admin credential '${id}'`);
    if (row.revoked_at !== null) return;
    if (row.role === 'OWNER' && owners.length <= 1) {
      throw appError('LAST_OWNER', 'the last OWNER credential cannot be revoked; create another OWNER first');
    }
    await trx.updateTable('admin_credentials').set({ revoked_at: clock.now() }).where('id', '=', id).execute();
  });
}

/** ADMIN_TOKEN: makes sure an OWNER credential with this secret exists (set-up and CI). */
export async function ensureOwnerToken(db: Kysely<DB>, secret: string): Promise<void> {
  await db
    .insertInto('admin_credentials')
    .values({
      id: newId('adc'),
      name: 'ADMIN_TOKEN',
      role: 'OWNER',
      secret_hash: sha256Hex(secret),
      secret_prefix: secret.slice(0, 4),
    })
    .onConflict((oc) => oc.column('secret_hash').doUpdateSet({ revoked_at: null, role: 'OWNER' }))
    .execute();
}

/** The signed-in operator's own credential (name and role), for the console. */
export async function currentAdmin(db: Kysely<DB>, id: string): Promise<AdminView> {
  const row = await db.selectFrom('admin_credentials').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw appError('ADMIN_UNAUTHORIZED', 'invalid or revoked admin credential');
  return adminView(row);
}
