// Idempotency keys (IETF httpapi idempotency-key draft, Stripe's semantics; docs/idempotency.md):
// the first request with a key runs and its answer is kept 24 hours; a repeat with the same
// request replays it, with another request is refused, and while the first still runs is told so.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import type { Clock } from '../domain/clock.ts';
import * as store from './store.ts';

/** How long a first answer is replayed. */
export const KEY_TTL_MS = 24 * 3600 * 1000;
/**
 * How long a run holds its key before a repeat may take it over: only a run whose process died
 * gets that old (statements time out after DATABASE_STATEMENT_TIMEOUT_MS, 15 s by default).
 */
export const DEFAULT_LEASE_MS = 60 * 1000;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** What a request with a key is to do. */
export type KeyOutcome =
  | { outcome: 'RUN'; owner: string }
  | { outcome: 'REPLAY'; answer: StoredAnswer }
  | { outcome: 'OTHER_REQUEST' }
  | { outcome: 'IN_PROGRESS' };

export interface IdempotencyDeps {
  db: Kysely<DB>;
  clock: Clock;
  leaseMs?: number;
  /** The app's batching queues (src/db/coalescer.ts): the key batches join them. */
  group?: CoalescerGroup;
}

/** Claims the key for this request, or says why the request is not to run. */
export async function beginKeyedRequest(
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  fingerprint: string,
): Promise<KeyOutcome> {
  // A row deleted between our failed claim and our read (its run ended in a 5xx) is free again:
  // claim once more. Three rounds are plenty; each needs another run to end in between.
  for (let round = 0; round < 3; round++) {
    const now = deps.clock.now();
    const owner = randomUUID();
    const claimed = await store.claimKey(
      deps.db,
      {
        scope,
        key,
        fingerprint,
        owner,
        now,
        lockedUntil: new Date(now.getTime() + (deps.leaseMs ?? DEFAULT_LEASE_MS)),
        expiresAt: new Date(now.getTime() + KEY_TTL_MS),
      },
      deps.group,
    );
    if (claimed) return { outcome: 'RUN', owner };
    const row = await store.findKey(deps.db, scope, key);
    if (row === undefined || row.expires_at <= now) continue;
    if (row.fingerprint !== fingerprint) return { outcome: 'OTHER_REQUEST' };
    if (row.state === 'RUNNING') return { outcome: 'IN_PROGRESS' };
    return {
      outcome: 'REPLAY',
      answer: {
        status: row.response_status as number,
        headers: row.response_headers ?? {},
        body: row.response_body,
      },
    };
  }
  return { outcome: 'IN_PROGRESS' };
}

/**
 * Which answers pin the key. Every answer the operation gave (2xx, and 4xx such as an unknown
 * mission) is kept, as Stripe does; a 5xx, 408 or 429 says "try again" and lets the key go.
 */
export function answerIsKept(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

/** Ends a run: keeps its answer, or lets the key go. False when the run no longer held the key. */
export async function endKeyedRequest(
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  owner: string,
  answer: StoredAnswer,
): Promise<boolean> {
  if (answerIsKept(answer.status)) return store.recordAnswer(deps.db, scope, key, owner, answer, deps.group);
  await store.releaseKey(deps.db, scope, key, owner);
  return true;
}

/** Lets the key go without an answer (the request ended before one was sent). */
export async function abandonKeyedRequest(
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  owner: string,
): Promise<void> {
  await store.releaseKey(deps.db, scope, key, owner);
}
