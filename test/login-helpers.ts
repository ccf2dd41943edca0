// Test helpers for the login journey: an independent OpenID provider on loopback (a second
// oidc-provider, not the embedded one), and a small cookie-keeping browser that follows redirects
// by hand so a test can stop, look at, or tamper with any hop.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createDevProvider } from '../src/linking/dev-provider.ts';
import type { DevProvider } from '../src/linking/dev-provider.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

export const APP_ORIGIN = 'http://app.test';
export const PARTNER_REDIRECT = 'https://partner.example/linked';
export const CLIENT_ID = 'mrs-test-client';
export const CLIENT_SECRET = 'test-client-secret-0123456789abcdef';

export interface TestIssuer {
  issuer: string;
  provider: DevProvider;
  close(): Promise<void>;
}

/** An OpenID provider listening on 127.0.0.1, registered with our callback. */
export async function startTestIssuer(): Promise<TestIssuer> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = await createDevProvider({
    issuer,
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${APP_ORIGIN}/v1/mission-users/auth/callback`],
      },
    ],
  });
  handler = provider.handle;
  return {
    issuer,
    provider,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Environment for an app that logs in through the test issuer. */
export function issuerEnv(issuer: TestIssuer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_BASE_URL: APP_ORIGIN,
    LOGIN_OIDC_ISSUER: issuer.issuer,
    LOGIN_OIDC_CLIENT_ID: CLIENT_ID,
    LOGIN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    LOGIN_OIDC_ID_TOKEN_ALG: 'ES256',
    ...extra,
  };
}

export interface Hop {
  url: string;
  status: number;
  location: string | undefined;
  body: string;
  contentType: string;
}

/**
 * A browser: one cookie jar per origin; requests to the app's origin go through app.inject,
 * everything else over real HTTP. The partner's origin is never fetched: following stops there.
 */
export class TestBrowser {
  readonly jar = new Map<string, Map<string, string>>();

  constructor(
    private readonly ctx: TestContext,
    private readonly appOrigin: string = APP_ORIGIN,
  ) {}

  cookies(origin: string): Map<string, string> {
    let jar = this.jar.get(origin);
    if (!jar) this.jar.set(origin, (jar = new Map()));
    return jar;
  }

  private store(origin: string, setCookies: string[]): void {
    const jar = this.cookies(origin);
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const index = pair?.indexOf('=') ?? -1;
      if (!pair || index < 1) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some(
        (a) =>
          /^\s*max-age=0\s*$/i.test(a) ||
          (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now()),
      );
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    options: { form?: Record<string, string>; json?: unknown; accept?: string } = {},
  ): Promise<Hop> {
    const target = new URL(url);
    const cookie = [...this.cookies(target.origin)].map(([k, v]) => `${k}=${v}`).join('; ');
    const headers: Record<string, string> = {
      host: target.host,
      accept: options.accept ?? 'text/html',
      ...(cookie && { cookie }),
    };
    // As a browser does: every POST says which origin it comes from (here, the page's own).
    if (method === 'POST') headers.origin = target.origin;
    let payload: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.json);
    }
    if (target.origin === this.appOrigin) {
      const response = await this.ctx.app.inject({
        method,
        url: `${target.pathname}${target.search}`,
        headers,
        ...(payload !== undefined && { payload }),
      } satisfies InjectOptions);
      const set = response.headers['set-cookie'];
      this.store(target.origin, set === undefined ? [] : Array.isArray(set) ? set : [set]);
      const location = response.headers.location;
      return {
        url,
        status: response.statusCode,
        location: typeof location === 'string' ? new URL(location, url).href : undefined,
        body: response.body,
        contentType: String(response.headers['content-type'] ?? ''),
      };
    }
    const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
    this.store(target.origin, response.headers.getSetCookie());
    const location = response.headers.get('location');
    return {
      url,
      status: response.status,
      location: location === null ? undefined : new URL(location, url).href,
      body: await response.text(),
      contentType: response.headers.get('content-type') ?? '',
    };
  }

  /** Follows redirects from `url` until a page answers, the partner is reached, or `stop` says so. */
  async follow(
    url: string,
    stop: (next: string) => boolean = () => false,
  ): Promise<{ hops: Hop[]; next: string | undefined }> {
    const hops: Hop[] = [];
    let current: string | undefined = url;
    let method: 'GET' | 'POST' = 'GET';
    for (let i = 0; i < 15 && current !== undefined; i++) {
      const hop = await this.request(method, current);
      method = 'GET';
      hops.push(hop);
      if (hop.location === undefined || hop.status < 300 || hop.status >= 400)
        return { hops, next: undefined };
      if (new URL(hop.location).origin === new URL(PARTNER_REDIRECT).origin || stop(hop.location))
        return { hops, next: hop.location };
      current = hop.location;
    }
    throw new Error('too many redirects');
  }
}

/** The form action of the development login page. */
export function loginFormAction(page: Hop): { login: string; abort: string } {
  const actions = [...page.body.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1] as string);
  const origin = new URL(page.url).origin;
  const login = actions.find((a) => a.endsWith('/login'));
  const abort = actions.find((a) => a.endsWith('/abort'));
  if (!login || !abort) throw new Error(`no login form on ${page.url}: ${page.body.slice(0, 300)}`);
  return { login: new URL(login, origin).href, abort: new URL(abort, origin).href };
}

/** Creates a partner with a registered redirect URL and an API key through the admin API. */
export async function createLinkingPartner(ctx: TestContext, redirectUrls: string[] = [PARTNER_REDIRECT]) {
  const partner = await ctx.admin('POST', '/admin/v1/partners', {
    name: 'Linking partner',
    redirectUrls,
    allowedIps: ['127.0.0.1'],
  });
  if (partner.statusCode !== 201) throw new Error(partner.body);
  const partnerId = partner.json<{ id: string }>().id;
  const key = await ctx.admin('POST', `/admin/v1/partners/${partnerId}/api-keys`, {});
  return { partnerId, apiKey: key.json<{ apiKey: string }>().apiKey };
}

export function authUrl(partnerId: string, redirectUrl: string, browserType?: string): string {
  const query = new URLSearchParams({
    partnerId,
    redirectUrl,
    ...(browserType !== undefined && { browserType }),
  });
  return `${APP_ORIGIN}/v1/mission-users/auth?${query}`;
}

/**
 * The whole browser journey up to the partner's page: auth redirect, provider login as `username`,
 * callback. Answers the URL the browser lands on at the partner.
 */
export async function loginAtPartner(
  browser: TestBrowser,
  partnerId: string,
  username: string,
  redirectUrl = PARTNER_REDIRECT,
): Promise<URL> {
  const first = await browser.follow(authUrl(partnerId, redirectUrl));
  const page = first.hops.at(-1) as Hop;
  if (page.status !== 200)
    throw new Error(`expected the login page, got ${page.status} at ${page.url}: ${page.body.slice(0, 300)}`);
  const { login } = loginFormAction(page);
  const posted = await browser.request('POST', login, { form: { username } });
  if (!posted.location) throw new Error(`login form answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const landed = await browser.follow(posted.location);
  if (!landed.next)
    throw new Error(`did not come back to the partner: ${JSON.stringify(landed.hops.at(-1))}`);
  return new URL(landed.next);
}

/** A partner made by createLinkingPartner: its id and its API key. */
export interface LinkingPartner {
  partnerId: string;
  apiKey: string;
}

export interface LoginApp {
  issuer: TestIssuer;
  ctx: TestContext;
  partner: LinkingPartner;
}

/**
 * The set-up of a login test file: an independent provider on loopback, an app that logs in through
 * it (its clock at the real now, since the provider signs with real time) and a linking partner;
 * both closed after the file. `receive` is handed them in beforeAll, so the file keeps its names:
 * `useLoginApp({}, (started) => ({ ctx, partner } = started))`.
 */
export function useLoginApp(
  options: { env?: Record<string, string>; captureLogs?: boolean; redirectUrls?: string[] },
  receive: (app: LoginApp) => void,
): void {
  let issuer: TestIssuer | undefined;
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    ctx = await startTestApp({
      env: issuerEnv(issuer, options.env),
      now: new Date().toISOString(),
      ...(options.captureLogs && { captureLogs: true }),
    });
    receive({ issuer, ctx, partner: await createLinkingPartner(ctx, options.redirectUrls) });
  });
  afterAll(async () => {
    await ctx?.close();
    await issuer?.close();
  });
}

export const isCallback = (url: string) => url.startsWith(`${APP_ORIGIN}/v1/mission-users/auth/callback`);

/**
 * Starts a login for `partnerId`, signs in at the provider as `username` and stops just before the
 * browser reaches our callback; answers the callback URL. `tamper` may change the provider's URL.
 */
export async function upToCallback(
  browser: TestBrowser,
  partnerId: string,
  username: string,
  tamper?: (auth: URL) => void,
): Promise<string> {
  const start = await browser.request('GET', authUrl(partnerId, PARTNER_REDIRECT));
  const auth = new URL(start.location as string);
  tamper?.(auth);
  const page = (await browser.follow(auth.href)).hops.at(-1) as Hop;
  const posted = await browser.request('POST', loginFormAction(page).login, { form: { username } });
  const { next } = await browser.follow(posted.location as string, isCallback);
  if (!next || !isCallback(next)) throw new Error('did not reach the callback');
  return next;
}
