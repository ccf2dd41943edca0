// Every environment variable the service reads, parsed and validated once into a typed object.
// A bad value stops start-up with a message naming the variable.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTimeouts } from './db/connection.ts';

export type TrustProxy = false | number | string[];

export interface Config {
  /** TCP port of the HTTP server. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** PostgreSQL connection string; undefined means embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Folder for the embedded database and other local state. */
  dataDir: string;
  /** When set, an OWNER admin credential with this secret is ensured at start. */
  adminToken: string | undefined;
  /** Which proxies to believe about the client IP: false (none), a hop count, or CIDRs/IPs. */
  trustProxy: TrustProxy;
  /** Public base URL of this service, used to build absolute links (login callback, docs). */
  publicBaseUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Most bytes of log lines waiting for a slow standard output; beyond it lines are dropped and
   * counted (mrs_log_lines_dropped_total) rather than kept in the heap (LOG_BUFFER_MAX_BYTES).
   */
  logBufferMaxBytes: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /** Connections in the PostgreSQL pool (ignored for PGlite, which has one). */
  databasePoolSize: number;
  /** Bounds on waits for the database: pool acquire, statement_timeout, lock_timeout (docs/operations.md). */
  databaseTimeouts: DatabaseTimeouts;
  /** How long start-up waits and retries for an unreachable database before it exits 1, in ms. */
  databaseStartupWaitMs: number;
  /** How long SIGTERM/SIGINT may take to finish requests and close; then the process exits anyway. */
  shutdownTimeoutMs: number;
  /** /readyz: how long its database query may take, and how many queries may wait for the pool. */
  readiness: {
    timeoutMs: number;
    maxPoolWaiting: number;
    /**
     * Not ready when this process runs the payout worker, a REQUESTED claim is older than this and no
     * payout batch finished within it, in ms.
     */
    payoutStallMs: number;
    /**
     * Not ready while the process spends more than this share (percent) of the last seconds collecting
     * garbage: saturated by its own work (a heap at its limit), it cannot serve; 0 = off.
     */
    maxGcPercent: number;
  };
  /** 'production' refuses development-only conveniences. */
  nodeEnv: string;
  /** The wallet connectors the mission page offers besides injected wallets (docs/wallets.md). */
  walletConnectors: WalletConnectorConfig;
  /** Which partner-facing environment this deployment is (docs/environments.md). */
  serviceEnvironment: ServiceEnvironment;
  /** The base address of each environment, for the OpenAPI document's servers; this one's is always set. */
  environmentBaseUrls: Partial<Record<ServiceEnvironment, string>>;
  /** Lifetime of an end-user session, in seconds. */
  sessionTtlSeconds: number;
  login: LoginConfig;
  /** Run the payout worker inside the service process. */
  payoutWorker: boolean;
  /** OpenTelemetry traces exported over OTLP/HTTP; undefined: tracing is off (docs/operations.md "Traces"). */
  tracing: TracingConfig | undefined;
  /** Pause of an idle payout worker between looks for work, in milliseconds. */
  payoutIdleMs: number;
  /** Folder of the built web pages (mission page and console), served under /app and /console. */
  webDistDir: string;
  /** How long a claim waits in RESERVED for its user to link before it expires. */
  claimReservationTtlSeconds: number;
  /** Longest life of a hot-path cache entry (partner credentials, mission catalog), in ms. */
  cacheTtlMs: number;
  /** Refuse to bind a payout address that another account has bound (docs/rewards.md "Caps"). */
  payoutAddressOneAccount: boolean;
  /**
   * Batches of one kind (link checks, progress reports, completions) written at once per process;
   * requests arriving meanwhile wait and go together in the next batch (docs/performance.md).
   */
  batchConcurrency: number;
  /** Completion-rate alarm (docs/security.md "Reward farming"): the recent window, in seconds. */
  completionAlarmWindowSeconds: number;
  /** ... fires when a partner's completions in the window exceed this multiple of its baseline ... */
  completionAlarmMultiple: number;
  /** ... and are at least this many (a quiet partner's first few completions are no jump). */
  completionAlarmMinCompletions: number;
  /** Timeouts of the HTTP server (docs/security.md, "Input handling and timeouts"). */
  httpTimeouts: HttpTimeouts;
  /** Key-encryption key of reward-wallet keys (AES-256-GCM, 32 bytes); undefined = dev key in dataDir. */
  walletKek: Buffer | undefined;
  /** Earlier key-encryption keys still accepted for decryption while a rotation runs (WALLET_KEK_PREVIOUS). */
  walletKekPrevious: Buffer[];
  /** Request rate limits (docs/security.md, "Rate limits"). */
  rateLimits: RateLimitConfig;
  /** Refusing work the process cannot do in time (docs/security.md, "Load shedding and queues"). */
  loadShedding: LoadSheddingConfig;
  /** Origins that may frame the mission page (/app), as CSP frame-ancestors sources. */
  frameAncestors: string[];
  /** DEV_CHAIN: `npm start` runs the embedded development chain when no other network is registered. */
  devChain: boolean;
  /**
   * Where a network's RPC URL may point (docs/security.md): any address outside production unless
   * set; in production public addresses plus these hosts (CHAIN_RPC_ALLOWED_HOSTS: a node inside the
   * operator's network). Undefined = any address.
   */
  chainRpcAllowedHosts: string[] | undefined;
  /** Webhook delivery (docs/webhooks.md). */
  webhooks: WebhookConfig;
  /** Prometheus metrics (docs/operations.md, "Metrics and alerts"). */
  metrics: MetricsConfig;
}

/** Where /metrics is served and how its labels and database readings are bounded. */
export interface MetricsConfig {
  /** METRICS_TOKEN: /metrics on the main port answers a request with this bearer token; undefined = not there. */
  token: string | undefined;
  /** METRICS_PORT: a separate operations port serving /metrics, /healthz and /readyz; undefined = none. */
  port: number | undefined;
  /** METRICS_HOST: the interface of the operations port (loopback by default). */
  host: string;
  /** Most distinct partner label values; the others are counted as "other". */
  maxPartnerLabels: number;
  /** How long a scrape-time database reading is reused, in ms (a scrape storm runs one query per interval). */
  databaseReadingCacheMs: number;
  /** How long a scrape-time database reading may take before the scrape goes on without it, in ms. */
  databaseReadingTimeoutMs: number;
}

export interface WebhookConfig {
  /** Run the webhook delivery worker inside the service process (and in `npm run worker`). */
  worker: boolean;
  /** Pause of an idle webhook worker between looks for due messages, in ms. */
  idleMs: number;
  /** How long one delivery may take (connect, send, answer), in ms. */
  timeoutMs: number;
  /** POSTs in flight at once to one endpoint; one user's messages still go one after another. */
  concurrency: number;
  /**
   * How long, in ms, a message may be held back by the delivery in the service's own process while
   * its partner API is saturated (docs/webhooks.md, "Delivery under load"); 0 holds nothing back.
   * `npm run worker` has no API.
   */
  yieldMs: number;
  /** Endpoint URLs must be https (always in production). */
  requireHttps: boolean;
  /** Endpoints may point at private, loopback or link-local addresses (tests, local development only). */
  allowPrivateAddresses: boolean;
}

/** WEBHOOK_*: the delivery worker, its timeout, and the address rules (refused in production). */
export function loadWebhookConfig(env: Env, nodeEnv: string): WebhookConfig {
  const allowPrivateAddresses = booleanSetting(env, 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES', false);
  if (allowPrivateAddresses && nodeEnv === 'production') {
    throw new ConfigError(
      'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
      'is refused when NODE_ENV=production (endpoints must be public addresses)',
    );
  }
  return {
    worker: booleanSetting(env, 'WEBHOOK_WORKER', true),
    idleMs: integer(env, 'WEBHOOK_IDLE_MS', 1000, 10, 60_000),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 64),
    yieldMs: integer(env, 'WEBHOOK_YIELD_MS', 30_000, 0, 600_000),
    requireHttps: nodeEnv === 'production',
    allowPrivateAddresses,
  };
}

/** How long a client may take, in milliseconds; a slow or idle client is cut off. */
export interface HttpTimeouts {
  /** Whole request (headers and body) must arrive within this; else 408. */
  requestMs: number;
  /** Request headers must arrive within this (at most requestMs); else 408. */
  headersMs: number;
  /** An idle keep-alive connection between requests is closed after this. */
  keepAliveMs: number;
  /** A connection on which nothing moves for this long is closed, whatever its state. */
  idleMs: number;
}

/** Requests allowed per window; 0 turns a limit off. Counters live in PostgreSQL, or Redis when redisUrl is set. */
export interface RateLimitConfig {
  windowSeconds: number;
  /** Routes without partner or operator credentials (public, login, pages, /v1/me), per source address. */
  perAddress: number;
  /** Login starts (/v1/login, /v1/mission-users/auth) per source address: each writes a row; a carrier NAT's crowd shares one address. */
  loginPerAddress: number;
  /** Login starts per browser (its login binding cookie), where the browser sends one. */
  loginPerBrowser: number;
  /** Partner API calls per authenticated partner. */
  perPartner: number;
  /** Failed partner keys or admin bearers per source address; beyond it the address is refused before checking. */
  failedAuthPerAddress: number;
  /** Failed API keys per partner id; beyond it a wrong key answers 429 (a right key still works). */
  failedAuthPerPartner: number;
  redisUrl: string | undefined;
  /** Prefix of the counter keys in Redis (one Redis may serve several deployments). */
  redisKeyPrefix: string;
  /** A Redis command not answered within this many ms fails (the limit fails open; the breaker opens). */
  redisTimeoutMs: number;
}

export interface LoadSheddingConfig {
  /** Mean event-loop delay in ms beyond which requests are refused with 503; 0 = off. */
  maxEventLoopDelayMs: number;
  /** Heap in use beyond which requests are refused with 503; 0 = off. */
  maxHeapUsedBytes: number;
  /** Resident memory beyond which requests are refused with 503; 0 = off. */
  maxRssBytes: number;
  /** Retry-After (seconds) of every 503 that does not set its own. */
  retryAfterSeconds: number;
  /** Most requests waiting in one batching queue (src/db/coalescer.ts). */
  queueMaxWaiting: number;
  /** Longest wait in a batching queue, in ms, before the request is refused. */
  queueMaxWaitMs: number;
  /**
   * Most connections open at once on the public port; a new one beyond it is closed as it is
   * accepted, at once (overload arriving as new connections, issue #28 fault 12); 0 = no bound.
   */
  maxConnections: number;
  /**
   * Percent of two 25 ms windows in a row the event loop was busy (its utilization) at or beyond
   * which, while a crowd of new connections arrives, new ones are refused as they are accepted and
   * the ones open are served (issue #28 fault 12; src/http/load-shedding.ts); 0 = off.
   */
  maxLoopUtilizationPercent: number;
}

export type BrowserType = 'MINI' | 'LIFF' | 'WEB';

export type ServiceEnvironment = 'preview' | 'production';

/**
 * SERVICE_ENVIRONMENT: preview (the default) or production. Independent of NODE_ENV (a preview
 * deployment may run NODE_ENV=production with a real login), except that production needs
 * NODE_ENV=production: the development conveniences never serve live keys.
 */
export function parseServiceEnvironment(raw: string | undefined, nodeEnv: string): ServiceEnvironment {
  const value = raw ?? 'preview';
  if (value !== 'preview' && value !== 'production')
    throw new ConfigError('SERVICE_ENVIRONMENT', `must be 'preview' or 'production', got '${value}'`);
  if (value === 'production' && nodeEnv !== 'production')
    throw new ConfigError('SERVICE_ENVIRONMENT', `'production' needs NODE_ENV=production, got '${nodeEnv}'`);
  return value;
}

function environmentBaseUrls(
  env: Env,
  current: ServiceEnvironment,
  publicBaseUrl: string,
): Partial<Record<ServiceEnvironment, string>> {
  const read = (name: string) => {
    const raw = nonEmpty(env, name);
    return raw === undefined ? undefined : url(env, name, raw, ['http:', 'https:']).replace(/\/+$/, '');
  };
  const preview = read('PUBLIC_BASE_URL_PREVIEW');
  const production = read('PUBLIC_BASE_URL_PRODUCTION');
  return {
    ...(preview !== undefined && { preview }),
    ...(production !== undefined && { production }),
    // This deployment's own address is PUBLIC_BASE_URL unless its environment's variable says otherwise.
    [current]: (current === 'preview' ? preview : production) ?? publicBaseUrl,
  };
}

/** The platform login (OpenID Connect; LINE Login in production). */
export interface LoginConfig {
  /** Issuer URL; undefined means the embedded development provider under /dev-oidc. */
  issuer: string | undefined;
  clientId: string;
  clientSecret: string;
  /** Algorithm of the ID tokens the token endpoint returns (LINE web login: HS256). */
  idTokenAlg: string;
  /** Space-separated scopes asked for. */
  scopes: string;
  /** Extra authorization parameters per browser type (LINE: auto login in the app, web login outside). */
  params: Record<BrowserType, Record<string, string>>;
  /** LIFF app id: MINI and LIFF logins go through the LIFF entry page instead of the web login. */
  liffId: string | undefined;
  /** How long a started login may take, in seconds. */
  stateTtlSeconds: number;
  /** How long a one-time mapping token stays valid, in seconds. */
  tokenTtlSeconds: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Every on/off setting reads the same way: 'true' or 'false' (any case), nothing else. '0', 'no' or
 * 'False ' used to switch PAYOUT_WORKER on while WEBHOOK_WORKER refused them; now each stops start-up.
 */
export function booleanSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false')
    throw new ConfigError(name, `must be 'true' or 'false', got '${env[name]}'`);
  return raw === 'true';
}

/** The non-empty, trimmed entries of a comma-separated setting. */
function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function httpTimeouts(env: Env): HttpTimeouts {
  const requestMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const headersMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', Math.min(10_000, requestMs), 100, 600_000);
  // Node refuses a headers timeout longer than the request timeout; say so by name at start-up.
  if (headersMs > requestMs) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestMs}), got ${headersMs}`,
    );
  }
  return {
    requestMs,
    headersMs,
    keepAliveMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    idleMs: integer(env, 'HTTP_IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
  };
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = nonEmpty(env, name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got '${raw}'`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got '${parsed.protocol}'`);
  }
  return raw;
}

/** TRUST_PROXY: unset/false = trust no proxy; a number = that many hops; else a comma list of IPs/CIDRs. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError('TRUST_PROXY', `hop count must be at most 10, got ${hops}`);
    return hops;
  }
  const entries = commaList(raw);
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const prefixOk =
      prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError('TRUST_PROXY', `must be false, a hop count or IPs/CIDRs; '${entry}' is neither`);
    }
  }
  return entries;
}

/** LINE's documented authorization parameters: auto login inside LINE, the normal web login outside. */
const LINE_PARAMS: Record<BrowserType, string> = { MINI: '', LIFF: '', WEB: 'disable_auto_login=true' };

function params(env: Env, name: string, fallback: string): Record<string, string> {
  const raw = env[name] ?? fallback;
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(raw.trim())) {
    if (!/^[a-z_][a-z0-9_]*$/i.test(key))
      throw new ConfigError(name, `has a parameter name '${key}' that is not a plain word`);
    out[key] = value;
  }
  return out;
}

function idTokenAlg(env: Env, fallback: string): string {
  const value = nonEmpty(env, 'LOGIN_OIDC_ID_TOKEN_ALG') ?? fallback;
  if (!['ES256', 'RS256', 'HS256'].includes(value))
    throw new ConfigError('LOGIN_OIDC_ID_TOKEN_ALG', `must be ES256, RS256 or HS256, got '${value}'`);
  return value;
}

function loadLoginConfig(env: Env, nodeEnv: string): LoginConfig {
  const issuer = nonEmpty(env, 'LOGIN_OIDC_ISSUER');
  if (issuer !== undefined) url(env, 'LOGIN_OIDC_ISSUER', issuer, ['https:', 'http:']);
  if (issuer === undefined && nodeEnv === 'production') {
    throw new ConfigError(
      'LOGIN_OIDC_ISSUER',
      'is required when NODE_ENV=production (the embedded login is for development only)',
    );
  }
  const clientId = nonEmpty(env, 'LOGIN_OIDC_CLIENT_ID');
  const clientSecret = nonEmpty(env, 'LOGIN_OIDC_CLIENT_SECRET');
  if (issuer !== undefined && clientId === undefined)
    throw new ConfigError('LOGIN_OIDC_CLIENT_ID', 'is required with LOGIN_OIDC_ISSUER');
  if (issuer !== undefined && clientSecret === undefined) {
    throw new ConfigError('LOGIN_OIDC_CLIENT_SECRET', 'is required with LOGIN_OIDC_ISSUER');
  }
  const isLine = issuer !== undefined && new URL(issuer).hostname === 'access.line.me';
  const liffId = nonEmpty(env, 'LOGIN_LIFF_ID');
  if (liffId !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(liffId))
    throw new ConfigError('LOGIN_LIFF_ID', 'must look like 1234567890-AbcdEfgh');
  return {
    issuer: issuer?.replace(/\/+$/, ''),
    clientId: clientId ?? 'mrs-dev',
    // The embedded provider lives in this process, so a per-process secret is enough.
    clientSecret: clientSecret ?? randomBytes(24).toString('base64url'),
    idTokenAlg: idTokenAlg(env, issuer === undefined ? 'ES256' : isLine ? 'HS256' : 'RS256'),
    scopes: nonEmpty(env, 'LOGIN_SCOPES') ?? 'openid profile',
    params: {
      MINI: params(env, 'LOGIN_PARAMS_MINI', isLine ? LINE_PARAMS.MINI : ''),
      LIFF: params(env, 'LOGIN_PARAMS_LIFF', isLine ? LINE_PARAMS.LIFF : ''),
      WEB: params(env, 'LOGIN_PARAMS_WEB', isLine ? LINE_PARAMS.WEB : ''),
    },
    liffId,
    stateTtlSeconds: integer(env, 'LOGIN_STATE_TTL_SECONDS', 600, 30, 3600),
    tokenTtlSeconds: integer(env, 'LOGIN_TOKEN_TTL_SECONDS', 300, 10, 3600),
  };
}

/** WALLET_KEK: 32 bytes as 64 hex digits or base64 (docs/payout.md). */
export function parseWalletKek(raw: string | undefined, name = 'WALLET_KEK'): Buffer | undefined {
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : undefined;
  if (key?.length !== 32) throw new ConfigError(name, 'must be 32 bytes written as 64 hex digits or base64');
  return key;
}

function loadRateLimitConfig(env: Env): RateLimitConfig {
  const redisUrl = nonEmpty(env, 'REDIS_URL');
  if (redisUrl !== undefined) url(env, 'REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const redisKeyPrefix = nonEmpty(env, 'RATE_LIMIT_REDIS_PREFIX') ?? 'mrs:rl:';
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(redisKeyPrefix)) {
    throw new ConfigError('RATE_LIMIT_REDIS_PREFIX', 'must be 1-64 letters, digits or : . _ -');
  }
  return {
    windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
    perAddress: integer(env, 'RATE_LIMIT_PER_ADDRESS', 600, 0, 1_000_000),
    loginPerAddress: integer(env, 'RATE_LIMIT_LOGIN_PER_ADDRESS', 3000, 0, 1_000_000),
    loginPerBrowser: integer(env, 'RATE_LIMIT_LOGIN_PER_BROWSER', 20, 0, 1_000_000),
    perPartner: integer(env, 'RATE_LIMIT_PER_PARTNER', 1_200_000, 0, 100_000_000),
    failedAuthPerAddress: integer(env, 'RATE_LIMIT_FAILED_AUTH_PER_ADDRESS', 20, 0, 1_000_000),
    failedAuthPerPartner: integer(env, 'RATE_LIMIT_FAILED_AUTH_PER_PARTNER', 100, 0, 1_000_000),
    redisUrl,
    redisKeyPrefix,
    redisTimeoutMs: integer(env, 'RATE_LIMIT_REDIS_TIMEOUT_MS', 200, 1, 10_000),
  };
}

function loadLoadSheddingConfig(env: Env): LoadSheddingConfig {
  return {
    maxEventLoopDelayMs: integer(env, 'LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
    maxHeapUsedBytes: integer(env, 'LOAD_SHED_MAX_HEAP_BYTES', 0, 0, 64 * 1024 ** 3),
    maxRssBytes: integer(env, 'LOAD_SHED_MAX_RSS_BYTES', 0, 0, 64 * 1024 ** 3),
    retryAfterSeconds: integer(env, 'RETRY_AFTER_SECONDS', 1, 1, 3600),
    queueMaxWaiting: integer(env, 'QUEUE_MAX_WAITING', 1024, 1, 1_000_000),
    queueMaxWaitMs: integer(env, 'QUEUE_MAX_WAIT_MS', 2000, 1, 60_000),
    maxConnections: integer(env, 'LOAD_SHED_MAX_CONNECTIONS', 1024, 0, 1_000_000),
    maxLoopUtilizationPercent: integer(env, 'LOAD_SHED_MAX_LOOP_UTILIZATION', 95, 0, 100),
  };
}

/** FRAME_ANCESTORS: space- or comma-separated CSP sources: 'self', 'none' or https origins (a leading *. for subdomains). */
export function parseFrameAncestors(raw: string | undefined): string[] {
  const entries = (raw ?? "'self'").split(/[\s,]+/).filter(Boolean);
  const origin = /^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/;
  for (const entry of entries) {
    if (entry !== "'self'" && entry !== "'none'" && !origin.test(entry)) {
      throw new ConfigError(
        'FRAME_ANCESTORS',
        `must list 'self', 'none' or origins like https://liff.line.me; '${entry}' is neither`,
      );
    }
  }
  if (entries.includes("'none'") && entries.length > 1)
    throw new ConfigError('FRAME_ANCESTORS', "'none' cannot be combined with other sources");
  return entries.length > 0 ? entries : ["'self'"];
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = nonEmpty(env, 'HOST') ?? '0.0.0.0';
  const databaseUrl = nonEmpty(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) url(env, 'DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);
  const dataDir = path.resolve(nonEmpty(env, 'DATA_DIR') ?? './data');
  const adminToken = nonEmpty(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters long');
  }
  const logLevel = (nonEmpty(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(
    /\/+$/,
    '',
  );
  const nodeEnv = nonEmpty(env, 'NODE_ENV') ?? 'development';
  const login = loadLoginConfig(env, nodeEnv);
  const serviceEnvironment = parseServiceEnvironment(nonEmpty(env, 'SERVICE_ENVIRONMENT'), nodeEnv);
  // Session cookies are Secure in production and the login callback is built from this URL.
  if (nodeEnv === 'production' && !publicBaseUrl.startsWith('https://')) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `must be an https:// URL when NODE_ENV=production, got '${publicBaseUrl}'`,
    );
  }
  return {
    port,
    host,
    databaseUrl,
    dataDir,
    adminToken,
    trustProxy: parseTrustProxy(nonEmpty(env, 'TRUST_PROXY')),
    publicBaseUrl,
    logLevel,
    logBufferMaxBytes: integer(env, 'LOG_BUFFER_MAX_BYTES', 4 * 1024 ** 2, 64 * 1024, 1024 ** 3),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    databaseTimeouts: {
      acquireTimeoutMs: integer(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 5000, 50, 120_000),
      // 0 turns the bound off, as in PostgreSQL.
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, 0, 3_600_000),
      lockTimeoutMs: integer(env, 'DATABASE_LOCK_TIMEOUT_MS', 3000, 0, 3_600_000),
    },
    databaseStartupWaitMs: integer(env, 'DATABASE_STARTUP_WAIT_MS', 60_000, 0, 3_600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 100, 600_000),
    readiness: {
      timeoutMs: integer(env, 'READYZ_TIMEOUT_MS', 1000, 50, 30_000),
      maxPoolWaiting: integer(env, 'READYZ_MAX_POOL_WAITING', 50, 0, 100_000),
      payoutStallMs: integer(env, 'READYZ_PAYOUT_STALL_MS', 120_000, 100, 24 * 3600_000),
      maxGcPercent: integer(env, 'READYZ_MAX_GC_PERCENT', 50, 0, 100),
    },
    nodeEnv,
    serviceEnvironment,
    environmentBaseUrls: environmentBaseUrls(env, serviceEnvironment, publicBaseUrl),
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 7 * 24 * 3600, 60, 90 * 24 * 3600),
    login,
    payoutWorker: booleanSetting(env, 'PAYOUT_WORKER', true),
    tracing: parseTracing(env),
    payoutIdleMs: integer(env, 'PAYOUT_IDLE_MS', 500, 10, 60_000),
    webDistDir: path.resolve(
      nonEmpty(env, 'WEB_DIST_DIR') ?? fileURLToPath(new URL('../web/dist', import.meta.url)),
    ),
    claimReservationTtlSeconds: integer(
      env,
      'CLAIM_RESERVATION_TTL_SECONDS',
      30 * 24 * 3600,
      60,
      3650 * 24 * 3600,
    ),
    cacheTtlMs: integer(env, 'CACHE_TTL_MS', 1000, 0, 1000),
    payoutAddressOneAccount: booleanSetting(env, 'PAYOUT_ADDRESS_ONE_ACCOUNT', false),
    batchConcurrency: integer(env, 'BATCH_CONCURRENCY', 2, 1, 64),
    completionAlarmWindowSeconds: integer(env, 'COMPLETION_ALARM_WINDOW_SECONDS', 300, 10, 24 * 3600),
    completionAlarmMultiple: integer(env, 'COMPLETION_ALARM_MULTIPLE', 5, 2, 1000),
    completionAlarmMinCompletions: integer(env, 'COMPLETION_ALARM_MIN_COMPLETIONS', 100, 1, 1_000_000_000),
    httpTimeouts: httpTimeouts(env),
    walletKek: parseWalletKek(nonEmpty(env, 'WALLET_KEK')),
    walletKekPrevious: commaList(nonEmpty(env, 'WALLET_KEK_PREVIOUS') ?? '').map(
      (value) => parseWalletKek(value, 'WALLET_KEK_PREVIOUS') as Buffer,
    ),
    rateLimits: loadRateLimitConfig(env),
    loadShedding: loadLoadSheddingConfig(env),
    frameAncestors: parseFrameAncestors(nonEmpty(env, 'FRAME_ANCESTORS')),
    devChain: parseDevChain(nonEmpty(env, 'DEV_CHAIN'), nodeEnv),
    chainRpcAllowedHosts:
      nodeEnv === 'production' || nonEmpty(env, 'CHAIN_RPC_ALLOWED_HOSTS') !== undefined
        ? commaList(nonEmpty(env, 'CHAIN_RPC_ALLOWED_HOSTS') ?? '')
            .map((host) => host.toLowerCase().replace(/^\[|\]$/g, ''))
            .filter((host) => host !== '')
        : undefined,
    walletConnectors: loadWalletConnectorConfig(env, nodeEnv),
    webhooks: loadWebhookConfig(env, nodeEnv),
    metrics: loadMetricsConfig(env),
  };
}

export interface WalletConnectorConfig {
  /**
   * The LINE Mini Dapp SDK (@linenext/dapp-portal-sdk, proprietary: never bundled): its client id and
   * the address of its script, which the mission page loads (MINI_DAPP_CLIENT_ID, MINI_DAPP_SDK_URL).
   */
  miniDapp: { clientId: string; sdkUrl: string } | undefined;
  /** A development wallet kept in the browser (DEV_WALLET; refused with NODE_ENV=production). */
  devWallet: boolean;
}

/** MINI_DAPP_* and DEV_WALLET: which wallet connectors the mission page offers. */
export function loadWalletConnectorConfig(env: Env, nodeEnv: string): WalletConnectorConfig {
  const clientId = nonEmpty(env, 'MINI_DAPP_CLIENT_ID');
  const rawSdkUrl = nonEmpty(env, 'MINI_DAPP_SDK_URL');
  if ((clientId === undefined) !== (rawSdkUrl === undefined))
    throw new ConfigError(
      clientId === undefined ? 'MINI_DAPP_CLIENT_ID' : 'MINI_DAPP_SDK_URL',
      'MINI_DAPP_CLIENT_ID and MINI_DAPP_SDK_URL go together (the SDK is loaded, never bundled)',
    );
  if (clientId !== undefined && !/^[A-Za-z0-9._-]{1,128}$/.test(clientId))
    throw new ConfigError('MINI_DAPP_CLIENT_ID', 'must be the client id the Dapp Portal issued');
  let sdkUrl: string | undefined;
  if (rawSdkUrl !== undefined) {
    // A path serves a copy the operator installed next to the pages; else an https address.
    if (!rawSdkUrl.startsWith('/') || rawSdkUrl.startsWith('//'))
      sdkUrl = url(env, 'MINI_DAPP_SDK_URL', '', nodeEnv === 'production' ? ['https:'] : ['https:', 'http:']);
    else sdkUrl = rawSdkUrl;
  }
  const production = nodeEnv === 'production';
  const devWallet = booleanSetting(env, 'DEV_WALLET', !production);
  if (devWallet && production)
    throw new ConfigError('DEV_WALLET', 'is refused when NODE_ENV=production (its key lives in the browser)');
  return {
    miniDapp: clientId !== undefined && sdkUrl !== undefined ? { clientId, sdkUrl } : undefined,
    devWallet,
  };
}

function loadMetricsConfig(env: Env): MetricsConfig {
  const token = nonEmpty(env, 'METRICS_TOKEN');
  if (token !== undefined && token.length < 16)
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters long');
  const host = nonEmpty(env, 'METRICS_HOST') ?? '127.0.0.1';
  if (isIP(host) === 0 && host !== 'localhost')
    throw new ConfigError('METRICS_HOST', `must be an IP address or localhost, got '${host}'`);
  return {
    token,
    port: nonEmpty(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535),
    host,
    maxPartnerLabels: integer(env, 'METRICS_MAX_PARTNER_LABELS', 50, 0, 10_000),
    databaseReadingCacheMs: integer(env, 'METRICS_DB_CACHE_MS', 2000, 0, 60_000),
    databaseReadingTimeoutMs: integer(env, 'METRICS_DB_TIMEOUT_MS', 1000, 50, 30_000),
  };
}

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesEndpoint: string;
  /** The resource's service.name (OTEL_SERVICE_NAME). */
  serviceName: string;
}

/**
 * The standard OpenTelemetry variables: tracing is on when an OTLP endpoint is set (and
 * OTEL_SDK_DISABLED is not 'true'). The exporter and the SDK read the other OTEL_* variables
 * (headers, sampler, batch sizes) themselves.
 */
export function parseTracing(env: Env): TracingConfig | undefined {
  const disabled = booleanSetting(env, 'OTEL_SDK_DISABLED', false);
  const traces = nonEmpty(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = nonEmpty(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const protocol =
    nonEmpty(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? nonEmpty(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json')
    throw new ConfigError(
      nonEmpty(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') !== undefined
        ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
        : 'OTEL_EXPORTER_OTLP_PROTOCOL',
      `only 'http/json' is supported, got '${protocol}'`,
    );
  if (traces !== undefined) url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces, ['http:', 'https:']);
  if (base !== undefined) url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', base, ['http:', 'https:']);
  if (disabled || (traces === undefined && base === undefined)) return undefined;
  return {
    tracesEndpoint: traces ?? `${(base as string).replace(/\/+$/, '')}/v1/traces`,
    serviceName: nonEmpty(env, 'OTEL_SERVICE_NAME') ?? 'mission-reward-service',
  };
}

/** DEV_CHAIN: on by default outside production, refused in production (like the development login). */
export function parseDevChain(raw: string | undefined, nodeEnv: string): boolean {
  const devChain = booleanSetting({ DEV_CHAIN: raw }, 'DEV_CHAIN', nodeEnv !== 'production');
  if (devChain && nodeEnv === 'production')
    throw new ConfigError('DEV_CHAIN', 'the development chain is refused when NODE_ENV=production');
  return devChain;
}

/** For process entry points: the configuration, or exit 2 with the message naming the variable. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}
