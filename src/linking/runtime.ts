// The login as the server runs it: the relying-party client for the configured issuer, or for the
// embedded development provider, which is then mounted under /dev-oidc of this same server.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type * as client from 'openid-client';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { createDevProvider } from './dev-provider.ts';
import type { DevProvider } from './dev-provider.ts';
import { LoginClient } from './oidc.ts';
import { CALLBACK_PATH } from './service.ts';

import { DEV_PROVIDER_PATH } from '../http/login-paths.ts';

export { DEV_PROVIDER_PATH };

export interface LoginRuntime {
  client: LoginClient;
  /** The embedded development provider, when no LOGIN_OIDC_ISSUER is configured. */
  dev: DevProvider | undefined;
}

/** Requests from our client to the embedded provider stay in process (no socket to ourselves). */
function inProcessFetch(app: () => FastifyInstance, issuer: string): client.CustomFetch {
  const host = new URL(issuer).host;
  return async (url, options) => {
    const target = new URL(url);
    const response = await app().inject({
      method: options.method as 'GET' | 'POST',
      url: `${target.pathname}${target.search}`,
      headers: { ...options.headers, host },
      ...(options.body === undefined || options.body === null ? {} : { payload: String(options.body) }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : response.rawPayload, { status: response.statusCode, headers });
  };
}

export async function createLoginRuntime(
  config: Config,
  clock: Clock,
  app: () => FastifyInstance,
): Promise<LoginRuntime> {
  const redirectUri = `${config.publicBaseUrl}${CALLBACK_PATH}`;
  const { login } = config;
  if (login.issuer !== undefined) {
    return {
      dev: undefined,
      client: new LoginClient({ ...login, issuer: login.issuer, redirectUri, clock }),
    };
  }
  const issuer = `${config.publicBaseUrl}${DEV_PROVIDER_PATH}`;
  const dev = await createDevProvider({
    issuer,
    clients: [{ client_id: login.clientId, client_secret: login.clientSecret, redirect_uris: [redirectUri] }],
    proxy: config.trustProxy !== false,
  });
  const loginClient = new LoginClient({
    ...login,
    issuer,
    idTokenAlg: 'ES256',
    redirectUri,
    clock,
    fetch: inProcessFetch(app, issuer),
    localJwks: dev.publicJwks,
  });
  return { dev, client: loginClient };
}

/** Mounts the development provider: its Koa app reads the raw request, body included. */
export function devProviderRoutes(dev: DevProvider): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    app.all(`${DEV_PROVIDER_PATH}/*`, { schema: { hide: true } }, (request, reply) => {
      reply.hijack();
      const raw = request.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = (raw.url ?? '/').slice(DEV_PROVIDER_PATH.length) || '/';
      dev.handle(raw, reply.raw);
    });
  };
}
