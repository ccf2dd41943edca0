// The linking journey: start a login (partner link or mission-page session), finish it at the
// callback or from the LIFF page, issue the one-time mapping token, and connect. The links as they
// stand (reads, unlink) are links.ts.
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import * as client from 'openid-client';
import type { DB } from '../db/schema.ts';
import type { BrowserType, Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { AppError } from '../errors.ts';
import {
  accountLinkedElsewhere,
  invalidBrowserType,
  invalidRegion,
  invalidReturnPath,
  liffNotConfigured,
  loginInOtherBrowser,
  loginNotForLiff,
  loginPartnerInvalid,
  loginStateExpired,
  loginStateUnknown,
  mappingTokenExpired,
  mappingTokenUnknown,
  mappingTokenUsed,
  mappingTokenWrongPartner,
  partnerUserLinkedElsewhere,
  redirectUrlNotRegistered,
} from '../error-factories.ts';
import { digestsEqual, newId, newSecret, sha256Hex } from '../domain/ids.ts';
import { canonicalRegion } from '../domain/regions.ts';
import { matchRedirectUrl, safeReturnUrl, withOutcome, withParam } from '../domain/redirect-url.ts';
import { findPartner } from '../partners/service.ts';
import type { LoginClient } from './oidc.ts';
import { Coalescer } from '../db/coalescer.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import * as store from './store.ts';

export const CALLBACK_PATH = '/v1/mission-users/auth/callback';
export { LIFF_PATH } from '../http/login-paths.ts';
/** The query parameter that carries the mapping token back to the partner. */
export const TOKEN_PARAM = 'token' as const;
const TOKEN_PREFIX = 'mtk';
const TOKEN_SHAPE = /^mtk_[A-Za-z0-9_-]{43}$/;

/**
 * The link check for the server: checks that arrive while earlier ones are in flight are answered
 * together by one statement (the answer is whatever is committed when that statement runs, as for
 * a check on its own).
 */
export function createLinkCheck(
  db: Kysely<DB>,
  options: { concurrency?: number; group?: CoalescerGroup } = {},
) {
  const coalescer = new Coalescer<store.PartnerUser, boolean>({
    run: (users) => store.linkedAmong(db, users),
    name: 'link check',
    concurrency: options.concurrency,
    group: options.group,
  });
  return (partnerId: string, partnerUid: string): Promise<boolean> =>
    coalescer.submit({ partnerId, partnerUid });
}

/** Called inside the connect transaction when a partner user is linked (rewards release waiting claims). */
export type UserLinkedHandler = (
  trx: Transaction<DB>,
  event: { partnerId: string; partnerUid: string; accountId: string },
) => Promise<void>;

export interface LoginDeps {
  db: Kysely<DB>;
  clock: Clock;
  config: Config;
  client: LoginClient;
}

export interface LoginStart {
  location: string;
  /** A browser-binding value to set as a cookie, when the flow comes back to the same browser. */
  binding: string | undefined;
}

export function parseBrowserType(raw: string | undefined): BrowserType {
  if (raw === undefined || raw === '') return 'WEB';
  if (raw === 'MINI' || raw === 'LIFF' || raw === 'WEB') return raw;
  throw invalidBrowserType(raw);
}

function secrets() {
  return {
    state: randomBytes(32).toString('base64url'),
    nonce: randomBytes(32).toString('base64url'),
    codeVerifier: client.randomPKCECodeVerifier(),
  };
}

async function begin(
  deps: LoginDeps,
  input: {
    purpose: 'LINK' | 'SESSION';
    partnerId: string | null;
    returnTo: string;
    browserType: BrowserType;
    binding: string | undefined;
    /** 'login': the provider must ask for the login again (the page signed out; docs/i18n.md). */
    prompt?: 'login' | undefined;
  },
): Promise<LoginStart> {
  const { config, clock } = deps;
  const { state, nonce, codeVerifier } = secrets();
  const liffId = config.login.liffId;
  const viaLiff = input.purpose === 'LINK' && liffId !== undefined && input.browserType !== 'WEB';
  // The browser that starts a web login is the one that comes back; bind the login to it.
  const binding = viaLiff ? undefined : (input.binding ?? randomBytes(32).toString('base64url'));
  let location: string;
  if (viaLiff) {
    const entry =
      input.browserType === 'MINI' ? `https://miniapp.line.me/${liffId}` : `https://liff.line.me/${liffId}`;
    location = withParam(entry, 'state', state);
  } else {
    location = (
      await deps.client.authorizationUrl({
        state,
        nonce,
        codeVerifier,
        extra: {
          ...config.login.params[input.browserType],
          ...(input.prompt !== undefined && { prompt: input.prompt }),
        },
      })
    ).href;
  }
  const now = clock.now();
  await store.insertLoginState(deps.db, {
    state_hash: sha256Hex(state),
    purpose: input.purpose,
    partner_id: input.partnerId,
    return_to: input.returnTo,
    browser_type: input.browserType,
    code_verifier: codeVerifier,
    nonce,
    binding_hash: binding === undefined ? null : sha256Hex(binding),
    created_at: now,
    expires_at: new Date(now.getTime() + config.login.stateTtlSeconds * 1000),
  });
  return { location, binding };
}

/** GET /v1/mission-users/auth: validate everything before the browser goes anywhere. */
export async function startLinkLogin(
  deps: LoginDeps,
  input: {
    partnerId: string;
    redirectUrl: string;
    browserType?: string | undefined;
    binding: string | undefined;
  },
): Promise<LoginStart> {
  const browserType = parseBrowserType(input.browserType);
  const partner = input.partnerId.length <= 64 ? await findPartner(deps.db, input.partnerId) : undefined;
  if (!partner || partner.status !== 'ACTIVE') {
    throw loginPartnerInvalid(input.partnerId);
  }
  const redirect = matchRedirectUrl(partner.redirect_urls, input.redirectUrl);
  if (!redirect) {
    throw redirectUrlNotRegistered();
  }
  return begin(deps, {
    purpose: 'LINK',
    partnerId: partner.id,
    returnTo: redirect.href,
    browserType,
    binding: input.binding,
  });
}

/** GET /v1/login: sign in to the mission page. */
export async function startSessionLogin(
  deps: LoginDeps,
  input: {
    returnTo?: string | undefined;
    browserType?: string | undefined;
    binding: string | undefined;
    prompt?: 'login' | undefined;
  },
): Promise<LoginStart> {
  const browserType = parseBrowserType(input.browserType);
  const returnTo = safeReturnUrl(input.returnTo, { base: deps.config.publicBaseUrl, fallback: '/app' });
  if (returnTo === undefined) throw invalidReturnPath();
  return begin(deps, {
    purpose: 'SESSION',
    partnerId: null,
    returnTo,
    browserType,
    binding: input.binding,
    prompt: input.prompt,
  });
}

/**
 * Uses a login state once: check, then consume. The row is read and every check (expiry, the
 * browser binding or the LIFF path) runs before it is deleted, so a refused request (a forged
 * callback in a victim's browser, a replay without the cookie) leaves the real browser's login
 * intact. The delete is still the single-use gate: of two racing callbacks one gets the row.
 */
async function takeState(
  deps: LoginDeps,
  state: string | undefined,
  check: (row: store.LoginStateRow) => void,
): Promise<store.LoginStateRow> {
  if (state === undefined || state.length === 0 || state.length > 128) {
    throw loginStateUnknown();
  }
  const stateHash = sha256Hex(state);
  const found = await store.findLoginState(deps.db, stateHash);
  if (!found) throw loginStateUnknown();
  if (found.expires_at <= deps.clock.now()) {
    throw loginStateExpired();
  }
  check(found);
  const row = await store.consumeLoginState(deps.db, stateHash);
  if (!row) throw loginStateUnknown();
  return row;
}

export interface LoginFinish {
  /** Where the browser goes next. */
  location: string;
  /** The platform account signed in, when the login succeeded (the session cookie is set for it). */
  accountId: string | undefined;
}

async function complete(
  deps: LoginDeps,
  row: store.LoginStateRow,
  identity: { issuer: string; subject: string; displayName: string | null },
): Promise<LoginFinish> {
  const now = deps.clock.now();
  const accountId = await store.findOrCreateAccount(deps.db, { id: newId('acc'), ...identity, now });
  if (row.purpose === 'SESSION') return { location: row.return_to, accountId };
  const token = newSecret(TOKEN_PREFIX);
  await store.insertMappingToken(deps.db, {
    token_hash: sha256Hex(token),
    partner_id: row.partner_id as string,
    account_id: accountId,
    created_at: now,
    expires_at: new Date(now.getTime() + deps.config.login.tokenTtlSeconds * 1000),
  });
  return { location: withOutcome(row.return_to, TOKEN_PARAM, token), accountId };
}

function failure(deps: LoginDeps, row: store.LoginStateRow, error: string): LoginFinish {
  if (row.purpose === 'LINK')
    return { location: withOutcome(row.return_to, 'error', error), accountId: undefined };
  // return_to was checked and made absolute on our public base when the login started.
  const page = new URL(row.return_to, deps.config.publicBaseUrl);
  page.searchParams.set('loginError', error);
  return { location: page.href, accountId: undefined };
}

/**
 * The provider's redirect back to us. An unknown, replayed, expired or foreign-browser state is an
 * error page (we do not know where to send the browser); anything else goes back to the partner,
 * with a token on success and an `error` parameter otherwise.
 */
export async function finishCallback(
  deps: LoginDeps,
  input: { callbackUrl: URL; binding: string | undefined; log: { warn(obj: object, msg: string): void } },
): Promise<LoginFinish> {
  const params = input.callbackUrl.searchParams;
  const row = await takeState(deps, params.get('state') ?? undefined, (found) => {
    const bound =
      found.binding_hash !== null &&
      input.binding !== undefined &&
      digestsEqual(sha256Hex(input.binding), found.binding_hash);
    if (!bound) {
      throw loginInOtherBrowser();
    }
  });
  const providerError = params.get('error');
  if (providerError !== null) {
    input.log.warn(
      { providerError, description: params.get('error_description') },
      'login refused by the provider',
    );
    return failure(deps, row, /^[a-z_]{1,64}$/.test(providerError) ? providerError : 'login_failed');
  }
  try {
    const identity = await deps.client.exchange(input.callbackUrl, {
      state: params.get('state') as string,
      nonce: row.nonce,
      codeVerifier: row.code_verifier,
    });
    return await complete(deps, row, identity);
  } catch (error) {
    input.log.warn({ err: error }, 'login failed at the code exchange or ID token check');
    return failure(
      deps,
      row,
      error instanceof AppError && error.errorName === 'LOGIN_PROVIDER_UNAVAILABLE'
        ? 'temporarily_unavailable'
        : 'login_failed',
    );
  }
}

/** The LIFF entry page posts the ID token LINE gave it, with the state of the login it continues. */
export async function finishLiffLogin(
  deps: LoginDeps,
  input: { state: string; idToken: string },
): Promise<LoginFinish> {
  if (deps.config.login.liffId === undefined) throw liffNotConfigured();
  const row = await takeState(deps, input.state, (found) => {
    if (found.binding_hash !== null || found.purpose !== 'LINK') {
      throw loginNotForLiff();
    }
  });
  // LIFF tokens carry no nonce of ours; when one is present it must be this login's.
  const identity = await deps.client.verifyIdToken(input.idToken, { nonce: row.nonce, nonceRequired: false });
  return complete(deps, row, identity);
}

/** POST /v1/mission-users/connect. */
export async function connect(
  deps: Pick<LoginDeps, 'db' | 'clock'>,
  partnerId: string,
  input: { token: string; partnerUid: string; region: string },
  onLinked: readonly UserLinkedHandler[],
): Promise<{ created: boolean }> {
  const region = canonicalRegion(input.region);
  if (region === undefined) {
    throw invalidRegion(input.region);
  }
  if (!TOKEN_SHAPE.test(input.token)) throw mappingTokenUnknown();
  const tokenHash = sha256Hex(input.token);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    // The row lock makes the token single-use: a concurrent connect waits here, then sees it used.
    const token = await store.lockMappingToken(trx, partnerId, tokenHash);
    if (!token)
      throw (await store.mappingTokenExists(trx, tokenHash))
        ? mappingTokenWrongPartner()
        : mappingTokenUnknown();
    if (token.consumed_at !== null) throw mappingTokenUsed();
    if (token.expires_at <= now) throw mappingTokenExpired();

    let created = await store.insertMapping(trx, {
      partnerId,
      partnerUid: input.partnerUid,
      accountId: token.account_id,
      region,
      now,
    });
    if (!created) {
      const byUid = await store.findMapping(trx, partnerId, input.partnerUid);
      if (byUid && byUid.account_id !== token.account_id) {
        throw partnerUserLinkedElsewhere(input.partnerUid);
      }
      if (!byUid) {
        throw accountLinkedElsewhere();
      }
      // The same pair again: idempotent; the region is the partner's latest word.
      if (byUid.region !== region) await store.updateMappingRegion(trx, partnerId, input.partnerUid, region);
      created = false;
    }
    await store.markMappingTokenUsed(trx, partnerId, tokenHash, input.partnerUid, now);
    if (created) {
      for (const handler of onLinked)
        await handler(trx, { partnerId, partnerUid: input.partnerUid, accountId: token.account_id });
    }
    return { created };
  });
}
