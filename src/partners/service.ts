// Partner use cases: registration, settings (allow-list, redirect URLs), API keys, and
// authentication of partner calls.
import { comparable } from '../domain/redirect-url.ts';
import type { Kysely } from 'kysely';
import {
  apiKeyNotFound,
  invalidAllowedIp,
  invalidRedirectUrlEntry,
  partnerNotFound,
} from '../error-factories.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { digestsEqual, newId, newSecret, sha256Hex } from '../domain/ids.ts';
import { canonicalCidr } from '../domain/ip-allow-list.ts';
import * as store from './store.ts';
import type { ServiceEnvironment } from '../config.ts';
import { environmentOfKey, KEY_PREFIXES, wrongEnvironmentMessage } from './key-environment.ts';
import type { ApiKeyRow, PartnerRow } from './store.ts';

export interface PartnerView {
  id: string;
  name: string;
  status: 'ACTIVE' | 'DISABLED';
  allowedIps: string[];
  redirectUrls: string[];
  createdAt: string;
  updatedAt: string;
}

export function partnerView(row: PartnerRow): PartnerView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    allowedIps: row.allowed_ips,
    redirectUrls: row.redirect_urls,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface ApiKeyView {
  id: string;
  partnerId: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

function apiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    partnerId: row.partner_id,
    name: row.name,
    prefix: row.key_prefix,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

function canonicalAllowList(entries: string[]): string[] {
  const out = new Set<string>();
  for (const entry of entries) {
    const cidr = canonicalCidr(entry);
    if (cidr === undefined) {
      throw invalidAllowedIp(entry);
    }
    out.add(cidr);
  }
  return [...out];
}

/**
 * A registered redirect URL: absolute http(s), no query, no fragment, no credentials. The login
 * returns only to one of these (scheme, host, port and path compared exactly).
 */
export function canonicalRedirectUrl(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  return comparable(url);
}

function canonicalRedirectUrls(entries: string[]): string[] {
  const out = new Set<string>();
  for (const entry of entries) {
    const canonical = canonicalRedirectUrl(entry);
    if (canonical === undefined) {
      throw invalidRedirectUrlEntry(entry);
    }
    out.add(canonical);
  }
  return [...out];
}

export async function createPartner(
  db: Kysely<DB>,
  clock: Clock,
  input: { name: string; allowedIps?: string[]; redirectUrls?: string[] },
): Promise<PartnerView> {
  const row = await store.insertPartner(db, {
    id: newId('ptn'),
    name: input.name,
    allowedIps: canonicalAllowList(input.allowedIps ?? []),
    redirectUrls: canonicalRedirectUrls(input.redirectUrls ?? []),
    now: clock.now(),
  });
  return partnerView(row);
}

export async function getPartner(db: Kysely<DB>, partnerId: string): Promise<PartnerView> {
  const row = await store.findPartner(db, partnerId);
  if (!row) throw partnerNotFound(partnerId);
  return partnerView(row);
}

export async function listPartners(db: Kysely<DB>, limit: number, offset: number): Promise<PartnerView[]> {
  return (await store.listPartners(db, limit, offset)).map(partnerView);
}

export async function updatePartner(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  input: { name?: string; status?: 'ACTIVE' | 'DISABLED'; allowedIps?: string[]; redirectUrls?: string[] },
): Promise<PartnerView> {
  const row = await store.updatePartner(db, partnerId, {
    ...input,
    ...(input.allowedIps !== undefined && { allowedIps: canonicalAllowList(input.allowedIps) }),
    ...(input.redirectUrls !== undefined && { redirectUrls: canonicalRedirectUrls(input.redirectUrls) }),
    now: clock.now(),
  });
  if (!row) throw partnerNotFound(partnerId);
  return partnerView(row);
}

export async function createApiKey(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  name: string | undefined,
  /** The deployment's environment: its keys carry it in their prefix (mrk_test_, mrk_live_). */
  environment: ServiceEnvironment,
): Promise<ApiKeyView & { apiKey: string }> {
  await getPartner(db, partnerId);
  const apiKey = newSecret(KEY_PREFIXES[environment]);
  const row = await store.insertApiKey(db, {
    id: newId('key'),
    partnerId,
    keyHash: sha256Hex(apiKey),
    // 'mrk_test_' or 'mrk_live_' and four random characters.
    keyPrefix: apiKey.slice(0, 13),
    name: name ?? null,
    now: clock.now(),
  });
  return { ...apiKeyView(row), apiKey };
}

export async function listApiKeys(db: Kysely<DB>, partnerId: string): Promise<ApiKeyView[]> {
  await getPartner(db, partnerId);
  return (await store.listApiKeys(db, partnerId)).map(apiKeyView);
}

export async function revokeApiKey(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  keyId: string,
): Promise<void> {
  const row = await store.revokeApiKey(db, partnerId, keyId, clock.now());
  if (!row) throw apiKeyNotFound(partnerId, keyId);
}

// Other capabilities look partners up through here, never through the store.
export { findPartner, findPartnerCredentials } from './store.ts';
export type { PartnerRow } from './store.ts';

export type PartnerAuthResult =
  | { outcome: 'OK'; partner: PartnerRow }
  | { outcome: 'UNAUTHORIZED' }
  | { outcome: 'DISABLED' }
  | { outcome: 'WRONG_ENVIRONMENT'; message: string };

type PartnerCredentials = Awaited<ReturnType<typeof store.findPartnerCredentials>>;

/** Whether `presented` (a key's hash) is one of the live keys'; no early exit, so the time taken does not tell which. */
function holdsKey(credentials: PartnerCredentials, presented: string): boolean {
  let matched = false;
  for (const hash of credentials?.keyHashes ?? []) matched = digestsEqual(hash, presented) || matched;
  return matched;
}

/**
 * Checks a partner id and API key: the key's hash is compared in constant time with each live key.
 * Credentials that come from a cache may predate a key created a moment ago through another process
 * (whose NOTIFY has not arrived yet): a key they do not hold is looked up once more with `reload`
 * before it is refused. A revoked key still held by the cache is refused once the entry goes (one
 * second at most, sooner with the NOTIFY).
 */
export async function authenticatePartner(
  db: Kysely<DB>,
  partnerId: string,
  apiKey: string,
  /** Where the credentials come from (the hot-path cache in the server). */
  find: typeof store.findPartnerCredentials = store.findPartnerCredentials,
  /** The deployment's environment; a key naming the other one is refused before any lookup. */
  environment?: ServiceEnvironment,
  /** Reads the credentials afresh (and refreshes the cache) when `find`'s answer does not hold the key. */
  reload?: typeof store.findPartnerCredentials,
): Promise<PartnerAuthResult> {
  const keyEnvironment = environmentOfKey(apiKey);
  if (environment !== undefined && keyEnvironment !== undefined && keyEnvironment !== environment) {
    return { outcome: 'WRONG_ENVIRONMENT', message: wrongEnvironmentMessage(keyEnvironment) };
  }
  const presented = sha256Hex(apiKey);
  let credentials = await find(db, partnerId);
  if (!holdsKey(credentials, presented) && reload !== undefined) credentials = await reload(db, partnerId);
  if (!credentials || !holdsKey(credentials, presented)) return { outcome: 'UNAUTHORIZED' };
  if (credentials.partner.status !== 'ACTIVE') return { outcome: 'DISABLED' };
  return { outcome: 'OK', partner: credentials.partner };
}
