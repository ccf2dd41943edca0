// A development OpenID Connect provider (the `oidc-provider` package) with a login page where one
// types a user name. The service mounts one under /dev-oidc when no LOGIN_OIDC_ISSUER is set, so
// the whole linking journey works with `npm start` and a browser; tests run another on loopback
// as an independent issuer. Never for production: config.ts refuses it when NODE_ENV=production.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';
import type { JSONWebKeySet, JWK } from 'jose';
import { escapeHtml, page } from '../http/pages.ts';

export interface DevClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface DevProvider {
  issuer: string;
  /** Node request handler; `req.url` is relative to the issuer's path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The public signing keys (what the JWKS endpoint serves). */
  publicJwks: JSONWebKeySet;
  /** Signs an arbitrary ID token with the provider's key (tests of the LIFF path only). */
  privateJwk: JWK;
}

const USER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

async function signingKeys(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  // ES256, as LINE signs the ID tokens of its in-app (LIFF) logins.
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { privateJwk, publicJwk };
}

function readForm(req: IncomingMessage, limit = 4096): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > limit) reject(new Error('form too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(html);
}

function loginPage(action: string, abort: string, clientId: string, problem?: string): string {
  return page(
    'Development login',
    `<p class="warning" role="alert"><strong>Development only.</strong> This login accepts any user name and
checks no password. A production service uses LINE Login (LOGIN_OIDC_ISSUER).</p>
<p>Sign in to the reward platform for <code>${escapeHtml(clientId)}</code>.</p>
${problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
  <label for="username">User name</label>
  <input id="username" name="username" autocomplete="username" required pattern="[A-Za-z0-9._\\-]{1,64}" autofocus>
  <button type="submit">Sign in</button>
</form>
<form method="post" action="${escapeHtml(abort)}"><button type="submit" class="secondary">Cancel</button></form>`,
  );
}

export async function createDevProvider(options: {
  issuer: string;
  clients: DevClient[];
  proxy?: boolean;
}): Promise<DevProvider> {
  const { privateJwk, publicJwk } = await signingKeys();
  const mountPath = new URL(options.issuer).pathname.replace(/\/$/, '');
  // oidc-provider is loaded at the first login, not at start-up (half a second of module loading
  // that /healthz need not wait for; docs/performance.md).
  let loaded: Promise<{ provider: Provider; callback: ReturnType<Provider['callback']> }> | undefined;
  const ready = () => (loaded ??= load());
  async function load() {
    const { default: OidcProvider } = await import('oidc-provider');
    const provider = new OidcProvider(options.issuer, {
      clients: options.clients.map((client) => ({
        ...client,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      })),
      jwks: { keys: [privateJwk] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      features: { devInteractions: { enabled: false } },
      pkce: { required: () => true },
      ttl: {
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        AccessToken: 600,
        IdToken: 600,
        AuthorizationCode: 60,
      },
      claims: { openid: ['sub'], profile: ['name'] },
      // Put the profile claims in the ID token itself, as LINE does.
      conformIdTokenClaims: false,
      findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, name: id }) }),
      interactions: { url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}` },
      // A first-party login: no consent screen.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const { client, session } = ctx.oidc;
        if (!client || !session?.accountId) return undefined;
        const existing = session.grantIdFor(client.clientId);
        if (existing) return ctx.oidc.provider.Grant.find(existing);
        const grant = new ctx.oidc.provider.Grant({
          clientId: client.clientId,
          accountId: session.accountId,
        });
        grant.addOIDCScope('openid profile');
        await grant.save();
        return grant;
      },
      renderError: (ctx, out) => {
        ctx.type = 'html';
        ctx.body = page(
          'Login error',
          `<p class="error" role="alert">${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`,
        );
      },
    });
    provider.proxy = options.proxy ?? false;
    return { provider, callback: provider.callback() };
  }

  async function interaction(
    provider: Provider,
    req: IncomingMessage,
    res: ServerResponse,
    uid: string,
    action: string | undefined,
  ) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid)
      return send(res, 400, page('Login error', '<p>This login has expired; start again.</p>'));
    const clientId = String(details.params.client_id ?? '');
    const base = `${mountPath}/interaction/${uid}`;
    if (action === undefined && req.method === 'GET')
      return send(res, 200, loginPage(`${base}/login`, `${base}/abort`, clientId));
    if (action === '/abort' && req.method === 'POST') {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user cancelled the login' },
        { mergeWithLastSubmission: false },
      );
    }
    if (action === '/login' && req.method === 'POST') {
      const username = (await readForm(req)).get('username')?.trim() ?? '';
      if (!USER_NAME.test(username)) {
        return send(
          res,
          400,
          loginPage(
            `${base}/login`,
            `${base}/abort`,
            clientId,
            'A user name is 1 to 64 letters, digits, dots, dashes or underscores.',
          ),
        );
      }
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: username } },
        { mergeWithLastSubmission: false },
      );
    }
    return send(res, 405, page('Login error', '<p>Method not allowed.</p>'));
  }

  return {
    issuer: options.issuer,
    publicJwks: { keys: [publicJwk] },
    privateJwk,
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const match = /^\/interaction\/([A-Za-z0-9_-]{1,64})(\/login|\/abort)?$/.exec(path);
      const handled = ready().then(({ provider, callback }) =>
        match ? interaction(provider, req, res, match[1] as string, match[2]) : callback(req, res),
      );
      handled.catch((error: unknown) => {
        const expired = error instanceof Error && error.name === 'SessionNotFound';
        if (!res.headersSent)
          send(
            res,
            400,
            page(
              'Login error',
              `<p>${expired ? 'This login has expired; start again from the app.' : 'The login failed.'}</p>`,
            ),
          );
      });
    },
  };
}
