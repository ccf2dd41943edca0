// Every environment variable the service reads, parsed and validated once into a typed object.
// A bad value stops start-up with a message naming the variable.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';

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
  };
}
