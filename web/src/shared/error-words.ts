// Error codes in words: what an operator or user should understand and do, by the catalog's name
// (src/errors.ts, docs/errors.md). The service's own message follows, for the specifics.
import { ApiError } from './api.ts';

const WORDS: Record<string, string> = {
  NETWORK_ERROR: 'The service did not answer.',
  ADMIN_PERMISSION_DENIED: 'Your role does not allow this change.',
  NOT_FOUND_MISSION_GROUP: 'That mission group does not exist.',
  NOT_FOUND_MISSION: 'That mission does not exist.',
  NOT_FOUND_REWARD_ASSET: 'That reward asset does not exist.',
  NOT_SET_REWARD_ASSET_DECIMALS: 'Set the asset’s decimals before it can back a reward.',
  NOT_FOUND_REWARD_BUDGET: 'That budget does not exist.',
  NOT_FOUND_PROMOTION: 'That promotion does not exist.',
  IMMUTABLE_PROMOTION_FIELD: 'This field is locked: the promotion has been active.',
  VALIDATION_FAILED: 'A value is missing or not in the expected form.',
  MALFORMED_JSON: 'The request was not well-formed.',
  PAYLOAD_TOO_LARGE: 'That is more data than the service accepts at once.',
  UNSUPPORTED_MEDIA_TYPE: 'The request was sent in a form the service does not accept.',
  ROUTE_NOT_FOUND: 'This service does not offer that yet.',
  RATE_LIMITED: 'Too many requests; wait a moment and retry.',
  INVALID_CHARACTER: 'A value holds a character the service cannot store (a NUL byte or broken text).',
  MALFORMED_URL: 'The address of the request is malformed.',
  URI_TOO_LONG: 'The address of the request is too long.',
  HEADERS_TOO_LARGE: 'The request headers are too large.',
  REQUEST_TIMEOUT: 'The request took too long to arrive; retry.',
  MALFORMED_REQUEST: 'The request was not well-formed HTTP.',
  UNSTORABLE_VALUE: 'A value is out of range or too long to store.',
  EXPECTATION_FAILED: 'The request asked for something the service does not do (Expect header).',
  SERVICE_UNAVAILABLE: 'The service is busy or its database is unreachable; retry shortly.',
  INTERNAL_ERROR: 'Something broke on the service. Quote the request id when reporting it.',
  PARTNER_UNAUTHORIZED: 'The partner credentials were not accepted.',
  IP_NOT_ALLOWED: 'The calling address is not on the partner’s allow-list.',
  NOT_FOUND_PARTNER: 'That partner does not exist.',
  NOT_FOUND_API_KEY: 'That API key does not exist.',
  PARTNER_DISABLED: 'The partner is disabled.',
  ADMIN_UNAUTHORIZED: 'The admin secret was not accepted (unknown or revoked). Sign in again.',
  NOT_FOUND_ADMIN_CREDENTIAL: 'That admin credential does not exist.',
  LAST_OWNER: 'The last owner credential cannot be revoked.',
  CROSS_SITE_REQUEST:
    'This change must come from the reward platform’s own pages. Reload the page and retry.',
  NOT_FOUND_CHAIN_NETWORK: 'That chain network does not exist.',
  CHAIN_ID_MISMATCH: 'The RPC endpoint serves another chain than the chain id given.',
  CHAIN_RPC_UNAVAILABLE: 'The chain’s RPC endpoint did not answer; retry shortly.',
  NOT_A_CHAIN_BUDGET: 'This budget’s asset is not on a chain, so it has no wallet.',
  REWARD_WALLET_EXISTS: 'This budget already has a wallet, or that key is in use by another budget.',
  INVALID_PRIVATE_KEY: 'That is not a valid private key (0x and 64 hex digits).',
  NOT_FOUND_REWARD_WALLET: 'This budget has no reward wallet yet.',
  NOT_A_TOKEN_CONTRACT: 'There is no contract at that token address on this network.',
  SIWE_CHALLENGE_INVALID: 'That signing request is used, expired or not yours. Start again.',
  SIWE_SIGNATURE_INVALID: 'The signature does not match the wallet address.',
  NOT_FOUND_USER_WALLET: 'No wallet is bound to this account yet.',
  NOT_FOUND_WEBHOOK_ENDPOINT: 'That webhook endpoint does not exist.',
  WEBHOOK_URL_REFUSED: 'Webhook URLs must be public https addresses.',
  NOT_FOUND_WEBHOOK_MESSAGE: 'That webhook message does not exist.',
  NOT_A_DEV_CHAIN_WALLET: 'The dev faucet funds only wallets on the embedded development chain.',
  METRICS_UNAUTHORIZED: 'The metrics need the operations bearer token.',
  USER_UNAUTHORIZED: 'You are signed out. Sign in to see your missions.',
  DUPLICATE_MISSION_KEY: 'The partner already has a mission with this key; choose another.',
  PROMOTION_NOT_ACTIVE: 'The promotion is not active.',
  PROMOTION_NOT_IN_PERIOD: 'The promotion has not started or has ended.',
  INVALID_MISSION_COMPLETION: 'The completion did not reach the mission’s target.',
  INVALID_TIMEZONE: 'That is not a time zone name (use one like Asia/Seoul).',
  CONFLICT: 'Someone changed this at the same moment; reload and retry.',
  INVALID_REDIRECT_URL: 'That redirect URL is not allowed.',
  LOGIN_PARTNER_INVALID: 'That partner is unknown or disabled, so its login cannot start.',
  INVALID_BROWSER_TYPE: 'The browser type must be MINI, LIFF or WEB.',
  LOGIN_STATE_INVALID: 'The login expired or was already used; start it again.',
  ID_TOKEN_INVALID: 'The login provider’s proof of identity was not accepted.',
  LOGIN_PROVIDER_UNAVAILABLE: 'The login provider cannot be reached; retry shortly.',
  LIFF_NOT_CONFIGURED: 'This service has no LINE LIFF app configured.',
  INVALID_RETURN_PATH: 'That return address is not a page of this service.',
  MAPPING_TOKEN_INVALID: 'The link token is not one this service issued.',
  MAPPING_TOKEN_EXPIRED: 'The link token expired; log in again for a new one.',
  MAPPING_TOKEN_USED: 'The link token was already used; log in again for a new one.',
  MAPPING_TOKEN_WRONG_PARTNER: 'The link token belongs to another partner’s login.',
  INVALID_REGION: 'The region must be a two-letter country code, such as KR or JP.',
  PARTNER_USER_LINKED_ELSEWHERE: 'That partner user is already linked to another account.',
  ACCOUNT_LINKED_ELSEWHERE: 'The account is already linked to another user of this partner.',
  NOT_FOUND_MAPPING: 'That user is not linked.',
  INVALID_AMOUNT: 'The amount is not a positive number with at most the asset’s decimals.',
  BUDGET_TYPE_MISMATCH: 'The budget’s type does not match the reward type.',
  ILLEGAL_CLAIM_TRANSITION: 'The claim cannot move to that status from where it is.',
  NOT_FOUND_CLAIM: 'That claim does not exist.',
  DECIMALS_ALREADY_SET: 'The asset’s decimals are set already and cannot change.',
  NOT_FOUND_REWARD_RULE: 'There is no reward to remove.',
  NOT_FOUND_DRAW: 'That lucky draw does not exist.',
  DRAW_ALREADY_DRAWN: 'The draw has already run; its winners are final.',
  IDEMPOTENCY_KEY_INVALID: 'The Idempotency-Key header is not a valid key (1–255 printable characters).',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used for a different request; use a new key.',
  IDEMPOTENCY_KEY_IN_USE: 'The same request is still being processed; wait a moment and retry.',
  IDEMPOTENCY_KEY_NOT_ACCEPTED:
    'This operation cannot be repeated safely with an Idempotency-Key; send it without one.',
  API_KEY_WRONG_ENVIRONMENT:
    'The API key belongs to the other environment (a preview key sent to production, or the reverse).',
};

/** The error names that have words (a test checks the whole catalog is covered). */
export const ERROR_NAMES_IN_WORDS: readonly string[] = Object.keys(WORDS);

export interface ErrorDescription {
  /** The error in words; unknown codes fall back to the service's message. */
  summary: string;
  /** e.g. "Error 2102 IMMUTABLE_PROMOTION_FIELD" */
  reference: string;
  /** The service's own message, with the specifics. */
  detail: string;
}

export function describeError(error: unknown): ErrorDescription {
  if (error instanceof ApiError) {
    const field = error.field ? ` (${error.field})` : '';
    return {
      summary: WORDS[error.errorName] ?? error.message,
      reference: error.code === 0 ? 'No answer' : `Error ${error.code} ${error.errorName}`,
      detail: `${error.message}${field}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { summary: 'Something went wrong in this page.', reference: 'Page error', detail: message };
}
