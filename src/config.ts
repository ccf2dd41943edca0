// Every environment variable the service reads, parsed and validated once into a typed object.
// A bad value stops start-up with a message naming the variable.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /** Connections in the PostgreSQL pool (ignored for PGlite, which has one). */
  databasePoolSize: number;
  /** 'production' refuses development-only conveniences. */
  nodeEnv: string;
  /** Secret that signs end-user session cookies (HMAC-SHA256); shared by every process. */
  sessionSecret: string;
  /** Lifetime of an end-user session, in seconds. */
  sessionTtlSeconds: number;
  login: LoginConfig;
  /** Run the payout worker inside the service process. */
  payoutWorker: boolean;
  /** Pause of an idle payout worker between looks for work, in milliseconds. */
  payoutIdleMs: number;
  /** Folder of the built web pages (mission page and console), served under /app and /console. */
  webDistDir: string;
  /** How long a claim waits in RESERVED for its user to link before it expires. */
  claimReservationTtlSeconds: number;
  /** Longest life of a hot-path cache entry (partner credentials, mission catalog), in ms. */
  cacheTtlMs: number;
  /**
   * Batches of one kind (link checks, progress reports, completions) written at once per process;
   * requests arriving meanwhile wait and go together in the next batch (docs/performance.md).
   */
  batchConcurrency: number;
}

export type BrowserType = 'MINI' | 'LIFF' | 'WEB';

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

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
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
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
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
    if (!/^[a-z_][a-z0-9_]*$/i.test(key)) throw new ConfigError(name, `has a parameter name '${key}' that is not a plain word`);
    out[key] = value;
  }
  return out;
}

function idTokenAlg(env: Env, fallback: string): string {
  const value = nonEmpty(env, 'LOGIN_OIDC_ID_TOKEN_ALG') ?? fallback;
  if (!['ES256', 'RS256', 'HS256'].includes(value)) throw new ConfigError('LOGIN_OIDC_ID_TOKEN_ALG', `must be ES256, RS256 or HS256, got '${value}'`);
  return value;
}

function loadLoginConfig(env: Env, nodeEnv: string): LoginConfig {
  const issuer = nonEmpty(env, 'LOGIN_OIDC_ISSUER');
  if (issuer !== undefined) url(env, 'LOGIN_OIDC_ISSUER', issuer, ['https:', 'http:']);
  if (issuer === undefined && nodeEnv === 'production') {
    throw new ConfigError('LOGIN_OIDC_ISSUER', 'is required when NODE_ENV=production (the embedded login is for development only)');
  }
  const clientId = nonEmpty(env, 'LOGIN_OIDC_CLIENT_ID');
  const clientSecret = nonEmpty(env, 'LOGIN_OIDC_CLIENT_SECRET');
  if (issuer !== undefined && clientId === undefined) throw new ConfigError('LOGIN_OIDC_CLIENT_ID', 'is required with LOGIN_OIDC_ISSUER');
  if (issuer !== undefined && clientSecret === undefined) {
    throw new ConfigError('LOGIN_OIDC_CLIENT_SECRET', 'is required with LOGIN_OIDC_ISSUER');
  }
  const isLine = issuer !== undefined && new URL(issuer).hostname === 'access.line.me';
  const liffId = nonEmpty(env, 'LOGIN_LIFF_ID');
  if (liffId !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(liffId)) throw new ConfigError('LOGIN_LIFF_ID', 'must look like 1234567890-AbcdEfgh');
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
  let sessionSecret = nonEmpty(env, 'SESSION_SECRET');
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    throw new ConfigError('SESSION_SECRET', 'must be at least 32 characters long');
  }
  if (sessionSecret === undefined) {
    if (nodeEnv === 'production') throw new ConfigError('SESSION_SECRET', 'is required when NODE_ENV=production');
    // Development: a secret of this process only; sessions end when it restarts.
    sessionSecret = randomBytes(32).toString('base64url');
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
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    nodeEnv,
    sessionSecret,
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 7 * 24 * 3600, 60, 90 * 24 * 3600),
    login: loadLoginConfig(env, nodeEnv),
    payoutWorker: (nonEmpty(env, 'PAYOUT_WORKER') ?? 'true') !== 'false',
    payoutIdleMs: integer(env, 'PAYOUT_IDLE_MS', 500, 10, 60_000),
    webDistDir: path.resolve(nonEmpty(env, 'WEB_DIST_DIR') ?? fileURLToPath(new URL('../web/dist', import.meta.url))),
    claimReservationTtlSeconds: integer(env, 'CLAIM_RESERVATION_TTL_SECONDS', 30 * 24 * 3600, 60, 3650 * 24 * 3600),
    cacheTtlMs: integer(env, 'CACHE_TTL_MS', 1000, 0, 1000),
    batchConcurrency: integer(env, 'BATCH_CONCURRENCY', 2, 1, 64),
  };
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
