// The errors a partner call can end in: PartnerApiError for every answer of the service that is
// not a success (it carries our catalog's code and name), PartnerConnectionError when no answer came.

/**
 * The catalog names the partner operations can answer (docs/errors.md of the service). A newer
 * service may add names: `error.name` is typed so that a `switch` over these still needs a default.
 */
export const PARTNER_ERROR_NAMES = [
  // Specification codes.
  'NOT_FOUND_MISSION',
  // Request shape and transport.
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_CHARACTER',
  'UNSTORABLE_VALUE',
  'REQUEST_TIMEOUT',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
  // Credentials.
  'PARTNER_UNAUTHORIZED',
  'IP_NOT_ALLOWED',
  'PARTNER_DISABLED',
  'API_KEY_WRONG_ENVIRONMENT',
  // Idempotency keys.
  'IDEMPOTENCY_KEY_INVALID',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  // Achieve.
  'PROMOTION_NOT_ACTIVE',
  'PROMOTION_NOT_IN_PERIOD',
  'INVALID_MISSION_COMPLETION',
  'CONFLICT',
  // Connect.
  'MAPPING_TOKEN_INVALID',
  'MAPPING_TOKEN_EXPIRED',
  'MAPPING_TOKEN_USED',
  'MAPPING_TOKEN_WRONG_PARTNER',
  'INVALID_REGION',
  'PARTNER_USER_LINKED_ELSEWHERE',
  'ACCOUNT_LINKED_ELSEWHERE',
] as const;

/** A catalog name this SDK knows. */
export type KnownPartnerErrorName = (typeof PARTNER_ERROR_NAMES)[number];

/**
 * The name of a PartnerApiError: a catalog name, or `UNEXPECTED_RESPONSE` for an answer without our
 * error body (a proxy's page, say). `string & {}` keeps names a newer service adds.
 */
export type PartnerErrorName = KnownPartnerErrorName | 'UNEXPECTED_RESPONSE' | (string & {});

/** The error body every failed call of the service answers. */
export interface ErrorBody {
  code: number;
  name: string;
  message: string;
}

/** The service answered, and not with a success. */
export class PartnerApiError extends Error {
  /** The catalog name, e.g. `NOT_FOUND_MISSION`: switch on this. */
  declare name: PartnerErrorName;
  /** HTTP status of the answer. */
  readonly status: number;
  /** The catalog's numeric code, e.g. 1201; 0 for UNEXPECTED_RESPONSE. */
  readonly code: number;
  /** The service's `x-request-id` of the call: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** The parsed error body (it may carry more fields than code, name and message). */
  readonly body: unknown;
  /**
   * Seconds the service asked to wait before calling again (its `Retry-After`, on 429, 503 and a 409
   * of an idempotency key in use); undefined when it did not say. The SDK has already waited and
   * retried within `maxElapsedMs`: this is what was left when it stopped (see the README on the
   * 60 s rate windows).
   */
  readonly retryAfter: number | undefined;
  /** True when this is the stored answer of an earlier request with the same Idempotency-Key. */
  readonly replayed: boolean;

  constructor(init: {
    status: number;
    code: number;
    name: PartnerErrorName;
    message: string;
    requestId?: string | undefined;
    body?: unknown;
    retryAfter?: number | undefined;
    replayed?: boolean;
  }) {
    super(init.message);
    this.name = init.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.body = init.body;
    this.retryAfter = init.retryAfter;
    this.replayed = init.replayed ?? false;
  }

  /** The error for a failed response whose body (parsed JSON, or undefined) has been read. */
  static fromResponse(response: Response, body: unknown): PartnerApiError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
    const replayed = isReplayed(response);
    if (isErrorBody(body))
      return new PartnerApiError({
        status: response.status,
        ...pick(body),
        requestId,
        body,
        retryAfter,
        replayed,
      });
    return new PartnerApiError({
      status: response.status,
      code: 0,
      name: 'UNEXPECTED_RESPONSE',
      message: `the service answered ${response.status} without an error body`,
      requestId,
      body,
      retryAfter,
      replayed,
    });
  }
}

/**
 * No answer came (connection refused, reset or dropped; name resolution), after every retry within
 * `maxElapsedMs`. `cause` is the underlying error (its `code`, e.g. ECONNREFUSED, is also `code`).
 */
export class PartnerConnectionError extends Error {
  override name = 'PartnerConnectionError' as const;
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** The system error code of the last attempt, e.g. `ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`. */
  readonly code: string | undefined;
  constructor(message: string, options: { cause: unknown; attempts?: number }) {
    super(message, { cause: options.cause });
    this.attempts = options.attempts ?? 1;
    this.code = errorCode(options.cause);
  }
}

/** The caller's signal aborted the call (during an attempt or a wait between two); `cause` is its reason. */
export class PartnerAbortError extends Error {
  // The name fetch's own abort has, so code that checks `error.name === 'AbortError'` keeps working.
  override name = 'AbortError' as const;
  /** Attempts started before the abort, the first included. */
  readonly attempts: number;
  constructor(message: string, options: { cause: unknown; attempts: number }) {
    super(message, { cause: options.cause });
    this.attempts = options.attempts;
  }
}

/** The Retry-After header in whole seconds (delta-seconds or an HTTP date); undefined when absent or bad. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The answer is the stored one of an earlier request with the same Idempotency-Key. */
export function isReplayed(response: Response): boolean {
  return response.headers.get('idempotent-replayed')?.trim().toLowerCase() === 'true';
}

/** The system error code of a network failure (fetch puts it on its TypeError's cause). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { code, name, message } = body as Record<string, unknown>;
  return typeof code === 'number' && typeof name === 'string' && typeof message === 'string';
}

function pick(body: ErrorBody): ErrorBody {
  return { code: body.code, name: body.name, message: body.message };
}
