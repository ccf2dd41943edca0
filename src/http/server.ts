// Assembles the HTTP server: logging with request ids, validation, the error catalog, OpenAPI, and
// the scopes (public, partner, admin) each with its own authentication.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifySchemaValidationError,
  FastifyServerOptions,
} from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ERROR_CATALOG_PATH, TAGS, transformDocument, transformRoute } from './openapi.ts';
import { errorCatalogRoute } from './error-catalog.ts';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { Clock } from '../domain/clock.ts';
import {
  handleClientError,
  handleRequestError,
  registerErrorHandling,
  registerServerLevelAnswers,
} from './error-handler.ts';
import { registerInputGuard } from './input-guard.ts';
import { shuttingDown } from '../error-factories.ts';
import { publicRoutes } from './public-routes.ts';
import { partnerScope } from './partner-scope.ts';
import type { PartnerScopeOptions } from './partner-scope.ts';
import { adminScope } from './admin-scope.ts';
import type { AdminScopeOptions } from './admin-scope.ts';
import { userScope } from './user-scope.ts';
import type { UserScopeOptions } from './user-scope.ts';
import cookie from '@fastify/cookie';
import { webPages } from './web-pages.ts';
import { withLogSerializers } from './log-redaction.ts';
import { processLogOutput } from '../logging/log-output.ts';
import { lazyChildLoggerFactory } from './request-logger.ts';
import { serializersOnFirstUse } from './serializers.ts';
import { securityHeaders } from './security-headers.ts';
import { loadShedding } from './load-shedding.ts';
import { rateLimits } from './rate-limits.ts';
import { httpMetrics } from '../metrics/http-metrics.ts';
import type { PayoutProgress } from '../metrics/payout-progress.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Pass false in tests to silence logs; defaults to JSON logs at config.logLevel. */
  logger?: FastifyServerOptions['logger'];
  /** The payout worker of this process, when it runs one: /readyz and the metrics watch its progress. */
  payoutProgress?: PayoutProgress;
}

export type App = FastifyInstance;

/**
 * What the composition root (src/app.ts) adds to `app.deps`: the services routes share (it
 * augments this interface). The kernel itself needs none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface Services {}

/** The capabilities' routes, ready to register, and what each scope's auth hook asks of them. */
export interface ServerWiring {
  services: Services;
  /** Routes with no credentials (the browser login, public draws, the development provider), each with its prefix. */
  publicRoutes: Array<{ plugin: FastifyPluginAsync; prefix?: string }>;
  partner: PartnerScopeOptions;
  admin: AdminScopeOptions;
  user: UserScopeOptions;
}

/** The OpenAPI servers: this deployment's environment first, then the other one when configured. */
function environmentServers(config: Config): Array<{ url: string; description: string }> {
  const names = { preview: 'Preview (mrk_test_ keys)', production: 'Production (mrk_live_ keys)' } as const;
  const order =
    config.serviceEnvironment === 'production'
      ? (['production', 'preview'] as const)
      : (['preview', 'production'] as const);
  return order.flatMap((environment) => {
    const url = config.environmentBaseUrls[environment];
    return url === undefined ? [] : [{ url, description: names[environment] }];
  });
}

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

type Validate = ((data: unknown, parent?: object) => boolean) & {
  errors?: FastifySchemaValidationError[] | null;
  schemaEnv?: unknown;
};

/**
 * A route's validator, compiled by ajv at the route's first request instead of at start-up, where
 * compiling those of every route cost about 0.3 s of CPU before /healthz could answer
 * (docs/performance.md, "Start-up, fourth round"). Fastify calls it as ajv's own: with the parent
 * (`schemaEnv` set, so that ajv may coerce or default a root value) and reads `errors` after.
 */
function compiledOnFirstUse(ajv: Ajv, schema: object): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data, parent) => {
    compiled ??= ajv.compile(schema) as Validate;
    const valid = compiled(data, parent);
    validate.errors = compiled.errors ?? null;
    return valid;
  };
  validate.schemaEnv = true;
  return validate;
}

/**
 * How often Node looks for requests past their headers/request timeout. Its default (30 s) would
 * let a timed-out request live up to 30 s longer; a fraction of the shortest timeout keeps it close.
 */
function connectionsCheckingInterval(timeouts: Config['httpTimeouts']): number {
  return Math.max(25, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)));
}

/**
 * The HTTP kernel: server options, validation, error handling, limits, OpenAPI and the scopes. The
 * capabilities come in through `wire`, called once the instance exists (some need it, e.g. the
 * login runtime mounts its development provider on this server).
 */
export async function buildServer(deps: AppDeps, wire: (app: App) => Promise<ServerWiring>): Promise<App> {
  const { config } = deps;
  const timeouts = config.httpTimeouts;
  const app = Fastify({
    // Query strings never reach the logs, whoever configured the logger (log-redaction.ts).
    logger: withLogSerializers(
      deps.logger ?? {
        level: config.logLevel,
        redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
        // Standard output with a bounded buffer (src/logging/log-output.ts).
        stream: processLogOutput(config.logBufferMaxBytes).stream,
      },
    ),
    // A hop count trusts that many proxies nearest to us; CIDRs trust those addresses only.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    // request.log is made on its first line (request-logger.ts), not for every request.
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Slow and idle clients are cut off (docs/security.md, "Input handling and timeouts").
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleMs,
    http: {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: connectionsCheckingInterval(timeouts),
      // Node would answer a missing Host with an empty 400; input-guard.ts refuses it with our body.
      requireHostHeader: false,
    },
    // Every answer has our error body, also those Fastify's router and Node's parser produce.
    frameworkErrors: handleRequestError,
    clientErrorHandler: handleClientError,
    // Our onRequest hook below answers requests that arrive while closing, with the error body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
  }) as unknown as App;

  const compilers = validatorCompilers();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compiledOnFirstUse(httpPart === 'body' ? compilers.body : compilers.text, schema),
  );

  // The services join deps once the capabilities are wired (below, after the limits that they use).
  app.decorate('deps', { ...deps } as AppDeps & Services);
  // While shutting down, answers in flight close their connection: otherwise a keep-alive socket
  // left idle after its last answer would hold close() until the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // A request that still arrives while shutting down (on a connection kept alive) is sent elsewhere.
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    request.log.info('request refused: shutting down');
    const error = shuttingDown();
    reply.code(error.status).header('retry-after', '1').send(error.toBody());
  });
  registerErrorHandling(app);
  registerInputGuard(app);
  registerServerLevelAnswers(app);
  // Headers first (so refusals carry them too), then shedding, metrics, then the rate limits.
  await app.register(securityHeaders);
  await app.register(loadShedding);
  // Metrics next: they count every answer, the refusals of the rate limits too.
  await app.register(httpMetrics, deps.payoutProgress ? { payoutProgress: deps.payoutProgress } : {});
  await app.register(rateLimits, { group: app.coalescers });
  // The capabilities, wired by the composition root once the batching queues' group exists.
  const wiring = await wire(app);
  Object.assign(app.deps, wiring.services);

  await app.register(cookie);
  await app.register(swagger, {
    // Operation ids, error responses per status, components and enums (src/http/openapi.ts).
    transform: transformRoute,
    transformObject: (documents) =>
      'openapiObject' in documents
        ? (transformDocument({ openapiObject: documents.openapiObject as Record<string, unknown> }) as never)
        : documents.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mission Reward Service',
        version: '1.0.0',
        description:
          'Partner API (link check, login redirect, connect, achieve), operator API under /admin/v1. ' +
          'Every error has the body {code, name, message}; every code, with what it means and what to ' +
          `do, is listed at ${ERROR_CATALOG_PATH} (x-error-catalog).`,
        contact: { name: 'Mission Reward Service operators' },
      },
      // Both environments' base addresses (docs/environments.md); this deployment's first.
      servers: environmentServers(config),
      tags: [...TAGS],
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
  await app.register(errorCatalogRoute);

  await app.register(publicRoutes);
  for (const { plugin, prefix } of wiring.publicRoutes)
    await app.register(plugin, prefix === undefined ? {} : { prefix });
  await app.register(partnerScope, { prefix: '/v1', ...wiring.partner });
  await app.register(adminScope, { prefix: '/admin/v1', ...wiring.admin });
  await app.register(userScope, { prefix: '/v1/me', ...wiring.user });
  await app.register(webPages, { distDir: config.webDistDir });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps & Services;
  }
  interface FastifyContextConfig {
    /** Errors of this route are shown as an HTML page to a browser (it navigated here). */
    htmlErrors?: boolean;
  }
}
