// The webhook delivery worker. Due messages are leased with FOR UPDATE SKIP LOCKED (several
// processes share the outbox; none holds a transaction or a connection while it waits on a
// receiver), signed with the standardwebhooks package and POSTed with a short timeout, several at
// once to one endpoint but one user's messages one after another; each attempt is recorded. A
// receiver that fails is retried with exponential backoff and jitter for more than three days,
// then the message is FAILED. A crash at any instant leaves the message PENDING (its lease runs
// out) and it is sent again: at least once; receivers deduplicate by webhook-id.
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import type { Kysely } from 'kysely';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { groupBy } from '../domain/group-by.ts';
import { isPublicAddress } from './addresses.ts';
import type { AddressRules } from './addresses.ts';
import { leaseDueMessages, recordAttempts } from './store/delivery.ts';
import { StuckOutboxPartners, fanOutOutbox } from './store/outbox.ts';
import { YIELD_LOOK_MS, yieldLooks } from './delivery-yield.ts';
import type { DeliveryYield } from './delivery-yield.ts';
import type { Attempt, Leased, Outcome } from './store/delivery.ts';

export { leaseDueMessages } from './store/delivery.ts';

/** Pause after the n-th failed attempt (1-based); past the last, the message is FAILED. Sum: ~3.2 days. */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  ...Array.from({ length: 7 }, () => 10 * 3600_000),
];
/** Attempts in all: the first and one per retry delay. */
export const MAX_WEBHOOK_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The delay before the next try after `attempts` failures, with ±20 % jitter (so failures do not all return at once). */
export function nextDelayMs(attempts: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.8 + 0.4 * random()));
}

export interface DeliveryOptions extends AddressRules {
  timeoutMs: number;
  /** POSTs in flight at once to one endpoint (default 1: all of its messages one after another). */
  concurrency?: number;
  /** Messages leased per round (default 20 for each POST in flight). */
  batchSize?: number;
  /**
   * A round starts no POST later than this long after it began, in ms (default 20 timeouts), so it
   * ends within one more timeout; what it did not send is due again at once. The lease covers that.
   */
  roundMs?: number;
  random?: () => number;
  /** The HTTP client (deliveryAgent); a round without one makes its own and closes it at its end. */
  agent?: Dispatcher;
  /** Leases only messages due at or before this instant (default: now). */
  dueBy?: Date;
  /**
   * Partners whose outbox rows cannot become messages (a bug): passed over a while and reported
   * (startWebhookWorker). Without it such a partner fails the round, once the others' are made.
   */
  stuckOutbox?: StuckOutboxPartners;
}

/** Resolves like the system does, then refuses any non-public address: checked for the address actually connected to. */
function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as Array<{ address: string; family: number }>;
      const refused = list.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (refused || list.length === 0) {
        const err = Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), {
          code: 'EADDRREFUSED',
        });
        return callback(err, '', 0);
      }
      if (options.all) return callback(null, list);
      const first = list[0] as { address: string; family: number };
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * The HTTP client of a worker: undici, keeping connections to each receiver alive (half the CPU a
 * POST of node:http's client, docs/performance.md), every connection made to an address checked by
 * `publicOnlyLookup`. Redirects are not followed.
 */
export function deliveryAgent(options: Pick<DeliveryOptions, 'allowPrivateAddresses'>): Agent {
  return new Agent({ connect: { lookup: publicOnlyLookup(options.allowPrivateAddresses) } });
}

/** The response body is read up to this many bytes, then the connection is dropped. */
const MAX_RESPONSE_BYTES = 65_536;

/** One POST; answers the status code or the error, never throws. */
async function post(
  agent: Dispatcher,
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliveryOptions,
): Promise<Outcome> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): Outcome => ({
    statusCode,
    error: error?.slice(0, 500) ?? null,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done(null, 'invalid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return done(null, 'refused: not http(s)');
  if (options.requireHttps && target.protocol !== 'https:') return done(null, 'refused: https is required');
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !options.allowPrivateAddresses && !isPublicAddress(host))
    return done(null, 'refused: non-public address');
  // The whole exchange, not only idle time, is bounded.
  const timedOut = `timed out after ${options.timeoutMs} ms`;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(timedOut)), options.timeoutMs);
  let statusCode: number | null = null;
  try {
    const response = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      signal: deadline.signal,
    });
    statusCode = response.statusCode;
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      if (read > MAX_RESPONSE_BYTES) {
        response.body.destroy();
        break;
      }
    }
    return done(statusCode, null);
  } catch (error) {
    // An answer whose body broke off still answered.
    if (statusCode !== null) return done(statusCode, null);
    if (deadline.signal.aborted) return done(null, timedOut);
    const cause = (error as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : (error as Error).message;
    return done(null, message);
  } finally {
    clearTimeout(timer);
  }
}

/** The webhook-signature header: a signature per valid secret (both during a roll's grace period). */
function signatures(message: Leased, body: string, sentAt: Date, now: Date): string {
  const secrets = [message.secret];
  if (
    message.previous_secret &&
    message.previous_secret_expires_at &&
    message.previous_secret_expires_at > now
  )
    secrets.push(message.previous_secret);
  return secrets.map((secret) => new Webhook(secret).sign(message.id, sentAt, body)).join(' ');
}

/**
 * Leases up to `batchSize` due messages (PENDING, due, endpoint enabled) and delivers them:
 * endpoints side by side, up to `concurrency` POSTs at once to each, the messages of one sequence
 * (`sequenceOf`) one after another in event order. Answers how many it leased. The lease
 * (next_attempt_at pushed past the round's longest length: POSTs start for `roundMs`, the last
 * ends within one timeout more) is what keeps another worker off a message meanwhile; a
 * crash lets it run out and the message is sent again. Messages the round had no time to start
 * are released, due again at once, with no attempt counted.
 */
export async function runWebhookBatch(
  db: Kysely<DB>,
  clock: Clock,
  options: DeliveryOptions,
): Promise<number> {
  const now = clock.now();
  const concurrency = options.concurrency ?? 1;
  const batchSize = options.batchSize ?? 20 * concurrency;
  const roundMs = options.roundMs ?? 20 * options.timeoutMs;
  const lease = new Date(now.getTime() + roundMs + options.timeoutMs + 5_000);
  // The outbox's rows first: the messages a round may send (store/outbox.ts).
  const stuck = options.stuckOutbox;
  await fanOutOutbox(db, {
    dueBy: options.dueBy ?? now,
    maxRows: batchSize,
    ...(stuck && { skipPartners: stuck.skip(), onPartnerError: (id, error) => stuck.failed(id, error) }),
  });
  const rows = await leaseDueMessages(db, options.dueBy ?? now, lease, batchSize);
  // Measured on the monotonic clock: the round's real length is what the lease must cover.
  const startBy = performance.now() + roundMs;
  const attempts: Attempt[] = [];
  // An Agent opens no connection until it sends: making one for a round with nothing to send is free.
  const agent = options.agent ?? deliveryAgent(options);
  let unsent: Leased[][];
  try {
    unsent = await Promise.all(
      [...groupBy(rows, (row) => row.endpoint_id).values()].map((messages) =>
        sendInOrder(messages, concurrency, startBy, async (message) => {
          attempts.push(await deliver(agent, clock, message, options));
        }),
      ),
    );
  } finally {
    if (agent !== options.agent) await agent.close();
  }
  const released = unsent.flat().map((m) => ({ id: m.id, partnerId: m.partner_id }));
  await recordAttempts(db, attempts, released);
  return rows.length;
}

/**
 * The sequence a message belongs to: its user (`data.partnerUid`), whose events a receiver must see
 * in order (mission.completed before claim.reserved before claim.requested ...); events about no
 * one user (draw.run) form one sequence of their own. Messages of different users may overtake
 * each other, as they may across retries.
 */
export function sequenceOf(message: { payload: unknown }): string {
  const data = (message.payload as { data?: { partnerUid?: unknown } } | null)?.data;
  return typeof data?.partnerUid === 'string' ? `u:${data.partnerUid}` : '';
}

/**
 * Sends one endpoint's `messages` (in event order): up to `concurrency` at once, each only after
 * the earlier ones of its sequence have been answered, none started at or after `startBy` (a
 * monotonic time). With a concurrency of 1 that is event order, one at a time. Answers the
 * messages it did not start. If a send throws, starts nothing more and throws once the ones in
 * flight are done (the round is then not recorded: its lease runs out and it is sent again).
 */
async function sendInOrder(
  messages: Leased[],
  concurrency: number,
  startBy: number,
  send: (message: Leased) => Promise<void>,
): Promise<Leased[]> {
  const waiting = [...messages];
  const unsent: Leased[] = [];
  const running = new Set<string>();
  let failure: { error: unknown } | undefined;
  await new Promise<void>((resolve) => {
    const pump = () => {
      if (failure !== undefined) waiting.length = 0;
      if (performance.now() >= startBy) unsent.push(...waiting.splice(0));
      // A sequence with a message in flight, or one left waiting in this pass, is blocked.
      const blocked = new Set(running);
      for (let i = 0; i < waiting.length && running.size < concurrency;) {
        const message = waiting[i] as Leased;
        const sequence = sequenceOf(message);
        if (blocked.has(sequence)) {
          i += 1;
          continue;
        }
        waiting.splice(i, 1);
        running.add(sequence);
        blocked.add(sequence);
        send(message)
          .then(
            () => undefined,
            (error: unknown) => (failure ??= { error }),
          )
          .finally(() => {
            running.delete(sequence);
            pump();
          });
      }
      if (running.size === 0 && waiting.length === 0) resolve();
    };
    pump();
  });
  if (failure !== undefined) throw failure.error;
  return unsent;
}

async function deliver(
  agent: Dispatcher,
  clock: Clock,
  message: Leased,
  options: DeliveryOptions,
): Promise<Attempt> {
  const body = JSON.stringify(message.payload);
  // webhook-timestamp is the wall-clock time of sending: receivers compare it with their own clock.
  const sentAt = new Date();
  const outcome = await post(
    agent,
    message.url,
    body,
    {
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatures(message, body, sentAt, clock.now()),
      'user-agent': 'mission-reward-service-webhooks/1',
    },
    options,
  );
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const at = clock.now();
  const attempts = message.attempts + 1;
  const delay = ok ? undefined : nextDelayMs(attempts, options.random);
  return {
    id: message.id,
    partnerId: message.partner_id,
    at,
    outcome,
    status: ok ? 'DELIVERED' : delay === undefined ? 'FAILED' : 'PENDING',
    attempts,
    error: ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode}`),
    nextAttemptAt: new Date(at.getTime() + (delay ?? 0)),
    deliveredAt: ok ? at : null,
  };
}

/** How long a worker passes over a partner whose outbox rows could not become messages. */
export const STUCK_OUTBOX_RETRY_MS = 10_000;

/**
 * Runs delivery rounds until stopped: back to back while there is work, else every `idleMs`; with
 * `yieldTo`, while the partner API of its process is saturated, only for messages already
 * `maxHoldMs` late (DeliveryYield).
 */
export function startWebhookWorker(
  db: Kysely<DB>,
  clock: Clock,
  options: DeliveryOptions & { idleMs: number; log?: (err: unknown) => void; yieldTo?: DeliveryYield },
) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // One client for the worker's life: connections to receivers are kept between rounds.
  const agent = options.agent ?? deliveryAgent(options);
  const maxHoldMs = options.yieldTo?.maxHoldMs ?? 0;
  const look = yieldLooks(options.yieldTo);
  // One partner's broken outbox row holds back only that partner's webhooks (store/outbox.ts).
  const stuckOutbox = new StuckOutboxPartners({
    retryMs: STUCK_OUTBOX_RETRY_MS,
    report: (partnerId, error, retryMs) =>
      options.log?.(
        new Error(
          `the webhook outbox rows of partner ${partnerId} could not become messages (kept; its webhooks wait, tried again in ${retryMs / 1000} s)`,
          { cause: error },
        ),
      ),
  });
  const later = (next: () => void, ms: number) => {
    if (!stopped) timer = setTimeout(next, ms);
  };
  const tick = () => {
    if (stopped) return;
    const yieldingNow = look();
    running = (async () => {
      let handled = 0;
      try {
        // Yielding, only what has waited maxHoldMs goes: late by at most that, in event order.
        const dueBy = yieldingNow ? new Date(clock.now().getTime() - maxHoldMs) : undefined;
        handled = await runWebhookBatch(db, clock, {
          ...options,
          agent,
          stuckOutbox,
          ...(dueBy && { dueBy }),
        });
      } catch (error) {
        options.log?.(error);
      }
      if (handled > 0) later(tick, 0);
      else later(tick, yieldingNow ? YIELD_LOOK_MS : options.idleMs);
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      if (agent !== options.agent) await agent.close();
    },
  };
}
