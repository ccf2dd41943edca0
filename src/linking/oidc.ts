// The relying party: authorization URLs, the code exchange (state, nonce, PKCE S256) through
// openid-client, and ID token verification with jose against the issuer's keys (ES256 through its
// JWKS; HS256 with the client secret, as LINE signs its web-login tokens).
import * as client from 'openid-client';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, customFetch as joseCustomFetch } from 'jose';
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import {
  idTokenRefused,
  idTokenWithoutSubject,
  idTokenWrongNonce,
  loginProviderUnavailable,
} from '../error-factories.ts';
import type { Clock } from '../domain/clock.ts';

export interface Identity {
  issuer: string;
  subject: string;
  displayName: string | null;
  nonce: string | undefined;
}

export interface LoginClientOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string;
  /** How the issuer signs ID tokens from its token endpoint (LINE web login: HS256). */
  idTokenAlg: string;
  clock: Clock;
  /** Transport for every request to the issuer (the embedded provider is answered in process). */
  fetch?: client.CustomFetch;
  /** Keys to trust instead of fetching the issuer's JWKS (the embedded provider). */
  localJwks?: JSONWebKeySet;
}

const ID_TOKEN_ALGORITHMS = ['ES256', 'RS256', 'HS256'];
/** Seconds of clock difference tolerated between us and the issuer. */
const CLOCK_TOLERANCE = 60;

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

export class LoginClient {
  readonly #options: LoginClientOptions;
  #configuration: Promise<client.Configuration> | undefined;
  #keys: JWTVerifyGetKey | undefined;

  constructor(options: LoginClientOptions) {
    this.#options = options;
  }

  get issuer(): string {
    return this.#options.issuer;
  }

  /** Discovery, once; a failure is not cached, so the next login tries again. */
  async configuration(): Promise<client.Configuration> {
    if (!this.#configuration) {
      const { issuer, clientId, clientSecret } = this.#options;
      const url = new URL(issuer);
      const discovering = client
        .discovery(
          url,
          clientId,
          { client_secret: clientSecret, id_token_signed_response_alg: this.#options.idTokenAlg },
          client.ClientSecretPost(clientSecret),
          {
            // Plain HTTP only to an issuer on this machine or in this process (development and tests).
            execute: isLoopback(url) || this.#options.fetch ? [client.allowInsecureRequests] : [],
            ...(this.#options.fetch ? { [client.customFetch]: this.#options.fetch } : {}),
            timeout: 10,
          },
        )
        .then((configuration) => {
          if (this.#options.fetch) configuration[client.customFetch] = this.#options.fetch;
          return configuration;
        });
      this.#configuration = discovering;
      discovering.catch(() => {
        if (this.#configuration === discovering) this.#configuration = undefined;
      });
    }
    try {
      return await this.#configuration;
    } catch (error) {
      throw loginProviderUnavailable({ cause: error });
    }
  }

  async authorizationUrl(input: {
    state: string;
    nonce: string;
    codeVerifier: string;
    extra: Record<string, string>;
  }): Promise<URL> {
    const configuration = await this.configuration();
    return client.buildAuthorizationUrl(configuration, {
      ...input.extra,
      redirect_uri: this.#options.redirectUri,
      scope: this.#options.scopes,
      response_type: 'code',
      state: input.state,
      nonce: input.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(input.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /** Exchanges the code of a callback URL; checks state, nonce, PKCE, then the ID token's signature. */
  async exchange(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Identity> {
    const configuration = await this.configuration();
    const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
    if (!tokens.id_token) throw new Error('the token response has no ID token');
    return this.verifyIdToken(tokens.id_token, { nonce: checks.nonce, nonceRequired: true });
  }

  async #keyResolver(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    const { localJwks, clientSecret } = this.#options;
    let asymmetric: JWTVerifyGetKey;
    if (localJwks) {
      asymmetric = createLocalJWKSet(localJwks);
    } else {
      const jwksUri = (await this.configuration()).serverMetadata().jwks_uri;
      if (!jwksUri) throw new Error('the issuer publishes no jwks_uri');
      asymmetric = createRemoteJWKSet(new URL(jwksUri), {
        ...(this.#options.fetch ? { [joseCustomFetch]: this.#options.fetch as never } : {}),
      });
    }
    const secret = new TextEncoder().encode(clientSecret);
    this.#keys = (header, token) => (header.alg === 'HS256' ? secret : asymmetric(header, token));
    return this.#keys;
  }

  /**
   * Verifies an ID token: signature (ES256/RS256 by the issuer's keys, HS256 by the client secret),
   * issuer, audience, expiry; the nonce must match when the token has one or when it is required.
   */
  async verifyIdToken(
    idToken: string,
    options: { nonce: string; nonceRequired: boolean },
  ): Promise<Identity> {
    const keys = await this.#keyResolver();
    const configuration = await this.configuration();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: configuration.serverMetadata().issuer,
        audience: this.#options.clientId,
        algorithms: ID_TOKEN_ALGORITHMS,
        currentDate: this.#options.clock.now(),
        clockTolerance: CLOCK_TOLERANCE,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      throw idTokenRefused({ cause: error });
    }
    const nonce = typeof payload.nonce === 'string' ? payload.nonce : undefined;
    if ((nonce !== undefined || options.nonceRequired) && nonce !== options.nonce) {
      throw idTokenWrongNonce();
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255) {
      throw idTokenWithoutSubject();
    }
    const name = typeof payload.name === 'string' ? payload.name.slice(0, 200) : null;
    return { issuer: String(payload.iss), subject: payload.sub, displayName: name, nonce };
  }
}
