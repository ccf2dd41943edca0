// Security headers on every answer (docs/security.md, "Security headers"), through @fastify/helmet:
// a strict Content-Security-Policy, nosniff and no framing, except that the mission page (/app)
// may be framed by the origins in FRAME_ANCESTORS and the LIFF page may load LINE's SDK.
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import { liffPage, page } from './pages.ts';
import { DEV_PROVIDER_PATH, LIFF_PATH } from './login-paths.ts';

type Directives = Record<string, string[]>;

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
    const headersWith = (
      directives: Directives,
      frameguard: FastifyHelmetOptions['frameguard'],
    ): FastifyHelmetOptions => ({
      contentSecurityPolicy: { useDefaults: false, directives },
      frameguard,
      // HSTS only means something over https; on http://localhost it would only confuse.
      strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
      referrerPolicy: { policy: 'same-origin' },
    });
    await app.register(helmet, headersWith(base, { action: 'deny' }));

    // X-Frame-Options can name no list of origins: where /app may be framed by others, only the
    // CSP frame-ancestors (which every current browser honours) says by whom.
    const ancestors = config.frameAncestors;
    const appFraming =
      ancestors.length === 1 && ancestors[0] === "'self'"
        ? { action: 'sameorigin' as const }
        : ancestors[0] === "'none'"
          ? { action: 'deny' as const }
          : false;
    const appHeaders = headersWith({ ...base, 'frame-ancestors': ancestors }, appFraming);
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
    // @fastify/helmet reads a route's own options from its config (set here, so that the route
    // files need not know about headers).
    const withHeaders = (config: unknown, helmetOptions: FastifyHelmetOptions) =>
      ({ ...(config as object), helmet: helmetOptions }) as FastifyContextConfig;
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
