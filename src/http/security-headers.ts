// Security headers on every answer (docs/security.md, "Security headers"), through helmet:
// a strict Content-Security-Policy, nosniff and no framing, except that the mission page (/app)
// may be framed by the origins in FRAME_ANCESTORS and the LIFF page may load LINE's SDK.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { HelmetOptions } from 'helmet';
import type { FastifyInstance } from 'fastify';
import { liffPage, page } from './pages.ts';
import { DEV_PROVIDER_PATH, LIFF_PATH } from './login-paths.ts';

type Directives = Record<string, string[]>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The security headers of this route's answers, computed once when the route was added. */
    securityHeaders?: Readonly<Record<string, string>>;
  }
}

/**
 * The headers helmet sets for these options. They depend on nothing in the request (no nonces,
 * fixed directives), so they are computed once, not on every answer as @fastify/helmet does
 * (profiled at 4-6% of a hot request's CPU: docs/performance.md).
 */
function fixedHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure !== undefined) throw failure as Error;
  return Object.freeze(headers);
}

/** The CSP source of each inline <tag> block of a page (they are fixed text, so hashes allow them). */
function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))];
  return blocks.map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
}

export const securityHeaders = fp(
  async (app: FastifyInstance) => {
    const { config } = app.deps;
    const https = config.publicBaseUrl.startsWith('https://');
    // The server-rendered pages (login errors, development login) carry one fixed inline style.
    const pageStyles = inlineHashes(page('', ''), 'style');
    const base: Directives = {
      'default-src': ["'self'"],
      'base-uri': ["'none'"],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", ...pageStyles],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      ...(https && { 'upgrade-insecure-requests': [] }),
    };
    const headersWith = (directives: Directives, frameguard: HelmetOptions['frameguard']): HelmetOptions => ({
      contentSecurityPolicy: { useDefaults: false, directives },
      frameguard,
      // HSTS only means something over https; on http://localhost it would only confuse.
      strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
      referrerPolicy: { policy: 'same-origin' },
    });
    const defaultHeaders = fixedHeaders(headersWith(base, { action: 'deny' }));
    // The partner API's answers are JSON for partners' servers, never a page: the headers OWASP's
    // REST Security Cheat Sheet asks of an API (nothing may load from it or frame it, no sniffing,
    // HSTS) and none of a page's: a hot answer's headers were 767 bytes, 304 without the page's
    // (docs/performance.md "Twelfth round").
    const apiHeaders = fixedHeaders({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] },
      },
      frameguard: { action: 'deny' },
      strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
      crossOriginOpenerPolicy: false,
      crossOriginResourcePolicy: false,
      originAgentCluster: false,
      referrerPolicy: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    });

    // X-Frame-Options can name no list of origins: where /app may be framed by others, only the
    // CSP frame-ancestors (which every current browser honours) says by whom.
    const ancestors = config.frameAncestors;
    const appFraming =
      ancestors.length === 1 && ancestors[0] === "'self'"
        ? { action: 'sameorigin' as const }
        : ancestors[0] === "'none'"
          ? { action: 'deny' as const }
          : false;
    // The Mini Dapp SDK, when configured, loads from its address and talks to its wallets' hosts
    // (docs/wallets.md); a copy served from our own origin needs no addition to script-src.
    const miniDapp = config.walletConnectors.miniDapp;
    const sdkOrigin = miniDapp?.sdkUrl.startsWith('/') === false ? [new URL(miniDapp.sdkUrl).origin] : [];
    const sdkHosts = miniDapp ? [...sdkOrigin, 'https://*.kaiawallet.io', 'https://*.dappportal.io'] : [];
    const appHeaders = headersWith(
      {
        ...base,
        'frame-ancestors': ancestors,
        ...(miniDapp && {
          'script-src': ["'self'", ...sdkOrigin],
          'connect-src': [
            "'self'",
            ...sdkHosts,
            'wss://relay.walletconnect.org',
            'wss://relay.walletconnect.com',
          ],
          'frame-src': ["'self'", ...sdkHosts],
          'img-src': ["'self'", 'data:', ...sdkHosts],
        }),
      },
      appFraming,
    );
    // The LIFF entry page runs LINE's SDK and one inline script, and talks to LINE's API.
    const liffInline = inlineHashes(liffPage(config.login.liffId ?? '', LIFF_PATH), 'script');
    const liffHeaders = headersWith(
      {
        ...base,
        'script-src': ["'self'", 'https://static.line-scdn.net', ...liffInline],
        'connect-src': ["'self'", 'https://*.line.me', 'https://*.line-scdn.net'],
        'img-src': ["'self'", 'data:', 'https://*.line-scdn.net'],
      },
      { action: 'deny' },
    );
    // The development login's form ends in a redirect chain to the partner's page, which
    // form-action 'self' would stop (browsers apply it to a form's redirects too).
    const { 'form-action': _formAction, ...withoutFormAction } = base;
    const devLoginHeaders = headersWith(withoutFormAction, { action: 'deny' });
    // Swagger UI sets an inline style as it renders (its text varies by version, so no hash): on
    // /docs, styles may be inline; scripts stay 'self' only.
    const docsHeaders = headersWith(
      { ...base, 'style-src': ["'self'", "'unsafe-inline'"] },
      { action: 'deny' },
    );
    // Each route's headers are set in its config when it is added (so that the route files need
    // not know about headers); answers without a route (404) get the default ones.
    const computed = new Map<HelmetOptions, Readonly<Record<string, string>>>();
    const withHeaders = (config: unknown, helmetOptions: HelmetOptions) => {
      let headers = computed.get(helmetOptions);
      if (headers === undefined) computed.set(helmetOptions, (headers = fixedHeaders(helmetOptions)));
      return { ...(config as object), securityHeaders: headers };
    };
    app.addHook('onRequest', (request, reply, done) => {
      const route = request.routeOptions.config;
      reply.headers(route?.securityHeaders ?? (route?.scope === 'partner' ? apiHeaders : defaultHeaders));
      done();
    });
    app.addHook('onRoute', (route) => {
      const url = route.url;
      if (url === '/app' || url.startsWith('/app/')) route.config = withHeaders(route.config, appHeaders);
      else if (url === LIFF_PATH && route.method === 'GET')
        route.config = withHeaders(route.config, liffHeaders);
      else if (url === '/docs' || url.startsWith('/docs/'))
        route.config = withHeaders(route.config, docsHeaders);
      else if (url.startsWith(`${DEV_PROVIDER_PATH}/`))
        route.config = withHeaders(route.config, devLoginHeaders);
    });
  },
  { name: 'security-headers' },
);
