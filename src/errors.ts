// The error catalog: every error code the service can answer with, its name, HTTP status and
// category. The spec's eight codes keep their numbers; ours live in blocks from 3000 up (docs/errors.md).

export interface ErrorSpec {
  readonly code: number;
  readonly status: number;
  readonly category: string;
}

export const ERRORS = {
  // --- The specification's codes (fixed numbers and names) ---
  ADMIN_PERMISSION_DENIED: { code: 901, status: 403, category: 'Admin' },
  NOT_FOUND_MISSION_GROUP: { code: 1101, status: 404, category: 'MissionGroup' },
  NOT_FOUND_MISSION: { code: 1201, status: 404, category: 'Mission' },
  NOT_FOUND_REWARD_ASSET: { code: 1401, status: 404, category: 'RewardAsset' },
  NOT_SET_REWARD_ASSET_DECIMALS: { code: 1402, status: 422, category: 'RewardAsset' },
  NOT_FOUND_REWARD_BUDGET: { code: 1902, status: 404, category: 'Budget' },
  NOT_FOUND_PROMOTION: { code: 2101, status: 404, category: 'Promotion' },
  IMMUTABLE_PROMOTION_FIELD: { code: 2102, status: 409, category: 'Promotion' },

  // --- 3000: the request itself ---
  VALIDATION_FAILED: { code: 3000, status: 400, category: 'Request' },
  MALFORMED_JSON: { code: 3001, status: 400, category: 'Request' },
  PAYLOAD_TOO_LARGE: { code: 3002, status: 413, category: 'Request' },
  UNSUPPORTED_MEDIA_TYPE: { code: 3003, status: 415, category: 'Request' },
  ROUTE_NOT_FOUND: { code: 3004, status: 404, category: 'Request' },
  RATE_LIMITED: { code: 3005, status: 429, category: 'Request' },
  // 3006-3019: refusals at the edge (src/http/input-guard.ts, src/http/error-handler.ts)
  INVALID_CHARACTER: { code: 3006, status: 400, category: 'Request' },
  MALFORMED_URL: { code: 3007, status: 400, category: 'Request' },
  URI_TOO_LONG: { code: 3008, status: 414, category: 'Request' },
  HEADERS_TOO_LARGE: { code: 3009, status: 431, category: 'Request' },
  REQUEST_TIMEOUT: { code: 3010, status: 408, category: 'Request' },
  MALFORMED_REQUEST: { code: 3011, status: 400, category: 'Request' },
  UNSTORABLE_VALUE: { code: 3012, status: 400, category: 'Request' },
  EXPECTATION_FAILED: { code: 3013, status: 417, category: 'Request' },
  SERVICE_UNAVAILABLE: { code: 3098, status: 503, category: 'Request' },
  INTERNAL_ERROR: { code: 3099, status: 500, category: 'Request' },

  // --- 3100: partner credentials and partner administration ---
  PARTNER_UNAUTHORIZED: { code: 3100, status: 401, category: 'Partner' },
  IP_NOT_ALLOWED: { code: 3101, status: 403, category: 'Partner' },
  NOT_FOUND_PARTNER: { code: 3102, status: 404, category: 'Partner' },
  NOT_FOUND_API_KEY: { code: 3103, status: 404, category: 'Partner' },
  PARTNER_DISABLED: { code: 3104, status: 403, category: 'Partner' },

  // --- 3200: operator (admin) credentials ---
  ADMIN_UNAUTHORIZED: { code: 3200, status: 401, category: 'Admin' },
  NOT_FOUND_ADMIN_CREDENTIAL: { code: 3201, status: 404, category: 'Admin' },
  LAST_OWNER: { code: 3202, status: 409, category: 'Admin' },
  USER_UNAUTHORIZED: { code: 3210, status: 401, category: 'User' },

  // --- 3300: catalog and progress ---
  DUPLICATE_MISSION_KEY: { code: 3300, status: 409, category: 'Mission' },
  PROMOTION_NOT_ACTIVE: { code: 3301, status: 409, category: 'Promotion' },
  PROMOTION_NOT_IN_PERIOD: { code: 3302, status: 409, category: 'Promotion' },
  INVALID_MISSION_COMPLETION: { code: 3303, status: 422, category: 'Mission' },
  INVALID_TIMEZONE: { code: 3304, status: 400, category: 'Promotion' },
  CONFLICT: { code: 3305, status: 409, category: 'Request' },

  // --- 3400: login and linking ---
  INVALID_REDIRECT_URL: { code: 3400, status: 400, category: 'Login' },
  LOGIN_PARTNER_INVALID: { code: 3401, status: 400, category: 'Login' },
  INVALID_BROWSER_TYPE: { code: 3402, status: 400, category: 'Login' },
  LOGIN_STATE_INVALID: { code: 3403, status: 400, category: 'Login' },
  ID_TOKEN_INVALID: { code: 3404, status: 401, category: 'Login' },
  LOGIN_PROVIDER_UNAVAILABLE: { code: 3405, status: 503, category: 'Login' },
  LIFF_NOT_CONFIGURED: { code: 3406, status: 404, category: 'Login' },
  INVALID_RETURN_PATH: { code: 3407, status: 400, category: 'Login' },
  MAPPING_TOKEN_INVALID: { code: 3410, status: 400, category: 'Linking' },
  MAPPING_TOKEN_EXPIRED: { code: 3411, status: 400, category: 'Linking' },
  MAPPING_TOKEN_USED: { code: 3412, status: 409, category: 'Linking' },
  MAPPING_TOKEN_WRONG_PARTNER: { code: 3413, status: 403, category: 'Linking' },
  INVALID_REGION: { code: 3414, status: 400, category: 'Linking' },
  PARTNER_USER_LINKED_ELSEWHERE: { code: 3415, status: 409, category: 'Linking' },
  ACCOUNT_LINKED_ELSEWHERE: { code: 3416, status: 409, category: 'Linking' },
  NOT_FOUND_MAPPING: { code: 3417, status: 404, category: 'Linking' },
  // 3420-3439: sessions and login hygiene
  CROSS_SITE_REQUEST: { code: 3420, status: 403, category: 'Session' },

  // --- 3500: rewards ---
  INVALID_AMOUNT: { code: 3500, status: 400, category: 'Reward' },
  BUDGET_TYPE_MISMATCH: { code: 3501, status: 400, category: 'Reward' },
  ILLEGAL_CLAIM_TRANSITION: { code: 3502, status: 409, category: 'Claim' },
  NOT_FOUND_CLAIM: { code: 3503, status: 404, category: 'Claim' },
  DECIMALS_ALREADY_SET: { code: 3504, status: 409, category: 'RewardAsset' },
  NOT_FOUND_REWARD_RULE: { code: 3505, status: 404, category: 'Reward' },
  NOT_FOUND_DRAW: { code: 3506, status: 404, category: 'Draw' },
  DRAW_ALREADY_DRAWN: { code: 3507, status: 409, category: 'Draw' },

  // --- 3600: chain payouts (docs/payout.md) ---
  NOT_FOUND_CHAIN_NETWORK: { code: 3600, status: 404, category: 'Chain' },
  CHAIN_ID_MISMATCH: { code: 3601, status: 422, category: 'Chain' },
  CHAIN_RPC_UNAVAILABLE: { code: 3602, status: 503, category: 'Chain' },
  NOT_A_CHAIN_BUDGET: { code: 3603, status: 409, category: 'Chain' },
  REWARD_WALLET_EXISTS: { code: 3604, status: 409, category: 'Chain' },
  INVALID_PRIVATE_KEY: { code: 3605, status: 400, category: 'Chain' },
  NOT_FOUND_REWARD_WALLET: { code: 3606, status: 404, category: 'Chain' },
  NOT_A_TOKEN_CONTRACT: { code: 3607, status: 422, category: 'Chain' },
  NOT_A_DEV_CHAIN_WALLET: { code: 3620, status: 409, category: 'Chain' },
  SIWE_CHALLENGE_INVALID: { code: 3610, status: 400, category: 'Wallet' },
  SIWE_SIGNATURE_INVALID: { code: 3611, status: 400, category: 'Wallet' },
  NOT_FOUND_USER_WALLET: { code: 3612, status: 404, category: 'Wallet' },

  // --- 3700: webhooks (docs/webhooks.md) ---
  NOT_FOUND_WEBHOOK_ENDPOINT: { code: 3700, status: 404, category: 'Webhook' },
  WEBHOOK_URL_REFUSED: { code: 3701, status: 400, category: 'Webhook' },
  NOT_FOUND_WEBHOOK_MESSAGE: { code: 3702, status: 404, category: 'Webhook' },

  // --- 3900: idempotency keys (docs/idempotency.md) ---
  IDEMPOTENCY_KEY_INVALID: { code: 3900, status: 400, category: 'Idempotency' },
  IDEMPOTENCY_KEY_REUSED: { code: 3901, status: 422, category: 'Idempotency' },
  IDEMPOTENCY_KEY_IN_USE: { code: 3902, status: 409, category: 'Idempotency' },
  IDEMPOTENCY_KEY_NOT_ACCEPTED: { code: 3903, status: 400, category: 'Idempotency' },

  // --- 3950: preview and production (docs/environments.md) ---
  API_KEY_WRONG_ENVIRONMENT: { code: 3950, status: 401, category: 'Environment' },

  // --- 3800: operations endpoints (docs/operations.md, "Metrics and alerts") ---
  METRICS_UNAUTHORIZED: { code: 3800, status: 401, category: 'Operations' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorName = keyof typeof ERRORS;

/** The JSON body of every error response (DESIGN.md section 5). */
export interface ErrorBody {
  code: number;
  name: ErrorName;
  message: string;
}

/** An expected failure that becomes an HTTP error response with the catalog's status. */
export class AppError extends Error {
  readonly errorName: ErrorName;
  readonly code: number;
  readonly status: number;
  /** Extra fields the client may use (e.g. which field failed); never internals. */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    name: ErrorName,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, { cause: options?.cause });
    this.name = 'AppError';
    this.errorName = name;
    this.code = ERRORS[name].code;
    this.status = ERRORS[name].status;
    this.details = options?.details;
  }

  toBody(): ErrorBody & Record<string, unknown> {
    return { code: this.code, name: this.errorName, message: this.message, ...this.details };
  }
}

/** Shorthand: `throw appError('NOT_FOUND_MISSION', "no mission 'x'")`. */
export function appError(name: ErrorName, message: string, details?: Record<string, unknown>): AppError {
  return new AppError(name, message, details ? { details } : undefined);
}
