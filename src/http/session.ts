// End-user sessions: after the platform login, the browser holds a cookie naming the platform
// account, signed with SESSION_SECRET (HMAC-SHA256) and carrying its own expiry. Stateless, so
// any process behind the load balancer can read it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.ts';

export const SESSION_COOKIE = 'mrs_session';

interface SessionPayload {
  /** platform account id */
  sub: string;
  /** expiry, seconds since the epoch */
  exp: number;
}

function sign(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

export function createSessionToken(accountId: string, now: Date, ttlSeconds: number, secret: string): string {
  const payload: SessionPayload = { sub: accountId, exp: Math.floor(now.getTime() / 1000) + ttlSeconds };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, secret)}`;
}

/** The account id of a valid, unexpired session token; undefined otherwise. */
export function readSessionToken(token: string, now: Date, secret: string): string | undefined {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0) return undefined;
  const expected = Buffer.from(sign(body, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<SessionPayload>;
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
    return payload.exp * 1000 > now.getTime() ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a session for a platform account on this browser. */
export function setSessionCookie(reply: FastifyReply, config: Config, accountId: string, now: Date): void {
  reply.setCookie(SESSION_COOKIE, createSessionToken(accountId, now, config.sessionTtlSeconds, config.sessionSecret), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicBaseUrl.startsWith('https:'),
    maxAge: config.sessionTtlSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
