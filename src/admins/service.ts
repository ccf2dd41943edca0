// Operator credentials: bearer secrets with a role, stored as SHA-256 only and shown once; and the
// ADMIN_TOKEN bootstrap, which creates an OWNER but never revives or changes one.
import type { Kysely } from 'kysely';
import { adminCredentialInvalid, adminCredentialNotFound, lastOwner } from '../error-factories.ts';
import type { AdminRole, DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId, newSecret, sha256Hex } from '../domain/ids.ts';
import {
  credentialBySecretHash,
  credentialRows,
  findCredential,
  insertCredential,
  insertCredentialUnlessSecretExists,
  liveCredentialBySecretHash,
  lockLiveOwners,
  markRevoked,
} from './store.ts';
import type { AdminRow } from './store.ts';

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

export { roleAtLeast } from '../domain/admin-roles.ts';

export interface AuthenticatedAdmin {
  id: string;
  role: AdminRole;
}

/** Looks a bearer secret up by its hash; a revoked credential fails at once. */
export async function authenticateAdmin(
  db: Kysely<DB>,
  secret: string,
): Promise<AuthenticatedAdmin | undefined> {
  const row = await liveCredentialBySecretHash(db, sha256Hex(secret));
  return row;
}

/** Generated admin secrets: a typed prefix and 256 random bits, like partner API keys (mrk_). */
const ADMIN_SECRET_PREFIX = 'adm';
/** How much of a generated secret is kept and shown to recognise it: the type and 6 random characters. */
const SHOWN_PREFIX_LENGTH = 10;

export async function createAdminCredential(
  db: Kysely<DB>,
  clock: Clock,
  input: { name: string; role: AdminRole },
): Promise<AdminView & { secret: string }> {
  const secret = newSecret(ADMIN_SECRET_PREFIX);
  const row = await insertCredential(db, {
    id: newId('adc'),
    name: input.name,
    role: input.role,
    secret_hash: sha256Hex(secret),
    secret_prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
    created_at: clock.now(),
  });
  return { ...adminView(row), secret };
}

export async function listAdminCredentials(db: Kysely<DB>): Promise<AdminView[]> {
  const rows = await credentialRows(db);
  return rows.map(adminView);
}

/** Revokes a credential. The last live OWNER cannot be revoked: nobody could manage admins any more. */
export async function revokeAdminCredential(db: Kysely<DB>, clock: Clock, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Lock the live owners so that two concurrent revocations cannot remove the last two together.
    const owners = await lockLiveOwners(trx);
    const row = await findCredential(trx, id);
    if (!row) throw adminCredentialNotFound(id);
    if (row.revoked_at !== null) return;
    if (row.role === 'OWNER' && owners.length <= 1) {
      throw lastOwner();
    }
    await markRevoked(trx, id, clock.now());
  });
}

/** What start-up did with ADMIN_TOKEN. */
export type OwnerTokenOutcome =
  | { outcome: 'CREATED'; credentialId: string }
  | { outcome: 'EXISTS'; credentialId: string; role: AdminRole }
  | { outcome: 'REVOKED'; credentialId: string };

/** Where the bootstrap says what it did (the app's logger: JSON lines). Never given the secret. */
export interface BootstrapLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * ADMIN_TOKEN (set-up and CI): creates an OWNER credential with this secret when none exists with
 * it, and otherwise changes nothing. A revoked credential stays revoked (an operator revoked it on
 * purpose; a restart must not undo that), and an existing one keeps its role. The secret is chosen
 * by a person, so no prefix of it is stored or shown, and the log names only the credential id.
 */
export async function ensureOwnerToken(
  db: Kysely<DB>,
  secret: string,
  log?: BootstrapLog,
): Promise<OwnerTokenOutcome> {
  const secretHash = sha256Hex(secret);
  // One statement, safe when several processes start together: only one insert wins.
  const inserted = await insertCredentialUnlessSecretExists(db, {
    id: newId('adc'),
    name: 'ADMIN_TOKEN',
    role: 'OWNER',
    secret_hash: secretHash,
    secret_prefix: '',
  });
  let result: OwnerTokenOutcome;
  if (inserted) {
    result = { outcome: 'CREATED', credentialId: inserted.id };
  } else {
    const existing = await credentialBySecretHash(db, secretHash);
    result =
      existing.revoked_at === null
        ? { outcome: 'EXISTS', credentialId: existing.id, role: existing.role }
        : { outcome: 'REVOKED', credentialId: existing.id };
  }
  if (result.outcome === 'CREATED') {
    log?.info({ adminToken: result }, 'ADMIN_TOKEN: created the bootstrap OWNER credential');
  } else if (result.outcome === 'EXISTS') {
    log?.info({ adminToken: result }, 'ADMIN_TOKEN: its credential already exists; nothing changed');
  } else {
    log?.warn(
      { adminToken: result },
      'ADMIN_TOKEN names a revoked credential: it stays revoked and no OWNER was created; ' +
        'unset ADMIN_TOKEN or choose a new secret',
    );
  }
  return result;
}

/** The signed-in operator's own credential (name and role), for the console. */
export async function currentAdmin(db: Kysely<DB>, id: string): Promise<AdminView> {
  const row = await findCredential(db, id);
  if (!row) throw adminCredentialInvalid();
  return adminView(row);
}
