// The tasks the payout worker also runs, at most once per idle interval before a batch, though they
// pay nothing themselves: the link sweep, the draws whose time has come, and the expiry of RESERVED
// claims whose user never linked.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { DEFAULT_RESERVATION_TTL_SECONDS } from '../claims/deferred-rewards.ts';
import { expireReservations } from '../claims/expiry.ts';
import { runDueDraws } from '../draws/service.ts';
import { grantRewardsOfRecentLinks } from './link-sweep.ts';

/** Each task runs through `task`, which keeps one failing task from stopping the others (and the payouts). */
export async function runPeriodicTasks(
  db: Kysely<DB>,
  clock: Clock,
  task: (run: () => Promise<unknown>) => Promise<void>,
  reservationTtlSeconds: number | undefined,
): Promise<void> {
  await task(() => grantRewardsOfRecentLinks(db, clock, { ttlSeconds: reservationTtlSeconds }));
  await task(() => runDueDraws(db, clock));
  await task(() => expireReservations(db, clock, reservationTtlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS));
}
