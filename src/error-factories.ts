// The error factories: one function per situation, each giving the AppError of the catalog
// (errors.ts) with its one wording. Code throws these, never new AppError() directly
// (eslint.config.js enforces it), so the same situation reads the same wherever it is met. A
// factory whose situation wraps another error (database, RPC, OIDC) takes `{ cause }` and keeps it.
import { AppError } from './errors.ts';
import type { ErrorName } from './errors.ts';

/** What a factory may carry besides its wording: the error it wraps. */
export interface Because {
  cause?: unknown;
}

function make(name: ErrorName, message: string, because?: Because, details?: Record<string, unknown>) {
  return new AppError(name, message, { cause: because?.cause, details });
}

/** The first line of a wrapped error's message, short enough for an answer. */
function firstLine(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

// --- The request itself (3000-3099) ---

export const validationFailed = (message: string, field?: string, because?: Because) =>
  make('VALIDATION_FAILED', message, because, field === undefined ? undefined : { field });
export const malformedJson = (because?: Because) =>
  make('MALFORMED_JSON', 'the body is not valid JSON', because);
export const emptyJsonBody = (because?: Because) =>
  make('MALFORMED_JSON', 'the body is empty but the content type is application/json', because);
export const payloadTooLarge = (because?: Because) =>
  make('PAYLOAD_TOO_LARGE', 'request body is larger than the service accepts', because);
export const unsupportedMediaType = (because?: Because) =>
  make('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', because);
export const routeNotFound = (method: string, path: string) =>
  make('ROUTE_NOT_FOUND', `no route ${method} ${path.split('?')[0]}`);
export const notAProxy = () => make('ROUTE_NOT_FOUND', 'this service is not a proxy: no route CONNECT');
export const tooManyRequests = (because?: Because) =>
  make('RATE_LIMITED', 'too many requests; slow down and retry', because);
export const rateLimited = (what: string, retryInSeconds: number) =>
  make('RATE_LIMITED', `too many ${what}; retry in ${retryInSeconds} s`);
export const invalidCharacter = (where: string, why: string) =>
  make('INVALID_CHARACTER', `${where} ${why}`, undefined, { field: where });
export const bodyNotUtf8 = () =>
  make('INVALID_CHARACTER', 'the body is not valid UTF-8', undefined, { field: 'body' });
export const malformedUrl = (because?: Because) =>
  make('MALFORMED_URL', 'the URL path has a malformed percent-encoding', because);
export const urlTooLong = (maxLength: number, because?: Because) =>
  make('URI_TOO_LONG', `the URL is longer than ${maxLength} characters`, because);
export const pathSegmentTooLong = (because?: Because) =>
  make('URI_TOO_LONG', 'a path segment of the URL is too long', because);
export const headersTooLarge = (because?: Because) =>
  make('HEADERS_TOO_LARGE', 'the request headers are larger than the service accepts', because);
export const requestTimeout = (because?: Because) =>
  make('REQUEST_TIMEOUT', 'the request did not arrive in time', because);
export const malformedHttp = (because?: Because) =>
  make('MALFORMED_REQUEST', 'the request is not well-formed HTTP/1.1', because);
export const hostHeaderMissing = () => make('MALFORMED_REQUEST', 'an HTTP/1.1 request needs a Host header');
export const unreadableRequest = (because?: Because) =>
  make('MALFORMED_REQUEST', 'the request could not be read', because);
export const unstorableValue = (because?: Because) =>
  make(
    'UNSTORABLE_VALUE',
    'a value in the request cannot be stored (malformed, out of range or too long)',
    because,
  );
export const expectationFailed = () =>
  make('EXPECTATION_FAILED', 'only the expectation 100-continue is supported');
export const serviceBusy = (because?: Because) =>
  make('SERVICE_UNAVAILABLE', 'the service is busy; retry the request', because);
export const serviceOverloaded = (reason?: string) =>
  make(
    'SERVICE_UNAVAILABLE',
    `the service is overloaded${reason === undefined ? '' : ` (${reason})`}; retry the request shortly`,
  );
export const shuttingDown = () =>
  make('SERVICE_UNAVAILABLE', 'the service is shutting down; retry the request');
export const serviceStarting = (reason: string) =>
  make('SERVICE_UNAVAILABLE', `the service is starting (${reason}); retry the request`);
export const serviceNotReady = (reason: string) => make('SERVICE_UNAVAILABLE', `not ready: ${reason}`);
export const internalError = (because?: Because) => make('INTERNAL_ERROR', 'internal error', because);

// --- Partner credentials and partners (3100) ---

export const partnerCredentialsMissing = () =>
  make('PARTNER_UNAUTHORIZED', 'send the X-Partner-Id and X-Api-Key headers');
export const partnerCredentialsInvalid = () => make('PARTNER_UNAUTHORIZED', 'invalid partner id or API key');
export const ipNotAllowed = (ip: string) =>
  make('IP_NOT_ALLOWED', `address ${ip} is not in this partner's allow-list for achieve`);
export const partnerNotFound = (partnerId: string, field?: string) =>
  make(
    'NOT_FOUND_PARTNER',
    `no partner '${partnerId}'`,
    undefined,
    field === undefined ? undefined : { field },
  );
export const apiKeyNotFound = (partnerId: string, keyId: string) =>
  make('NOT_FOUND_API_KEY', `partner '${partnerId}' has no API key '${keyId}'`);
export const partnerDisabled = (partnerId: string) =>
  make('PARTNER_DISABLED', `partner '${partnerId}' is disabled`);
export const invalidAllowedIp = (entry: string) =>
  make('VALIDATION_FAILED', `allowedIps: '${entry}' is not an IP address or CIDR`, undefined, {
    field: 'allowedIps',
  });
export const invalidRedirectUrlEntry = (entry: string) =>
  make(
    'VALIDATION_FAILED',
    `redirectUrls: '${entry}' must be an absolute http(s) URL without query, fragment or credentials`,
    undefined,
    { field: 'redirectUrls' },
  );
export const ticketsNotReceivedNeedsUser = () =>
  make('VALIDATION_FAILED', 'filter=NOT_RECEIVED is per user: give partnerId and partnerUid', undefined, {
    field: 'querystring.partnerUid',
  });
/** `why` says which environment the key belongs to and which one it reached. */
export const apiKeyWrongEnvironment = (why: string) => make('API_KEY_WRONG_ENVIRONMENT', why);

// --- Operators and end users (901, 3200) ---

export const adminCredentialsMissing = () =>
  make('ADMIN_UNAUTHORIZED', 'send Authorization: Bearer <admin secret>');
export const adminCredentialInvalid = () => make('ADMIN_UNAUTHORIZED', 'invalid or revoked admin credential');
export const adminPermissionDenied = (required: string, held: string) =>
  make('ADMIN_PERMISSION_DENIED', `this needs the ${required} role; your credential is ${held}`);
export const adminCredentialNotFound = (id: string) =>
  make('NOT_FOUND_ADMIN_CREDENTIAL', `no admin credential '${id}'`);
export const lastOwner = () =>
  make('LAST_OWNER', 'the last OWNER credential cannot be revoked; create another OWNER first');
export const userUnauthorized = () => make('USER_UNAUTHORIZED', 'sign in to the reward platform first');
export const crossSiteRequest = (ourOrigin: string) =>
  make('CROSS_SITE_REQUEST', `this request must come from a page of ${ourOrigin}`);
export const metricsUnauthorized = () =>
  make('METRICS_UNAUTHORIZED', 'send Authorization: Bearer <metrics token>');

// --- Catalog and progress (1101, 1201, 2101, 2102, 3300) ---

export const promotionNotFound = (id: string) => make('NOT_FOUND_PROMOTION', `no promotion '${id}'`);
export const missionGroupNotFound = (id: string) =>
  make('NOT_FOUND_MISSION_GROUP', `no mission group '${id}'`);
export const missionNotFound = (id: string) => make('NOT_FOUND_MISSION', `no mission '${id}'`);
/** A partner reported a mission key its catalog does not have. */
export const missionKeyNotFound = (missionKey: string) =>
  make('NOT_FOUND_MISSION', `no mission '${missionKey}' for this partner`);
export const missionGroupGone = (missionKey: string) =>
  make('NOT_FOUND_MISSION_GROUP', `the group of mission '${missionKey}' no longer exists`);
export const missionPromotionGone = (missionKey: string) =>
  make('NOT_FOUND_PROMOTION', `the promotion of mission '${missionKey}' no longer exists`);
export const immutablePromotionField = (field: string) =>
  make('IMMUTABLE_PROMOTION_FIELD', `${field} cannot change once the promotion has been ACTIVE`, undefined, {
    field,
  });
export const invalidTimezone = (timezone: string) =>
  make('INVALID_TIMEZONE', `'${timezone}' is not an IANA time zone (for example Asia/Seoul)`, undefined, {
    field: 'timezone',
  });
export const endBeforeStart = () =>
  make('VALIDATION_FAILED', 'endAt must be after startAt', undefined, { field: 'endAt' });
export const duplicateMissionKey = (missionKey: string, because?: Because) =>
  make('DUPLICATE_MISSION_KEY', `this partner already has a mission '${missionKey}'`, because, {
    field: 'missionKey',
  });
export const promotionNotActive = (missionKey: string) =>
  make('PROMOTION_NOT_ACTIVE', `the promotion of mission '${missionKey}' is not ACTIVE`);
/** `from` and `until` are ISO instants; `until` is undefined for an open end. */
export const promotionNotInPeriod = (missionKey: string, from: string, until: string | undefined) =>
  make(
    'PROMOTION_NOT_IN_PERIOD',
    `the promotion of mission '${missionKey}' runs from ${from} to ${until ?? 'open end'}`,
  );
export const missionNotReached = (missionKey: string, target: number, current: number | null) =>
  make(
    'INVALID_MISSION_COMPLETION',
    `mission '${missionKey}' needs metadata.current >= ${target} to complete; got ${current ?? 'none'}`,
  );
export const conflictWithStored = (because?: Because) =>
  make('CONFLICT', 'the request conflicts with what is stored; reload and retry', because);

// --- Login and linking (3400) ---

export const invalidBrowserType = (raw: string) =>
  make(
    'INVALID_BROWSER_TYPE',
    `browserType must be MINI, LIFF or WEB (or empty for WEB), got '${raw.slice(0, 32)}'`,
  );
export const loginPartnerInvalid = (partnerId: string) =>
  make('LOGIN_PARTNER_INVALID', `partner '${partnerId.slice(0, 64)}' does not exist or is disabled`);
export const redirectUrlNotRegistered = () =>
  make('INVALID_REDIRECT_URL', 'redirectUrl is not one of the redirect URLs registered for this partner');
export const invalidReturnPath = () =>
  make('INVALID_RETURN_PATH', 'returnTo must be a page of this service under /app, such as /app');
export const loginStateUnknown = () =>
  make('LOGIN_STATE_INVALID', 'this login is unknown or was already used; start again from the app');
export const loginStateExpired = () =>
  make('LOGIN_STATE_INVALID', 'this login took too long; start again from the app');
export const loginInOtherBrowser = () =>
  make('LOGIN_STATE_INVALID', 'this login was started in another browser; start again from the app');
export const loginNotForLiff = () =>
  make('LOGIN_STATE_INVALID', 'this login was not started for the LINE app; start again from the app');
export const liffNotConfigured = () =>
  make('LIFF_NOT_CONFIGURED', 'this service has no LIFF app (LOGIN_LIFF_ID)');
export const loginProviderUnavailable = (because?: Because) =>
  make('LOGIN_PROVIDER_UNAVAILABLE', 'the login provider cannot be reached; try again shortly', because);
/** The provider's library refused the token; its reason is kept as the cause and in the message. */
export const idTokenRefused = (because: Because) =>
  make('ID_TOKEN_INVALID', `the ID token is not valid: ${firstLine(because.cause)}`, because);
export const idTokenWrongNonce = () =>
  make('ID_TOKEN_INVALID', 'the ID token was issued for another login (nonce)');
export const idTokenWithoutSubject = () => make('ID_TOKEN_INVALID', 'the ID token has no usable subject');
export const invalidRegion = (region: string) =>
  make(
    'INVALID_REGION',
    `region must be an ISO 3166-1 alpha-2 country code such as KR, JP or TW; got '${region.slice(0, 16)}'`,
  );
export const mappingTokenUnknown = () =>
  make('MAPPING_TOKEN_INVALID', 'the mapping token is not one this service issued');
export const mappingTokenWrongPartner = () =>
  make('MAPPING_TOKEN_WRONG_PARTNER', 'the mapping token was issued for another partner');
export const mappingTokenUsed = () =>
  make('MAPPING_TOKEN_USED', 'the mapping token was already used; log in again for a new one');
export const mappingTokenExpired = () =>
  make('MAPPING_TOKEN_EXPIRED', 'the mapping token has expired; log in again for a new one');
export const partnerUserLinkedElsewhere = (partnerUid: string) =>
  make(
    'PARTNER_USER_LINKED_ELSEWHERE',
    `partner user '${partnerUid}' is already linked to another platform account`,
  );
export const accountLinkedElsewhere = () =>
  make('ACCOUNT_LINKED_ELSEWHERE', 'this platform account is already linked to another user of this partner');
export const mappingNotFound = (partnerUid: string) =>
  make('NOT_FOUND_MAPPING', `partner user '${partnerUid}' is not linked`);

// --- Reward assets, budgets, rules, claims and draws (1401, 1402, 1902, 3500) ---

export const rewardAssetNotFound = (id: string) => make('NOT_FOUND_REWARD_ASSET', `no reward asset '${id}'`);
export const decimalsNotSet = (assetId: string) =>
  make('NOT_SET_REWARD_ASSET_DECIMALS', `reward asset '${assetId}' has no decimals set`);
export const decimalsAlreadySet = (assetId: string, decimals: number) =>
  make('DECIMALS_ALREADY_SET', `asset '${assetId}' already has ${decimals} decimals; they cannot change`);
export const budgetNotFound = (id: string) => make('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`);
/** `why` is what is wrong with the amount in `field`; a parse error is kept as the cause. */
export const invalidAmount = (field: string, why: string, because?: Because) =>
  make('INVALID_AMOUNT', `${field}: ${why}`, because, { field });
/** `what` names who needs the budget: "a draw", "a FIXED reward", "items.2: a streak reward". */
export const budgetTypeMismatch = (what: string, needed: string, budgetId: string, budgetType: string) =>
  make('BUDGET_TYPE_MISMATCH', `${what} needs a ${needed} budget; budget '${budgetId}' is ${budgetType}`);
export const groupRewardNeedsComposite = () =>
  make('VALIDATION_FAILED', 'group rewards belong to COMPOSITE promotions', undefined, { field: 'groupId' });
export const streakRewardsNeedDailyCheck = () =>
  make('VALIDATION_FAILED', 'streak rewards belong to DAILY_CHECK promotions', undefined, {
    field: 'promotionId',
  });
export const duplicateStreakLength = () =>
  make('VALIDATION_FAILED', 'each streak length may appear once', undefined, { field: 'items' });
export const rewardRuleNotFound = () => make('NOT_FOUND_REWARD_RULE', 'no reward is set there');
export const claimNotFound = (id: string) => make('NOT_FOUND_CLAIM', `no claim '${id}'`);
export const illegalClaimTransition = (from: string, to: string) =>
  make('ILLEGAL_CLAIM_TRANSITION', `a ${from} claim cannot become ${to}`);
export const claimAwaitsLink = () =>
  make('ILLEGAL_CLAIM_TRANSITION', 'the user is not linked yet; the claim is requested when they link');
export const drawNotFound = (id: string) => make('NOT_FOUND_DRAW', `no draw '${id}'`);
/** `drawnAt` is the ISO instant the draw ran. */
export const drawAlreadyDrawn = (id: string, drawnAt: string | undefined) =>
  make('DRAW_ALREADY_DRAWN', `draw '${id}' ran at ${drawnAt}`);
export const drawNotDue = (id: string, scheduledAt: string) =>
  make('DRAW_NOT_DUE', `draw '${id}' is scheduled at ${scheduledAt} and cannot run before`);
export const drawClosesInPast = (closesAt: string, now: string) =>
  make('DRAW_CLOSES_IN_PAST', `closesAt ${closesAt} is before now (${now})`);
export const drawRunsBeforeClose = (scheduledAt: string, closesAt: string) =>
  make('DRAW_RUNS_BEFORE_CLOSE', `scheduledAt ${scheduledAt} is before closesAt ${closesAt}`);
/** `what`: which block is awaited and why, e.g. "no block of chain 1001 after 2026-…Z yet". */
export const drawWaitingForBlock = (id: string, what: string) =>
  make('DRAW_WAITING_FOR_BLOCK', `draw '${id}' waits for its block: ${what}`);
/** `why` is rpcFailure's words (never the endpoint's reply). */
export const drawChainUnavailable = (id: string, chainId: number, why: string) =>
  make(
    'DRAW_CHAIN_UNAVAILABLE',
    `draw '${id}' needs a block hash of chain ${chainId}, whose RPC endpoint did not answer (${why})`,
  );
export const payoutAddressTaken = () =>
  make('PAYOUT_ADDRESS_TAKEN', 'another account has bound this payout address; bind a wallet of your own');
export const drawEarlierPending = (id: string, earlierId: string) =>
  make(
    'DRAW_EARLIER_PENDING',
    `draw '${earlierId}' of the same budget is scheduled before '${id}' and has not run`,
  );

// --- Chain payouts and wallets (3600) ---

export const chainNetworkNotFound = (id: string) =>
  make('NOT_FOUND_CHAIN_NETWORK', `no chain network '${id}'`);
export const noChainNetworkConfigured = () =>
  make('NOT_FOUND_CHAIN_NETWORK', 'no chain network is configured');
export const chainNetworkNotFoundForChainId = (chainId: number) =>
  make('NOT_FOUND_CHAIN_NETWORK', `no chain network with chain id ${chainId}`);
export const chainIdMismatch = (answered: number, expected: number) =>
  make('CHAIN_ID_MISMATCH', `the RPC endpoint serves chain ${answered}, not ${expected}`);
/** `what` was being done (or which chain was asked); the RPC error is the cause. */
export const chainRpcUnavailable = (what: string, because: Because) =>
  make(
    'CHAIN_RPC_UNAVAILABLE',
    `${what}: the RPC endpoint did not answer (${firstLine(because.cause)})`,
    because,
  );
export const notAChainBudget = (budgetId: string) =>
  make('NOT_A_CHAIN_BUDGET', `budget ${budgetId} pays an asset that is not on a chain`);
export const rewardWalletExists = (budgetId: string) =>
  make('REWARD_WALLET_EXISTS', `budget ${budgetId} already has a reward wallet`);
export const rewardKeyTaken = (because?: Because) =>
  make(
    'REWARD_WALLET_EXISTS',
    'this key already backs another budget (or the budget got a wallet meanwhile)',
    because,
  );
export const invalidPrivateKey = (because?: Because) =>
  make('INVALID_PRIVATE_KEY', 'privateKey must be 0x and 64 hex digits of a valid secp256k1 key', because);
export const rewardWalletNotFound = (budgetId: string) =>
  make('NOT_FOUND_REWARD_WALLET', `budget ${budgetId} has no reward wallet`);
export const notATokenContract = (token: string, networkName: string) =>
  make('NOT_A_TOKEN_CONTRACT', `no contract at ${token} on ${networkName}`);
export const unsupportedToken = (token: string, networkName: string, why: string) =>
  make('UNSUPPORTED_TOKEN', `the token ${token} on ${networkName} is not supported: ${why}`);
export const chainRpcUrlRefused = (field: string, why: string) =>
  make('CHAIN_RPC_URL_REFUSED', `${field} ${why}`);
export const rewardWalletRunning = (walletId: string) =>
  make(
    'REWARD_WALLET_RUNNING',
    `reward wallet ${walletId} is not halted, or the chain still has its transfers`,
  );
export const unrecoverableNonce = (walletId: string, nonce: number, status: string) =>
  make(
    'REWARD_WALLET_RUNNING',
    `reward wallet ${walletId}: the chain lost nonce ${nonce}, a ${status} payout; fill that nonce on chain first (docs/operations.md)`,
  );
export const chainNetworkInUse = (networkId: string) =>
  make('CHAIN_NETWORK_IN_USE', `network ${networkId} still has assets or reward wallets: disable it instead`);
export const notADevChainWallet = (budgetId: string) =>
  make('NOT_A_DEV_CHAIN_WALLET', `the reward wallet of budget ${budgetId} is not on the development chain`);
export const notAnEvmAddress = (value: string) =>
  make('VALIDATION_FAILED', `'${value}' is not an EVM address`);
/** `why` says which check of the EIP-4361 challenge failed. */
export const siweChallengeInvalid = (why: string, because?: Because) =>
  make('SIWE_CHALLENGE_INVALID', why, because);
export const siweSignatureInvalid = (because?: Because) =>
  make('SIWE_SIGNATURE_INVALID', 'the signature does not verify for the address of the message', because);
/** A contract wallet's signature could not be checked: the network did not answer (not a bad signature). */
export const contractWalletUnverifiable = (because: Because) =>
  make(
    'CHAIN_RPC_UNAVAILABLE',
    'this is a contract wallet and the network did not answer whether it accepts the signature; try again shortly',
    because,
  );
export const firstSignInInvalid = (why: string) => make('FIRST_SIGN_IN_INVALID', why);
export const demoDevelopmentOnly = () =>
  make(
    'DEMO_DEVELOPMENT_ONLY',
    'the demo campaign is seeded only by a development service, not in production',
  );
export const demoSeedFailed = (why: string) => make('DEMO_SEED_FAILED', why);
export const walletChallengesExhausted = () =>
  make(
    'WALLET_CHALLENGES_EXHAUSTED',
    'this address has too many wallet challenges waiting for a signature; try again in a few minutes',
  );
export const userWalletNotFound = () =>
  make('NOT_FOUND_USER_WALLET', 'no wallet is bound to your account yet');

// --- Webhooks (3700) ---

/** `problem` completes "the endpoint URL ...", e.g. "resolves to a private address". */
export const webhookUrlRefused = (problem: string) =>
  make('WEBHOOK_URL_REFUSED', `the endpoint URL ${problem}`);
export const webhookEndpointNotFound = (id: string) =>
  make('NOT_FOUND_WEBHOOK_ENDPOINT', `no webhook endpoint '${id}'`);
export const webhookMessageNotFound = (id: string) =>
  make('NOT_FOUND_WEBHOOK_MESSAGE', `no webhook message '${id}'`);

// --- Idempotency keys (3900) ---

/** `problem` says what is wrong with the header's value. */
export const idempotencyKeyInvalid = (problem: string) => make('IDEMPOTENCY_KEY_INVALID', problem);
export const idempotencyKeyReused = () =>
  make(
    'IDEMPOTENCY_KEY_REUSED',
    'this Idempotency-Key was used with another request (method, path or body) in the last 24 hours; ' +
      'use a new key',
  );
export const idempotencyKeyInUse = () =>
  make(
    'IDEMPOTENCY_KEY_IN_USE',
    'a request with this Idempotency-Key is still running; retry once it has answered',
  );
export const idempotencyKeyNotAccepted = () =>
  make(
    'IDEMPOTENCY_KEY_NOT_ACCEPTED',
    'this operation does not take an Idempotency-Key: its answer holds a secret shown once, ' +
      'which is never stored for a replay',
  );
