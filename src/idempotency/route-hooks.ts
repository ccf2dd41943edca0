// The hooks that give an Idempotency-Key its semantics (docs/idempotency.md) on the routes that
// declare `config.idempotency`. The composition root adds `idempotencyOnRoute` before the scopes
// register, so the hooks are attached to those routes only: every other route, and every request
// without the header, pays nothing.
import type {
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onResponseHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import {
  idempotencyKeyInUse,
  idempotencyKeyInvalid,
  idempotencyKeyNotAccepted,
  idempotencyKeyReused,
} from '../error-factories.ts';
import { ERROR_NAMES_KEY, errorResponses } from '../http/schemas.ts';
import type { ScopePartner } from '../http/partner-scope.ts';
import type { ScopeAdmin } from '../http/admin-scope.ts';
import { parseIdempotencyKey, requestFingerprint } from './request-key.ts';
import { abandonKeyedRequest, beginKeyedRequest, endKeyedRequest, KEY_TTL_MS } from './service.ts';
import type { IdempotencyDeps, StoredAnswer } from './service.ts';
import type { AnsweredClaim } from './claim-in-statement.ts';

/** Response headers replayed with the body (the request id and security headers are the repeat's own). */
const KEPT_HEADERS = ['content-type', 'location'] as const;

const HEADER = 'idempotency-key';

interface Run {
  scope: string;
  key: string;
  owner: string;
}

// What a keyed request carries, under symbols on the request itself: requests without a key carry
// nothing. Not WeakMaps: with a key on every request, their entries (ephemerons) doubled the
// garbage collector's share of a keyed achieve's CPU (docs/performance.md, "Fourth round").
const RUN = Symbol('idempotency run');
const DEFERRED = Symbol('idempotency deferred key');
interface Keyed {
  [RUN]?: Run | undefined;
  [DEFERRED]?: DeferredKey | undefined;
}
const keyed = (request: FastifyRequest) => request as FastifyRequest & Keyed;
/** Takes the run of a request (once). */
function takeRun(request: FastifyRequest): Run | undefined {
  const run = keyed(request)[RUN];
  if (run !== undefined) keyed(request)[RUN] = undefined;
  return run;
}

/**
 * Partner routes are keyed per partner (the scope is the partner's id: on Citus the keys live on the
 * partner's shard, migration 0043), operator routes per admin credential ('admin:<id>').
 */
function scopeOf(request: FastifyRequest): string {
  const partner = request.partner as ScopePartner | null | undefined;
  if (partner) return partner.id;
  const admin = request.admin as ScopeAdmin | null | undefined;
  if (admin) return `admin:${admin.id}`;
  // Only routes of the partner and admin scopes declare config.idempotency.
  throw new Error('an idempotent route outside the partner and admin scopes');
}

function sendStored(
  reply: FastifyReply,
  answer: { status: number; headers: Record<string, string>; body: string | null },
) {
  reply.code(answer.status).headers(answer.headers).header('idempotent-replayed', 'true');
  return answer.body === null ? reply.send() : reply.send(answer.body);
}

// After authentication and validation (a refused request never pins a key), before the handler.
// Answers true when it has answered (a replay).
async function beginKeyed(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const parsed = parseIdempotencyKey(request.headers[HEADER] as string | string[]);
  if (!parsed.ok) throw idempotencyKeyInvalid(parsed.problem);
  const scope = scopeOf(request);
  const fingerprint = requestFingerprint(request.method, request.url, request.body);
  return claimRun(deps, request, reply, scope, parsed.key, fingerprint);
}

async function claimRun(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
  key: string,
  fingerprint: string,
): Promise<boolean> {
  const result = await beginKeyedRequest(deps, scope, key, fingerprint);
  switch (result.outcome) {
    case 'RUN':
      keyed(request)[RUN] = { scope, key, owner: result.owner };
      return false;
    case 'REPLAY':
      request.log.info({ idempotencyKey: key }, 'idempotent replay');
      await sendStored(reply, result.answer);
      return true;
    case 'OTHER_REQUEST':
      throw idempotencyKeyReused();
    case 'IN_PROGRESS':
      reply.header('retry-after', '1');
      throw idempotencyKeyInUse();
  }
}

/**
 * The key of a request to an `in-statement` route, left for its handler to claim: in the
 * operation's own statement when its answer is known beforehand (`answered`), else the usual way
 * (`claim`) before the operation runs. A handler must do one of the two before it writes anything.
 */
export interface DeferredKey {
  /** The claim to write in the operation's statement, answered with `answer` if it commits. */
  answered(answer: StoredAnswer): AnsweredClaim;
  /**
   * The usual claim (also after `answered` was not taken): true when the request has been answered
   * (a replay of the stored answer); false when the operation is to run, its answer stored as it is
   * sent. Throws IDEMPOTENCY_KEY_IN_USE or IDEMPOTENCY_KEY_REUSED.
   */
  claim(): Promise<boolean>;
}

/** The deferred key of this request, or undefined when it has none (no header, or another route). */
export function deferredKeyOf(request: FastifyRequest): DeferredKey | undefined {
  return keyed(request)[DEFERRED];
}

// A class, not an object of closures: one allocation per keyed request.
class Deferred implements DeferredKey {
  constructor(
    private readonly deps: IdempotencyDeps,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly scope: string,
    private readonly key: string,
    private readonly fingerprint: string,
  ) {}

  answered(answer: StoredAnswer): AnsweredClaim {
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + KEY_TTL_MS);
    const { scope, key, fingerprint } = this;
    return { scope, key, fingerprint, owner: randomUUID(), now, expiresAt, answer };
  }

  claim(): Promise<boolean> {
    return claimRun(this.deps, this.request, this.reply, this.scope, this.key, this.fingerprint);
  }
}

// Synchronous: parses the header and fingerprints the request; the claim is the handler's.
function deferHook(deps: IdempotencyDeps): preHandlerHookHandler {
  return (request, reply, done) => {
    const raw = request.headers[HEADER];
    if (raw === undefined) return done();
    const parsed = parseIdempotencyKey(raw as string | string[]);
    if (!parsed.ok) return done(idempotencyKeyInvalid(parsed.problem));
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    keyed(request)[DEFERRED] = new Deferred(deps, request, reply, scopeOf(request), parsed.key, fingerprint);
    done();
  };
}

// Callback style, not async: a request without the header costs one property read, no promise.
function beginHook(deps: IdempotencyDeps): preHandlerHookHandler {
  return (request, reply, done) => {
    if (request.headers[HEADER] === undefined) return done();
    beginKeyed(deps, request, reply).then(
      (answered) => {
        if (!answered) done();
      },
      (err: Error) => done(err),
    );
  };
}

function refuseHook(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.headers[HEADER] === undefined) return done();
  done(idempotencyKeyNotAccepted());
}

// The answer is stored before the client sees it (onSend), so a repeat never finds the key still
// running once the first answer arrived. The handler has returned by then: for achieve and connect
// that means committed (a 200 means the data is committed), so only a committed answer is stored.
async function storeAnswer(
  deps: IdempotencyDeps,
  run: Run,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  const body =
    payload === undefined || payload === null
      ? null
      : typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : undefined;
  try {
    if (body === undefined) {
      await abandonKeyedRequest(deps, run.scope, run.key, run.owner);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const held = await endKeyedRequest(deps, run.scope, run.key, run.owner, {
      status: reply.statusCode,
      headers,
      body,
    });
    if (!held)
      request.log.warn(
        { idempotencyKey: run.key },
        'idempotency key was taken over before its answer was stored',
      );
  } catch (err) {
    // The operation's outcome stands; the key stays RUNNING until its lease lapses.
    request.log.warn({ err, idempotencyKey: run.key }, 'idempotent answer could not be stored');
  }
}

function endHook(deps: IdempotencyDeps): onSendHookHandler {
  return (request, reply, payload, done) => {
    const run = takeRun(request);
    if (run === undefined) return done(null, payload);
    void storeAnswer(deps, run, request, reply, payload).then(() => done(null, payload));
  };
}

// A request that ended without an answer going through onSend (hijacked, aborted) lets the key go.
function cleanupHook(deps: IdempotencyDeps): onResponseHookHandler {
  return (request, _reply, done) => {
    const run = takeRun(request);
    if (run === undefined) return done();
    abandonKeyedRequest(deps, run.scope, run.key, run.owner)
      .catch((err: unknown) => request.log.warn({ err }, 'idempotency key could not be released'))
      .finally(() => done());
  };
}

const IdempotencyKeyHeader = Type.String({
  description:
    'Optional. A unique key per operation (up to 255 printable ASCII characters, e.g. a UUID; bare or as a quoted ' +
    'string). Repeating the request with the same key within 24 hours replays the first answer ' +
    '(with Idempotent-Replayed: true) instead of running it again. See docs/idempotency.md.',
  examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
});

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

type Schema = { properties?: Record<string, unknown>; [k: string]: unknown };

/** The OpenAPI document shows the header and the two answers it adds. */
function documentHeader(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const headers = (schema.headers as Schema | undefined) ?? Type.Object({});
  const response = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
  // The key's errors join the route's own under their statuses (errorResponses, src/http/openapi.ts).
  const keyErrors = errorResponses(
    'IDEMPOTENCY_KEY_INVALID',
    'IDEMPOTENCY_KEY_IN_USE',
    'IDEMPOTENCY_KEY_REUSED',
  );
  for (const [status, body] of Object.entries(keyErrors) as unknown as Array<[string, Schema]>) {
    const own = (response[status] as Schema | undefined)?.[ERROR_NAMES_KEY];
    const names = [...(Array.isArray(own) ? own : []), ...(body[ERROR_NAMES_KEY] as string[])];
    response[status] = { ...body, [ERROR_NAMES_KEY]: names };
  }
  route.schema = {
    ...schema,
    headers: { ...headers, properties: { ...headers.properties, [HEADER]: IdempotencyKeyHeader } },
    response,
  };
}

/**
 * An onRoute hook: attaches the idempotency hooks to the routes that declare `config.idempotency`
 * (src/http/route-config.ts). Only a POST may: a retried PUT, PATCH or DELETE repeats harmlessly.
 */
export function idempotencyOnRoute(deps: IdempotencyDeps): (route: RouteOptions) => void {
  const begin = beginHook(deps);
  const defer = deferHook(deps);
  const end = endHook(deps);
  const cleanup = cleanupHook(deps);
  return (route) => {
    const mode = route.config?.idempotency;
    if (mode === undefined) return;
    if (toArray(route.method).join() !== 'POST')
      throw new Error(`${route.url}: only a POST route may declare config.idempotency`);
    if (mode === 'refused') {
      route.preHandler = [...toArray(route.preHandler), refuseHook];
      return;
    }
    documentHeader(route);
    route.preHandler = [...toArray(route.preHandler), mode === 'keyed' ? begin : defer];
    route.onSend = [...toArray(route.onSend), end];
    route.onResponse = [...toArray(route.onResponse), cleanup];
  };
}
