// Assembles the HTTP server: logging with request ids, validation, the error catalog, OpenAPI, and
// the scopes (public, partner, admin) each with its own authentication.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { Clock } from '../domain/clock.ts';
import { registerErrorHandling } from './error-handler.ts';
import { publicRoutes } from './public-routes.ts';
import { partnerScope } from './partner-scope.ts';
import { adminScope } from './admin-scope.ts';
import { userScope } from './user-scope.ts';
import cookie from '@fastify/cookie';
import { createLoginRuntime, devProviderRoutes } from '../linking/runtime.ts';
import type { LoginRuntime } from '../linking/runtime.ts';
import { loginRoutes } from '../linking/routes/login.ts';
import { createHotPathCaches } from '../cache/hot-path.ts';
import type { HotPathCaches } from '../cache/hot-path.ts';
import { webPages } from './web-pages.ts';
import { drawPublicRoutes } from '../rewards/routes/draws.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Pass false in tests to silence logs; defaults to JSON logs at config.logLevel. */
  logger?: FastifyServerOptions['logger'];
}

export type App = FastifyInstance;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function validatorCompilers() {
  // Bodies are JSON and must carry the right types: "true" is not a boolean. Query strings and
  // path parameters are text by nature, so there numbers and booleans are coerced.
  const options = { useDefaults: true, removeAdditional: false, allErrors: false, strict: false } as const;
  const body = new Ajv({ ...options, coerceTypes: false });
  const text = new Ajv({ ...options, coerceTypes: 'array' });
  addFormats(body);
  addFormats(text);
  return { body, text };
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
    },
    // A hop count trusts that many proxies nearest to us; CIDRs trust those addresses only.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? ((hops: number) => (_address: string, hop: number) => hop < hops)(config.trustProxy)
        : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
  }) as unknown as App;

  const compilers = validatorCompilers();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? compilers.body : compilers.text).compile(schema),
  );

  const login = await createLoginRuntime(config, deps.clock, () => app);
  const caches = await createHotPathCaches(deps.database, config.cacheTtlMs);
  app.addHook('onClose', async () => caches.stop());
  app.decorate('deps', { ...deps, login, caches });
  if (login.dev) {
    app.log.warn(
      { issuer: login.dev.issuer },
      'DEVELOPMENT login provider enabled: any user name signs in without a password. Set LOGIN_OIDC_ISSUER for real logins.',
    );
  }
  // While shutting down, answers in flight close their connection: otherwise a keep-alive socket
  // left idle after its last answer would hold close() until the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  registerErrorHandling(app);

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mission Reward Service',
        version: '1.0.0',
        description:
          'Partner API (link check, login redirect, connect, achieve), operator API under /admin/v1. ' +
          'Every error has the body {code, name, message}; see docs/errors.md.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          partnerId: { type: 'apiKey', in: 'header', name: 'X-Partner-Id' },
          partnerApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          adminBearer: { type: 'http', scheme: 'bearer' },
          userSession: { type: 'apiKey', in: 'cookie', name: 'mrs_session' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(publicRoutes);
  await app.register(loginRoutes, { prefix: '/v1' });
  await app.register(drawPublicRoutes, { prefix: '/v1' });
  if (login.dev) await app.register(devProviderRoutes(login.dev));
  await app.register(partnerScope, { prefix: '/v1' });
  await app.register(adminScope, { prefix: '/admin/v1' });
  await app.register(userScope, { prefix: '/v1/me' });
  await app.register(webPages, { distDir: config.webDistDir });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps & { login: LoginRuntime; caches: HotPathCaches };
  }
  interface FastifyContextConfig {
    /** Errors of this route are shown as an HTML page to a browser (it navigated here). */
    htmlErrors?: boolean;
  }
}
