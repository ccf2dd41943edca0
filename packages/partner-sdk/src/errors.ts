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

  constructor(init: {
    status: number;
    code: number;
    name: PartnerErrorName;
    message: string;
    requestId?: string | undefined;
    body?: unknown;
  }) {
    super(init.message);
    this.name = init.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.body = init.body;
  }

  /** The error for a failed response whose body (parsed JSON, or undefined) has been read. */
  static fromResponse(response: Response, body: unknown): PartnerApiError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body))
      return new PartnerApiError({ status: response.status, ...pick(body), requestId, body });
    return new PartnerApiError({
      status: response.status,
      code: 0,
      name: 'UNEXPECTED_RESPONSE',
      message: `the service answered ${response.status} without an error body`,
      requestId,
      body,
    });
  }
}

/** No answer came (connection refused, reset or dropped; name resolution), after every retry. */
export class PartnerConnectionError extends Error {
  override name = 'PartnerConnectionError' as const;
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { code, name, message } = body as Record<string, unknown>;
  return typeof code === 'number' && typeof name === 'string' && typeof message === 'string';
}

function pick(body: ErrorBody): ErrorBody {
  return { code: body.code, name: body.name, message: body.message };
}
