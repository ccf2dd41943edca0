// The development first-OWNER sign-in: `npm start` in development with no ADMIN_TOKEN and no
// operator credential prints the console's address with a one-time code; the console exchanges the
// code (POST /admin/v1/first-sign-in) for a new OWNER credential, shown once. Never in production; a
// second start after an OWNER exists issues nothing. Only the code's hash is kept.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newSecret, sha256Hex } from '../domain/ids.ts';
import { firstSignInInvalid } from '../error-factories.ts';
import { createAdminCredential } from './service.ts';
import { anyCredential, lockFirstSignIn, replaceFirstSignIn, useFirstSignInCode } from './store.ts';

/** How long a printed code works. */
export const FIRST_SIGN_IN_TTL_MS = 60 * 60_000;

/**
 * At start-up: in development, with no ADMIN_TOKEN and no operator credential at all, a new one-time
 * code (earlier unused ones stop working) and the console address that uses it; else undefined.
 */
export async function issueFirstSignIn(
  db: Kysely<DB>,
  clock: Clock,
  options: { nodeEnv: string; adminToken: string | undefined; publicBaseUrl: string },
): Promise<{ url: string; expiresAt: Date } | undefined> {
  if (options.nodeEnv === 'production' || options.adminToken !== undefined) return undefined;
  if (await anyCredential(db)) return undefined;
  const code = newSecret('fsi');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + FIRST_SIGN_IN_TTL_MS);
  await db.transaction().execute(async (trx) => {
    await replaceFirstSignIn(trx, {
      code_hash: sha256Hex(code),
      created_at: now,
      expires_at: expiresAt,
      used_at: null,
    });
  });
  // In the fragment: never sent to a server, so no access log or proxy keeps it.
  return { url: `${options.publicBaseUrl}/console/#first-sign-in=${code}`, expiresAt };
}

/** Exchanges a printed code, once, for the first OWNER credential (its secret shown only here). */
export async function useFirstSignIn(db: Kysely<DB>, clock: Clock, code: string) {
  return db.transaction().execute(async (trx) => {
    // Two tabs using the same code at once: one wins.
    await lockFirstSignIn(trx);
    const now = clock.now();
    const used = await useFirstSignInCode(trx, sha256Hex(code), now);
    if (!used)
      throw firstSignInInvalid(
        'this sign-in code is unknown, used or expired; restart the service for a new one',
      );
    if (await anyCredential(trx))
      throw firstSignInInvalid('an operator credential exists already; sign in with it');
    return createAdminCredential(trx, clock, { name: 'first owner (development)', role: 'OWNER' });
  });
}
