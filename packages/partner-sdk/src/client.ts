// The partner client: the four operations of the specification, typed from the service's OpenAPI
// document (schema.ts) and called through openapi-fetch, with retries and idempotency keys.
import createClient from 'openapi-fetch';
import { isReplayed, PartnerApiError, PartnerConnectionError } from './errors.js';
import { retryingFetch, retryPolicy } from './retry.js';
import type { RetryOptions } from './retry.js';
import type { paths } from './schema.js';

/** The body of achieve: progress, or completion, of one mission for one user. */
export type AchieveRequest = paths['/v1/achieve']['post']['requestBody']['content']['application/json'];
/** The body of connect: the one-time mapping token, the partner's user and the user's region. */
export type ConnectRequest =
  paths['/v1/mission-users/connect']['post']['requestBody']['content']['application/json'];
/** Where the browser is sent to start linking (the login redirect's query). */
export type AuthUrlParameters = paths['/v1/mission-users/auth']['get']['parameters']['query'];
/** The environment the login runs in; WEB when not given. */
export type BrowserType = 'MINI' | 'LIFF' | 'WEB';

export interface PartnerClientOptions {
  /** The service's base address, e.g. `https://preview.example.com` (the path prefix /v1 is added). */
  baseUrl: string;
  /** The partner identifier issued to you (header X-Partner-Id). */
  partnerId: string;
  /** An API key issued to you (header X-Api-Key). Keep it on your server. */
  apiKey: string;
  /** Retries on network errors, 429, 503 and a 409 of an idempotency key in use; `false` for none. See RetryOptions for the defaults. */
  retry?: RetryOptions | false;
  /** The fetch to use (default: the global fetch of Node 20+). */
  fetch?: (request: Request) => Promise<Response>;
}

/** Options of one POST call. */
export interface CallOptions {
  /**
   * The Idempotency-Key header. Default: a new random key for this call, the same on each of its
   * retries. Give your own (e.g. derived from your event id) to make repeats of your own job safe too.
   */
  idempotencyKey?: string;
  /** Aborts the call, its retries included. */
  signal?: AbortSignal;
}

/** The outcome of a POST call that succeeded. */
export interface CallResult {
  /**
   * True when the answer is the stored one of an earlier request with the same Idempotency-Key
   * (header `Idempotent-Replayed`): that earlier request did the work, this one changed nothing.
   */
  replayed: boolean;
  /** The service's `x-request-id` of the answer. */
  requestId: string | undefined;
}

/** What the browser brought back to your redirect URL after the login. */
export type LinkCallback = { ok: true; token: string } | { ok: false; error: string };

export interface PartnerClient {
  /** The address to send the user's browser to (a navigation, not a server call): it starts the login. */
  authUrl(parameters: { redirectUrl: string; browserType?: BrowserType }): string;
  /** Finalises the link with the mapping token the browser brought back (POST /v1/mission-users/connect). */
  connect(request: ConnectRequest, options?: CallOptions): Promise<CallResult>;
  /** Whether the partner user is linked to a platform account (GET /v1/mission-users). */
  isLinked(partnerUid: string, options?: Pick<CallOptions, 'signal'>): Promise<boolean>;
  /** Stores the user's progress on a mission, or its completion (POST /v1/achieve, an upsert). */
  achieve(request: AchieveRequest, options?: CallOptions): Promise<CallResult>;
}

/** A client for one partner's credentials on one environment of the service. */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseUrl)) throw new TypeError('baseUrl must be an http(s) address');
  const send = retryingFetch(
    retryPolicy(options.retry),
    options.fetch ?? ((request: Request) => globalThis.fetch(request)),
  );
  const api = createClient<paths>({
    baseUrl,
    headers: { 'x-partner-id': options.partnerId, 'x-api-key': options.apiKey },
    fetch: send,
  });

  /** Runs one call: a network failure becomes PartnerConnectionError, a failed answer PartnerApiError. */
  async function call<T extends { error?: unknown; response: Response }>(run: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      if (error instanceof TypeError)
        throw new PartnerConnectionError(`no answer from ${baseUrl}: ${error.message}`, { cause: error });
      throw error;
    }
    if (!result.response.ok) throw PartnerApiError.fromResponse(result.response, result.error);
    return result;
  }

  const idempotency = (callOptions: CallOptions | undefined) => ({
    'idempotency-key': callOptions?.idempotencyKey ?? globalThis.crypto.randomUUID(),
  });

  return {
    authUrl({ redirectUrl, browserType }) {
      const query = new URLSearchParams({ partnerId: options.partnerId, redirectUrl });
      if (browserType !== undefined) query.set('browserType', browserType);
      return `${baseUrl}/v1/mission-users/auth?${query}`;
    },

    async connect(request, callOptions) {
      const { response } = await call(() =>
        api.POST('/v1/mission-users/connect', {
          body: request,
          headers: idempotency(callOptions),
          parseAs: 'text',
          ...(callOptions?.signal && { signal: callOptions.signal }),
        }),
      );
      return resultOf(response);
    },

    async isLinked(partnerUid, callOptions) {
      const { data } = await call(() =>
        api.GET('/v1/mission-users', {
          params: { query: { partnerUid } },
          ...(callOptions?.signal && { signal: callOptions.signal }),
        }),
      );
      if (typeof data?.result !== 'boolean') throw new TypeError('the link check answered without result');
      return data.result;
    },

    async achieve(request, callOptions) {
      const { response } = await call(() =>
        api.POST('/v1/achieve', {
          body: request,
          headers: idempotency(callOptions),
          parseAs: 'text',
          ...(callOptions?.signal && { signal: callOptions.signal }),
        }),
      );
      return resultOf(response);
    },
  };
}

function resultOf(response: Response): CallResult {
  return { replayed: isReplayed(response), requestId: response.headers.get('x-request-id') ?? undefined };
}

/**
 * Reads the address the browser came back to after the login: `token` to pass to connect, or
 * `error` (access_denied, login_failed, temporarily_unavailable) when the login did not finish.
 */
export function readLinkCallback(url: string | URL): LinkCallback {
  const query = new URL(url, 'http://callback.invalid').searchParams;
  const token = query.get('token');
  if (token !== null && token !== '') return { ok: true, token };
  return { ok: false, error: query.get('error') || 'missing_token' };
}
