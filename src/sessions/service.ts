// End-user sessions: the browser's cookie carries a random session id, PostgreSQL holds its hash.
// Every process reads the same rows, so ending a session (logout, sign out everywhere) is refused
// by every process from the next request on.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newSecret, sha256Hex } from '../domain/ids.ts';
import * as store from './store.ts';

/** Session ids carry a type prefix so a leaked one is recognisable (as mtk_, adm_, mrk_ are). */
const SESSION_PREFIX = 'mss';
const SESSION_SHAPE = /^mss_[A-Za-z0-9_-]{43}$/;

export interface StartedSession {
  /** The secret the cookie carries; never stored, never logged. */
  id: string;
  expiresAt: Date;
}

export async function startSession(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  ttlSeconds: number,
): Promise<StartedSession> {
  const id = newSecret(SESSION_PREFIX);
  const createdAt = clock.now();
  const expiresAt = new Date(createdAt.getTime() + ttlSeconds * 1000);
  await store.insertSession(db, { idHash: sha256Hex(id), accountId, createdAt, expiresAt });
  return { id, expiresAt };
}

/** The account of a live session id; undefined for anything else (malformed, unknown, ended, expired). */
export async function resolveSession(
  db: Kysely<DB>,
  clock: Clock,
  id: string | undefined,
): Promise<string | undefined> {
  if (id === undefined || !SESSION_SHAPE.test(id)) return undefined;
  return store.findLiveSession(db, sha256Hex(id), clock.now());
}

/** Logout: ends this browser's session (nothing to do for a malformed or unknown id). */
export async function endSession(db: Kysely<DB>, id: string | undefined): Promise<void> {
  if (id === undefined || !SESSION_SHAPE.test(id)) return;
  await store.deleteSession(db, sha256Hex(id));
}

/** Sign out everywhere: ends every session of the account, this one included. */
export async function endAllSessions(db: Kysely<DB>, accountId: string): Promise<number> {
  return store.deleteSessionsOfAccount(db, accountId);
}
