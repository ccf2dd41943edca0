// The session cookie: after the platform login the browser holds `mrs_session`, a random session
// id whose hash is in PostgreSQL (src/sessions). This file owns the cookie's name and attributes.
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.ts';

export const SESSION_COOKIE = 'mrs_session';

/** Cookies travel over TLS only in production, or whenever the public address is https. */
export function secureCookies(config: Config): boolean {
  return config.nodeEnv === 'production' || config.publicBaseUrl.startsWith('https:');
}

/** Puts a started session on this browser. */
export function setSessionCookie(reply: FastifyReply, config: Config, sessionId: string): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(config),
    maxAge: config.sessionTtlSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(config),
  });
}
