// Request rate limits (docs/security.md, "Rate limits"): per source address on routes without
// partner or operator credentials, fewer for login starts, per partner on the partner API, and
// stricter limits on failed partner keys and admin bearers. Counters are shared by every process.
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { rateLimited } from '../error-factories.ts';
import type { RateLimitConfig } from '../config.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import type { CounterStore } from '../limits/counters.ts';
import { postgresCounters, redisCounters } from '../limits/counters.ts';
import { withBreaker } from '../limits/counter-breaker.ts';
import { PartnerLeases } from './partner-leases.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counting of partner calls and failed credentials, for the partner and admin scopes. */
    limits: RequestLimits;
  }
  interface FastifyContextConfig {
    /** Set by the partner and admin scopes: their routes are limited by credential, not by address. */
    limitedBy?: 'partner' | 'admin';
  }
}

export interface RequestLimits {
  /** Counts an authenticated partner's call; throws RATE_LIMITED beyond the partner's limit. */
  partnerCall(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts a failed partner key (per address and per partner id); throws RATE_LIMITED beyond either limit. */
  failedPartnerKey(
    request: FastifyRequest,
    reply: FastifyReply,
    partnerId: string | undefined,
  ): Promise<void>;
  /** Counts a failed admin bearer per address; throws RATE_LIMITED beyond the limit. */
  failedAdminBearer(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Deletes expired counters now (also done every window by a timer). */
  purgeExpired(): Promise<number>;
}

/** Routes that start a login: each writes a login state row, so they have limits of their own. */
const LOGIN_STARTS = new Set(['GET /v1/login', 'GET /v1/mission-users/auth']);

/**
 * Health probes come often from a few load-balancer addresses, and must answer even when the
 * counters cannot (a probe that waited for them would report a healthy process as down).
 */
const PROBES = new Set(['GET /healthz', 'GET /readyz', 'GET /metrics']);

// IPv6 clients usually hold a whole /64: counting per address would give each of them 2^64 budgets.
const addressOf = (request: FastifyRequest) => normalizeIP(request.ip, 64);

/**
 * The browser that starts a login, by the hash of its login binding cookie (set by the first start,
 * sent back on a restart); '' when it has none. Hashed: the counter key must not hold the binding.
 */
function browserOf(request: FastifyRequest): string {
  const cookie = /(?:^|;\s*)mrs_login=([^;]{1,200})/.exec(request.headers.cookie ?? '')?.[1];
  return cookie === undefined ? '' : createHash('sha256').update(cookie).digest('base64url').slice(0, 22);
}

function refuse(reply: FastifyReply, ttlMs: number, what: string, limit: string): never {
  reply.server.metrics.rateLimitRefusals.inc({ limit });
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  reply.header('retry-after', String(seconds));
  throw rateLimited(what, seconds);
}

/** After Redis failed, how long it is skipped before one request probes it again. */
const REDIS_COOL_DOWN_MS = 1000;

async function openCounters(
  config: RateLimitConfig,
  app: FastifyInstance,
  group: CoalescerGroup,
): Promise<CounterStore> {
  if (config.redisUrl === undefined) return postgresCounters(app.deps.database.db, group);
  // Redis away must cost nothing (DESIGN.md invariant 9): no offline queue (a command fails at once
  // while disconnected instead of waiting for a reconnect), no retry of a command, a short command
  // timeout for a Redis that hangs, and a breaker that skips Redis until it answers again.
  const redis = new Redis(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: config.redisTimeoutMs,
    connectTimeout: 2000,
    lazyConnect: false,
  });
  const up = app.metrics.rateLimitStoreUp;
  up.set(1);
  const counters = withBreaker(redisCounters(redis, config.redisKeyPrefix), {
    coolDownMs: REDIS_COOL_DOWN_MS,
    onOpen(err) {
      up.set(0);
      app.log.warn(
        { err: { message: err instanceof Error ? err.message : String(err) } },
        'rate-limit Redis unavailable: limits fail open (not counted) until it answers again',
      );
    },
    onClose() {
      up.set(1);
      app.log.info('rate-limit Redis answers again: limits count again');
    },
  });
  // Connection errors repeat with every reconnect attempt: they open the breaker, which logs once.
  redis.on('error', (err: Error) => counters.trip(err));
  redis.on('ready', () => counters.probeNow());
  // Start with a connection when Redis is there, without holding start-up when it is not.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done).off('error', done);
      resolve();
    };
    redis.once('ready', done).once('error', done);
  });
  return counters;
}

/** A request let through uncounted because the counters are away (Redis; fails open by design). */
function letThrough(reply: FastifyReply, limit: string): void {
  reply.server.metrics.rateLimitUnavailable.inc({ limit });
}

export const rateLimits = fp(
  async (app: FastifyInstance, options: { group: CoalescerGroup }) => {
    const config = app.deps.config.rateLimits;
    const windowMs = config.windowSeconds * 1000;
    const counters = await openCounters(config, app, options.group);

    // @fastify/rate-limit keys, windows and compares; our store holds the counts.
    class SharedStore {
      incr(
        key: string,
        callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
        timeWindow: number,
      ): void {
        counters.hit(key, timeWindow).then(
          ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
          (error: Error) => callback(error),
        );
      }
      child(): SharedStore {
        return this;
      }
    }
    await app.register(rateLimit, { global: false, store: SharedStore, timeWindow: windowMs });

    const limiter = (name: string, max: number, key: (request: FastifyRequest) => string) =>
      max === 0
        ? undefined
        : app.createRateLimit({
            max,
            timeWindow: windowMs,
            keyGenerator: (request) => `${name}:${key(request)}`,
          });
    const byAddress = limiter('addr', config.perAddress, addressOf);
    const loginByAddress = limiter('login', config.loginPerAddress, addressOf);
    const loginByBrowser = limiter('login-browser', config.loginPerBrowser, browserOf);
    // The partner limit is counted in leases (partner-leases.ts): no statement per call.
    const partnerLeases =
      config.perPartner === 0 ? undefined : new PartnerLeases(counters, config.perPartner, windowMs);

    // A counter store that is away (Redis down) must not take the service down with it.
    async function check(
      request: FastifyRequest,
      reply: FastifyReply,
      limit: ReturnType<typeof limiter>,
      what: string,
      name: string,
    ) {
      if (limit === undefined) return;
      let result;
      try {
        result = await limit(request);
      } catch (err) {
        if (config.redisUrl === undefined) throw err;
        letThrough(reply, name);
        return;
      }
      if (result.isAllowed) return;
      reply
        .header('x-ratelimit-limit', String(result.max))
        .header('x-ratelimit-remaining', String(result.remaining));
      if (result.isExceeded) refuse(reply, result.ttl, what, name);
    }

    async function countFailure(
      request: FastifyRequest,
      reply: FastifyReply,
      key: string,
      max: number,
      what: string,
      name: string,
    ) {
      if (max === 0) return;
      let state;
      try {
        state = await counters.hit(key, windowMs);
      } catch (err) {
        if (config.redisUrl === undefined) throw err;
        letThrough(reply, name);
        return;
      }
      if (state.count > max) refuse(reply, state.ttlMs, what, name);
    }

    // The partner and operator routes count in their scopes (partnerCall, below): for them this hook
    // answers at once, without a promise.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config?.limitedBy !== undefined) {
        done();
        return;
      }
      byAddressOrLogin(request, reply).then(() => done(), done);
    });

    async function byAddressOrLogin(request: FastifyRequest, reply: FastifyReply) {
      const route = `${request.method} ${request.routeOptions.url ?? ''}`;
      if (PROBES.has(route)) return;
      if (LOGIN_STARTS.has(route)) {
        // Login starts have limits of their own (docs/security.md): per browser where the browser is
        // known by its login binding, and per address at a level a carrier NAT's crowd survives.
        if (browserOf(request) !== '')
          await check(request, reply, loginByBrowser, 'login starts from this browser', 'login_per_browser');
        await check(request, reply, loginByAddress, 'login starts from this address', 'login_per_address');
        return;
      }
      await check(request, reply, byAddress, 'requests from this address', 'per_address');
    }

    app.decorate('limits', {
      async partnerCall(request, reply) {
        if (partnerLeases === undefined) return;
        let decision;
        try {
          decision = await partnerLeases.take(`partner:${request.partner.id}`);
        } catch (err) {
          if (config.redisUrl === undefined) throw err;
          letThrough(reply, 'per_partner');
          return;
        }
        if (decision.allowed) return;
        reply.header('x-ratelimit-limit', String(config.perPartner)).header('x-ratelimit-remaining', '0');
        refuse(reply, decision.ttlMs, 'requests for this partner', 'per_partner');
      },
      async failedPartnerKey(request, reply, partnerId) {
        await countFailure(
          request,
          reply,
          `fail-partner-addr:${addressOf(request)}`,
          config.failedAuthPerAddress,
          'failed credentials from this address',
          'failed_auth_per_address',
        );
        if (partnerId !== undefined) {
          await countFailure(
            request,
            reply,
            `fail-partner-id:${partnerId}`,
            config.failedAuthPerPartner,
            'failed credentials for this partner id',
            'failed_auth_per_partner',
          );
        }
      },
      failedAdminBearer: (request, reply) =>
        countFailure(
          request,
          reply,
          `fail-admin-addr:${addressOf(request)}`,
          config.failedAuthPerAddress,
          'failed credentials from this address',
          'failed_admin_auth_per_address',
        ),
      purgeExpired: () => counters.purgeExpired(),
    } satisfies RequestLimits);

    // Every process purges; a row deleted twice is harmless.
    const purge = setInterval(() => {
      counters
        .purgeExpired()
        .catch((err: unknown) => app.log.warn({ err }, 'purging expired rate-limit counters failed'));
    }, windowMs);
    purge.unref();
    app.addHook('onClose', async () => {
      clearInterval(purge);
      await counters.close();
    });
  },
  { name: 'rate-limits' },
);
