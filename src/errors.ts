// The error catalog: every error code the service can answer with, its name, HTTP status and
// category. The spec's eight codes keep their numbers; ours live in blocks from 3000 up (docs/errors.md).

export interface ErrorSpec {
  readonly code: number;
  readonly status: number;
  readonly category: string;
  /** One sentence: what happened and what the caller should do (served at GET /docs/errors). */
  readonly description: string;
}

export const ERRORS = {
  // --- The specification's codes (fixed numbers and names) ---
  ADMIN_PERMISSION_DENIED: {
    code: 901,
    status: 403,
    category: 'Admin',
    description:
      "The operator credential's role does not allow this operation; use a credential with the needed role (VIEWER reads, OPERATOR writes, OWNER manages admins).",
  },
  NOT_FOUND_MISSION_GROUP: {
    code: 1101,
    status: 404,
    category: 'MissionGroup',
    description: "No mission group has this id; check the id (list the promotion's mission groups).",
  },
  NOT_FOUND_MISSION: {
    code: 1201,
    status: 404,
    category: 'Mission',
    description:
      'No mission has this id, or the partner has no mission with this missionKey; check the id or key.',
  },
  NOT_FOUND_REWARD_ASSET: {
    code: 1401,
    status: 404,
    category: 'RewardAsset',
    description: 'No reward asset has this id; check the id (list the reward assets).',
  },
  NOT_SET_REWARD_ASSET_DECIMALS: {
    code: 1402,
    status: 422,
    category: 'RewardAsset',
    description:
      "The asset's decimals are not set, so it cannot back a budget or reward; set them on the asset first.",
  },
  NOT_FOUND_REWARD_BUDGET: {
    code: 1902,
    status: 404,
    category: 'Budget',
    description: 'No budget has this id; check the id (list the budgets).',
  },
  NOT_FOUND_PROMOTION: {
    code: 2101,
    status: 404,
    category: 'Promotion',
    description: 'No promotion has this id; check the id (list the promotions).',
  },
  IMMUTABLE_PROMOTION_FIELD: {
    code: 2102,
    status: 409,
    category: 'Promotion',
    description:
      'The promotion has been ACTIVE, so its partner, type, start and time zone are fixed; create a new promotion instead.',
  },

  // --- 3000: the request itself ---
  VALIDATION_FAILED: {
    code: 3000,
    status: 400,
    category: 'Request',
    description:
      'A field is missing, of the wrong type, out of range or unknown (see field); fix the request and send it again.',
  },
  MALFORMED_JSON: {
    code: 3001,
    status: 400,
    category: 'Request',
    description:
      'The body is not valid JSON (or is empty with a JSON content type); send a well-formed JSON body.',
  },
  PAYLOAD_TOO_LARGE: {
    code: 3002,
    status: 413,
    category: 'Request',
    description: 'The body is larger than the service accepts (64 KiB by default); send a smaller body.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 3003,
    status: 415,
    category: 'Request',
    description: 'The body is not application/json; send JSON with Content-Type: application/json.',
  },
  ROUTE_NOT_FOUND: {
    code: 3004,
    status: 404,
    category: 'Request',
    description: 'No operation answers this method and path; check the URL against the OpenAPI document.',
  },
  RATE_LIMITED: {
    code: 3005,
    status: 429,
    category: 'Request',
    description:
      'Too many requests (or failed credentials) from this address or partner; wait for Retry-After seconds, then retry.',
  },
  // 3006-3019: refusals at the edge (src/http/input-guard.ts, src/http/error-handler.ts)
  INVALID_CHARACTER: {
    code: 3006,
    status: 400,
    category: 'Request',
    description:
      'The URL, a header or a JSON string holds a NUL, an unpaired surrogate or bytes that are not UTF-8; remove them.',
  },
  MALFORMED_URL: {
    code: 3007,
    status: 400,
    category: 'Request',
    description: 'The URL path has a malformed percent-encoding; encode the path correctly.',
  },
  URI_TOO_LONG: {
    code: 3008,
    status: 414,
    category: 'Request',
    description: 'The URL or one of its path segments is too long; shorten it.',
  },
  HEADERS_TOO_LARGE: {
    code: 3009,
    status: 431,
    category: 'Request',
    description:
      'The request headers are larger than the service accepts (16 KiB); send fewer or smaller headers.',
  },
  REQUEST_TIMEOUT: {
    code: 3010,
    status: 408,
    category: 'Request',
    description: 'The request did not arrive in time and the connection was closed; send it again.',
  },
  MALFORMED_REQUEST: {
    code: 3011,
    status: 400,
    category: 'Request',
    description:
      'The request is not well-formed HTTP/1.1 (request line, headers or framing); fix the client.',
  },
  UNSTORABLE_VALUE: {
    code: 3012,
    status: 400,
    category: 'Request',
    description:
      'The database refused a value of the request (out of range, too long or malformed); send a smaller or valid value.',
  },
  EXPECTATION_FAILED: {
    code: 3013,
    status: 417,
    category: 'Request',
    description: 'The Expect header holds something other than 100-continue; drop it.',
  },
  // 3014-3019: lucky draws' close and chain beacon (issue #28; docs/rewards.md "Lucky draws")
  DRAW_CLOSES_IN_PAST: {
    code: 3014,
    status: 400,
    category: 'Draw',
    description:
      "A draw's closesAt is before now: its tickets would be known when it is created; choose a close time from now on.",
  },
  DRAW_RUNS_BEFORE_CLOSE: {
    code: 3015,
    status: 400,
    category: 'Draw',
    description:
      "A draw's scheduledAt is before its closesAt; it runs at or after the close of its tickets, so set scheduledAt later.",
  },
  DRAW_WAITING_FOR_BLOCK: {
    code: 3016,
    status: 503,
    category: 'Draw',
    description:
      'The draw mixes the hash of the first block mined after closesAt into its seed, and that block is not mined or not confirmed yet; retry after Retry-After seconds.',
  },
  DRAW_CHAIN_UNAVAILABLE: {
    code: 3017,
    status: 503,
    category: 'Draw',
    description:
      "The draw needs a block hash from its budget's network, whose RPC endpoint did not answer; it waits (never takes another block): retry later.",
  },
  SERVICE_UNAVAILABLE: {
    code: 3098,
    status: 503,
    category: 'Request',
    description:
      'The service or its database is busy or unreachable for a moment; retry after Retry-After seconds.',
  },
  INTERNAL_ERROR: {
    code: 3099,
    status: 500,
    category: 'Request',
    description:
      'An unexpected failure on our side (the message holds only the request id); retry, and report the request id.',
  },

  // --- 3100: partner credentials and partner administration ---
  PARTNER_UNAUTHORIZED: {
    code: 3100,
    status: 401,
    category: 'Partner',
    description:
      'X-Partner-Id or X-Api-Key is missing, unknown, wrong or revoked; send valid partner credentials.',
  },
  IP_NOT_ALLOWED: {
    code: 3101,
    status: 403,
    category: 'Partner',
    description:
      "The request comes from an address outside the partner's allow-list; call from an allowed address or ask an operator.",
  },
  NOT_FOUND_PARTNER: {
    code: 3102,
    status: 404,
    category: 'Partner',
    description: 'No partner has this id; check the id (list the partners).',
  },
  NOT_FOUND_API_KEY: {
    code: 3103,
    status: 404,
    category: 'Partner',
    description: 'The partner has no API key with this id; check the id (list its API keys).',
  },
  PARTNER_DISABLED: {
    code: 3104,
    status: 403,
    category: 'Partner',
    description: 'The credentials are right but the partner is DISABLED; ask an operator to enable it.',
  },

  // --- 3200: operator (admin) credentials ---
  ADMIN_UNAUTHORIZED: {
    code: 3200,
    status: 401,
    category: 'Admin',
    description: 'The Authorization bearer is missing, unknown or revoked; send a live admin credential.',
  },
  NOT_FOUND_ADMIN_CREDENTIAL: {
    code: 3201,
    status: 404,
    category: 'Admin',
    description: 'No admin credential has this id; check the id (list the credentials).',
  },
  LAST_OWNER: {
    code: 3202,
    status: 409,
    category: 'Admin',
    description: 'This is the last live OWNER credential and cannot be revoked; create another OWNER first.',
  },
  USER_UNAUTHORIZED: {
    code: 3210,
    status: 401,
    category: 'User',
    description:
      'There is no live session (none, unknown, expired or signed out); sign in again at /v1/login.',
  },

  // --- 3300: catalog and progress ---
  DUPLICATE_MISSION_KEY: {
    code: 3300,
    status: 409,
    category: 'Mission',
    description: 'The partner already has a mission with this key; choose another key.',
  },
  PROMOTION_NOT_ACTIVE: {
    code: 3301,
    status: 409,
    category: 'Promotion',
    description:
      "The mission's promotion is INACTIVE, so progress is not recorded; ask an operator to activate it.",
  },
  PROMOTION_NOT_IN_PERIOD: {
    code: 3302,
    status: 409,
    category: 'Promotion',
    description:
      "The report is outside the promotion's period (before startAt or from endAt); report only within it.",
  },
  INVALID_MISSION_COMPLETION: {
    code: 3303,
    status: 422,
    category: 'Mission',
    description:
      'completed is true but metadata.current is below the target; send the current value at or above the target.',
  },
  INVALID_TIMEZONE: {
    code: 3304,
    status: 400,
    category: 'Promotion',
    description: 'The time zone is not an IANA name; send one such as Asia/Tokyo.',
  },
  CONFLICT: {
    code: 3305,
    status: 409,
    category: 'Request',
    description:
      'A concurrent change won (or the change conflicts with stored data); read the resource again and retry.',
  },

  // --- 3400: login and linking ---
  INVALID_REDIRECT_URL: {
    code: 3400,
    status: 400,
    category: 'Login',
    description:
      "redirectUrl is malformed or matches none of the partner's registered redirect URLs; register it or fix it.",
  },
  LOGIN_PARTNER_INVALID: {
    code: 3401,
    status: 400,
    category: 'Login',
    description: 'The login redirect names an unknown or DISABLED partner; check partnerId.',
  },
  INVALID_BROWSER_TYPE: {
    code: 3402,
    status: 400,
    category: 'Login',
    description: 'browserType is not MINI, LIFF or WEB; send one of them or leave it empty.',
  },
  LOGIN_STATE_INVALID: {
    code: 3403,
    status: 400,
    category: 'Login',
    description:
      'The login state is missing, unknown, used, expired or from another browser; start the login again.',
  },
  ID_TOKEN_INVALID: {
    code: 3404,
    status: 401,
    category: 'Login',
    description:
      "The LIFF ID token's signature, issuer, audience, expiry or nonce is wrong; start the login again.",
  },
  LOGIN_PROVIDER_UNAVAILABLE: {
    code: 3405,
    status: 503,
    category: 'Login',
    description: 'The login provider cannot be reached; retry shortly.',
  },
  LIFF_NOT_CONFIGURED: {
    code: 3406,
    status: 404,
    category: 'Login',
    description: 'This deployment has no LIFF app configured; use the web login instead.',
  },
  INVALID_RETURN_PATH: {
    code: 3407,
    status: 400,
    category: 'Login',
    description: 'returnTo is not a page of this service under /app; send a path under /app.',
  },
  MAPPING_TOKEN_INVALID: {
    code: 3410,
    status: 400,
    category: 'Linking',
    description:
      'The mapping token was never issued by this service or is malformed; send the token the login returned.',
  },
  MAPPING_TOKEN_EXPIRED: {
    code: 3411,
    status: 400,
    category: 'Linking',
    description: 'The mapping token has expired; have the user log in again for a new token.',
  },
  MAPPING_TOKEN_USED: {
    code: 3412,
    status: 409,
    category: 'Linking',
    description: 'The mapping token was already used; have the user log in again for a new token.',
  },
  MAPPING_TOKEN_WRONG_PARTNER: {
    code: 3413,
    status: 403,
    category: 'Linking',
    description: "The mapping token was issued for another partner's login; use your own partner's token.",
  },
  INVALID_REGION: {
    code: 3414,
    status: 400,
    category: 'Linking',
    description: 'region is not an assigned ISO 3166-1 alpha-2 code; send one such as JP.',
  },
  PARTNER_USER_LINKED_ELSEWHERE: {
    code: 3415,
    status: 409,
    category: 'Linking',
    description:
      'This partnerUid is already linked to another platform account; unlink it first if that is intended.',
  },
  ACCOUNT_LINKED_ELSEWHERE: {
    code: 3416,
    status: 409,
    category: 'Linking',
    description:
      'The platform account is already linked to another user of this partner; unlink that user first.',
  },
  NOT_FOUND_MAPPING: {
    code: 3417,
    status: 404,
    category: 'Linking',
    description: 'This partner user is not linked; nothing to show or remove.',
  },
  // 3420-3439: sessions and login hygiene
  CROSS_SITE_REQUEST: {
    code: 3420,
    status: 403,
    category: 'Session',
    description:
      "A cookie-authenticated write came from another site; send it from this service's own pages.",
  },

  // --- 3500: rewards ---
  INVALID_AMOUNT: {
    code: 3500,
    status: 400,
    category: 'Reward',
    description:
      "The amount is not a plain positive decimal within the asset's decimals; send one such as 12.5.",
  },
  BUDGET_TYPE_MISMATCH: {
    code: 3501,
    status: 400,
    category: 'Reward',
    description:
      "The reward type does not match the budget's type (FIXED or LUCKY_DRAW); choose a matching budget.",
  },
  ILLEGAL_CLAIM_TRANSITION: {
    code: 3502,
    status: 409,
    category: 'Claim',
    description:
      "The claim's status does not allow this move (e.g. rejecting a SUCCEEDED claim); read the claim first.",
  },
  NOT_FOUND_CLAIM: {
    code: 3503,
    status: 404,
    category: 'Claim',
    description: 'No claim has this id; check the id (list the claims).',
  },
  DECIMALS_ALREADY_SET: {
    code: 3504,
    status: 409,
    category: 'RewardAsset',
    description: "The asset's decimals are set and cannot change; create a new asset instead.",
  },
  NOT_FOUND_REWARD_RULE: {
    code: 3505,
    status: 404,
    category: 'Reward',
    description: 'The mission or group has no reward to remove; nothing to do.',
  },
  NOT_FOUND_DRAW: {
    code: 3506,
    status: 404,
    category: 'Draw',
    description: 'No lucky draw has this id; check the id (list the draws).',
  },
  DRAW_ALREADY_DRAWN: {
    code: 3507,
    status: 409,
    category: 'Draw',
    description: 'The draw has already run; read its winners instead.',
  },
  DRAW_NOT_DUE: {
    code: 3508,
    status: 409,
    category: 'Draw',
    description:
      'The draw runs at its scheduledAt (its tickets close at closesAt, at or before it) and cannot run before; run it at or after scheduledAt.',
  },
  DRAW_EARLIER_PENDING: {
    code: 3509,
    status: 409,
    category: 'Draw',
    description:
      'An earlier-scheduled draw of the same budget has not run; run that one first (draws of a budget run in scheduled order).',
  },
  PAYOUT_ADDRESS_TAKEN: {
    code: 3510,
    status: 409,
    category: 'Wallet',
    description:
      'Another account has bound this payout address, and this service allows one account per address; bind a wallet of your own.',
  },

  // --- 3600: chain payouts (docs/payout.md) ---
  NOT_FOUND_CHAIN_NETWORK: {
    code: 3600,
    status: 404,
    category: 'Chain',
    description: 'No EVM network has this id (or none is configured); register the network first.',
  },
  CHAIN_ID_MISMATCH: {
    code: 3601,
    status: 422,
    category: 'Chain',
    description: "The network's RPC endpoint reports another chain id; check the RPC URL and chain id.",
  },
  CHAIN_RPC_UNAVAILABLE: {
    code: 3602,
    status: 503,
    category: 'Chain',
    description: "The network's RPC endpoint did not answer; retry shortly or check the endpoint.",
  },
  NOT_A_CHAIN_BUDGET: {
    code: 3603,
    status: 409,
    category: 'Chain',
    description:
      "The budget's asset is not on a chain, so it has no reward wallet; use a chain asset's budget.",
  },
  REWARD_WALLET_EXISTS: {
    code: 3604,
    status: 409,
    category: 'Chain',
    description:
      'The budget already has a reward wallet, or the imported key is used by another budget; keep the existing one.',
  },
  INVALID_PRIVATE_KEY: {
    code: 3605,
    status: 400,
    category: 'Chain',
    description: 'The imported key is not 0x and 64 hex digits of a valid secp256k1 key; send a valid key.',
  },
  NOT_FOUND_REWARD_WALLET: {
    code: 3606,
    status: 404,
    category: 'Chain',
    description: 'The budget has no reward wallet yet; create one first.',
  },
  NOT_A_TOKEN_CONTRACT: {
    code: 3607,
    status: 422,
    category: 'Chain',
    description: 'The token address has no contract code on the network; check the address and network.',
  },
  NOT_A_DEV_CHAIN_WALLET: {
    code: 3620,
    status: 409,
    category: 'Chain',
    description: 'The dev faucet only funds wallets on the development chain; fund this wallet yourself.',
  },
  UNSUPPORTED_TOKEN: {
    code: 3621,
    status: 422,
    category: 'Chain',
    description:
      'The token does not behave as the payout needs (its dry-run transfer returns false or reverts); use a standard ERC-20.',
  },
  CHAIN_RPC_URL_REFUSED: {
    code: 3622,
    status: 400,
    category: 'Chain',
    description:
      'The RPC or explorer URL is not allowed: it must be http(s) without credentials, and in production on a public address unless its host is in CHAIN_RPC_ALLOWED_HOSTS.',
  },
  REWARD_WALLET_RUNNING: {
    code: 3623,
    status: 409,
    category: 'Chain',
    description:
      'The reward wallet is not halted, so there is nothing to recover; recover only a halted wallet.',
  },
  CHAIN_NETWORK_IN_USE: {
    code: 3624,
    status: 409,
    category: 'Chain',
    description: 'The network still has assets or reward wallets; disable it instead of removing it.',
  },
  SIWE_CHALLENGE_INVALID: {
    code: 3610,
    status: 400,
    category: 'Wallet',
    description:
      'The signed message was not issued to this account, was used, expired or does not match; ask for a new challenge.',
  },
  SIWE_SIGNATURE_INVALID: {
    code: 3611,
    status: 400,
    category: 'Wallet',
    description:
      "The signature does not verify for the message's address; sign the challenge with that wallet.",
  },
  NOT_FOUND_USER_WALLET: {
    code: 3612,
    status: 404,
    category: 'Wallet',
    description: 'The account has bound no wallet yet; bind one first.',
  },
  FIRST_SIGN_IN_INVALID: {
    code: 3614,
    status: 400,
    category: 'Admin',
    description:
      'The development first sign-in code is unknown, used or expired, or an operator credential exists already; restart for a new code or sign in with a credential.',
  },
  DEMO_DEVELOPMENT_ONLY: {
    code: 3625,
    status: 403,
    category: 'Admin',
    description:
      'The demo campaign is seeded only by a development service (NODE_ENV is not production); set up a real campaign instead.',
  },
  DEMO_SEED_FAILED: {
    code: 3626,
    status: 409,
    category: 'Admin',
    description:
      'A step of the demo campaign was refused (the message names it; nothing was kept); most often the development chain or its token is not there yet: wait for the service to finish starting.',
  },
  WALLET_CHALLENGES_EXHAUSTED: {
    code: 3613,
    status: 429,
    category: 'Wallet',
    description:
      'The address holds too many unsigned wallet challenges (issued to other accounts); wait for them to expire and ask again.',
  },

  // --- 3700: webhooks (docs/webhooks.md) ---
  NOT_FOUND_WEBHOOK_ENDPOINT: {
    code: 3700,
    status: 404,
    category: 'Webhook',
    description: 'No webhook endpoint has this id; check the id (list the endpoints).',
  },
  WEBHOOK_URL_REFUSED: {
    code: 3701,
    status: 400,
    category: 'Webhook',
    description: 'The endpoint URL is not an absolute public https URL without credentials; send such a URL.',
  },
  NOT_FOUND_WEBHOOK_MESSAGE: {
    code: 3702,
    status: 404,
    category: 'Webhook',
    description: 'No webhook message has this id; check the id (list the messages).',
  },

  // --- 3900: idempotency keys (docs/idempotency.md) ---
  IDEMPOTENCY_KEY_INVALID: {
    code: 3900,
    status: 400,
    category: 'Idempotency',
    description:
      'The Idempotency-Key header is empty, too long, repeated or holds forbidden characters; send one printable ASCII key.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 3901,
    status: 422,
    category: 'Idempotency',
    description:
      'This Idempotency-Key was used in the last 24 hours with another request; use a new key for a new request.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    code: 3902,
    status: 409,
    category: 'Idempotency',
    description:
      'The first request with this Idempotency-Key is still running; retry after Retry-After seconds.',
  },
  IDEMPOTENCY_KEY_NOT_ACCEPTED: {
    code: 3903,
    status: 400,
    category: 'Idempotency',
    description:
      'This operation shows a secret once and takes no Idempotency-Key; send it without the header.',
  },

  // --- 3950: preview and production (docs/environments.md) ---
  API_KEY_WRONG_ENVIRONMENT: {
    code: 3950,
    status: 401,
    category: 'Environment',
    description:
      "The API key belongs to the other environment (mrk_test_ vs mrk_live_); use this deployment's key.",
  },

  // --- 3800: operations endpoints (docs/operations.md, "Metrics and alerts") ---
  METRICS_UNAUTHORIZED: {
    code: 3800,
    status: 401,
    category: 'Operations',
    description: 'GET /metrics needs the bearer METRICS_TOKEN; send the right token.',
  },
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
