// Table types for Kysely: every table of the migrations, one interface each, joined in the one DB type.
// Keep in step with src/db/migrations/*.sql: a column added there is added here in the same commit.
import type { ColumnType, Generated } from 'kysely';
import type { JsonText, NullableNumeric, NullableTimestamp, Numeric, Timestamp } from './columns.ts';

/** A title per language (jsonb); keys are the languages of docs/i18n.md. */
export type Titles = Partial<Record<'en' | 'ko' | 'ja' | 'zh-TW' | 'th', string>>;
/** Written as a JSON string (so pg and PGlite both send it as jsonb text), read back as an object. */
type TitlesColumn = ColumnType<Titles, string | undefined, string>;

export interface PartnersTable {
  id: string;
  name: string;
  status: Generated<'ACTIVE' | 'DISABLED'>;
  allowed_ips: Generated<string[]>;
  redirect_urls: Generated<string[]>;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface PartnerApiKeysTable {
  id: string;
  partner_id: string;
  key_hash: string;
  key_prefix: string;
  name: string | null;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

export type AdminRole = 'OWNER' | 'OPERATOR' | 'VIEWER';

export interface AdminCredentialsTable {
  id: string;
  name: string;
  role: AdminRole;
  secret_hash: string;
  secret_prefix: string;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

export type PromotionType = 'COMPOSITE' | 'DAILY_CHECK';
export type PromotionStatus = 'ACTIVE' | 'INACTIVE';
export type RecurrenceType = 'ONE_TIME' | 'DAILY' | 'WEEKLY' | 'MONTHLY';

export interface PromotionsTable {
  id: string;
  partner_id: string;
  type: PromotionType;
  title: string;
  /** Per-language titles (docs/i18n.md); `title` is the fallback. */
  titles: TitlesColumn;
  timezone: string;
  start_at: Timestamp;
  end_at: NullableTimestamp;
  status: Generated<PromotionStatus>;
  activated_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface MissionGroupsTable {
  id: string;
  partner_id: string;
  promotion_id: string;
  title: string;
  titles: TitlesColumn;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface MissionsTable {
  id: string;
  partner_id: string;
  mission_group_id: string;
  mission_key: string;
  title: string;
  titles: TitlesColumn;
  recurrence: RecurrenceType;
  target: number | null;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface PlatformAccountsTable {
  id: string;
  issuer: string;
  subject: string;
  display_name: string | null;
  created_at: Generated<Date>;
}

export interface UserMappingsTable {
  partner_id: string;
  partner_uid: string;
  account_id: string;
  region: string;
  created_at: Generated<Date>;
}

export interface LoginStatesTable {
  state_hash: string;
  purpose: 'LINK' | 'SESSION';
  partner_id: string | null;
  return_to: string;
  browser_type: 'MINI' | 'LIFF' | 'WEB';
  code_verifier: string;
  nonce: string;
  binding_hash: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface MappingTokensTable {
  token_hash: string;
  partner_id: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: NullableTimestamp;
  consumed_uid: string | null;
}

export interface RewardAssetsTable {
  id: string;
  type: Generated<'FT'>;
  symbol: string;
  name: string;
  decimals: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BudgetsTable {
  id: string;
  type: 'FIXED' | 'LUCKY_DRAW';
  asset_id: string;
  name: string;
  total: Numeric;
  stripes: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BudgetStripesTable {
  budget_id: string;
  /** The partner whose completions take from the stripe; '' for the budget's pool (migration 0041). */
  partner_id: Generated<string>;
  stripe: number;
  remaining: Numeric;
}

export interface RewardRulesTable {
  id: string;
  mission_id: string | null;
  mission_group_id: string | null;
  type: 'FIXED' | 'LUCKY_DRAW';
  budget_id: string;
  amount: NullableNumeric;
  created_at: Timestamp;
}

export interface ClaimsTable {
  id: string;
  budget_id: string;
  asset_id: string;
  partner_id: string;
  partner_uid: string;
  account_id: string | null;
  promotion_id: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  source_id: string;
  period_key: string;
  amount: Numeric;
  status: 'RESERVED' | 'REQUESTED' | 'REJECTED' | 'SUCCEEDED' | 'FAILED';
  reason: string | null;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_before_link: NullableTimestamp;
  /** W3C traceparent of the request that created the claim (migration 0012; tracing on only). */
  trace_context: string | null;
}

export interface ClaimEventsTable {
  id: Generated<number>;
  partner_id: string;
  claim_id: string;
  from_status: string | null;
  to_status: string;
  reason: string | null;
  at: Timestamp;
}

export interface DrawsTable {
  id: string;
  budget_id: string;
  title: string;
  prize_amount: Numeric;
  winners_count: number;
  scheduled_at: Timestamp;
  /** When the ticket set closes, fixed at creation (migration 0033): at or before scheduled_at. */
  closes_at: Timestamp;
  status: 'COMMITTED' | 'DRAWN';
  commitment: string;
  /** Null until the draw runs: the secret seed waits in draw_seeds (migration 0017). */
  seed: string | null;
  ticket_count: number | null;
  created_at: Timestamp;
  drawn_at: NullableTimestamp;
  /** The chain whose block after closes_at is mixed into the seed (null: a ledger draw). */
  beacon_network_id: ColumnType<string | null, string | null | undefined, string | null>;
  beacon_chain_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** bigint: read as a string (pg) or a number (PGlite). */
  beacon_block_number: ColumnType<string | number | null, string | null | undefined, string | null>;
  beacon_block_hash: ColumnType<string | null, string | null | undefined, string | null>;
  titles: TitlesColumn;
}

/** A draw's secret seed until it runs: no trigger, answer, log or metric reads this table. */
export interface DrawSeedsTable {
  draw_id: string;
  seed: string;
}

export interface TicketsTable {
  id: string;
  partner_id: string;
  partner_uid: string;
  mission_id: string;
  budget_id: string;
  period_key: string;
  status: 'RECEIVED' | 'DRAWN';
  /** The account the ticket's partner user was linked to when it was issued (migration 0018). */
  account_id: Generated<string | null>;
  draw_id: string | null;
  won: boolean | null;
  created_at: Timestamp;
}

export interface LedgerTransfersTable {
  id: string;
  partner_id: string;
  claim_id: string;
  asset_id: string;
  amount: Numeric;
  created_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  partner_id: string;
  transfer_id: string;
  account: string;
  asset_id: string;
  amount: Numeric;
}

export interface UserStreaksTable {
  partner_id: string;
  partner_uid: string;
  promotion_id: string;
  current: number;
  best: number;
  last_date: string;
}

export interface StreakRewardsTable {
  promotion_id: string;
  days: number;
  budget_id: string;
  amount: Numeric;
}

export interface MissionProgressTable {
  partner_id: string;
  partner_uid: string;
  mission_id: string;
  period_key: string;
  completed: boolean;
  target: number | null;
  current: number | null;
  completed_at: NullableTimestamp;
  completed_by: string | null;
  report_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A signed-in browser (0006); the cookie's session id is stored as its SHA-256 only. */
export interface UserSessionsTable {
  id_hash: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SchemaMigrationsTable {
  version: string;
  applied_at: Generated<Date>;
}

export interface DB {
  partners: PartnersTable;
  partner_api_keys: PartnerApiKeysTable;
  admin_credentials: AdminCredentialsTable;
  promotions: PromotionsTable;
  mission_groups: MissionGroupsTable;
  missions: MissionsTable;
  platform_accounts: PlatformAccountsTable;
  user_mappings: UserMappingsTable;
  mission_progress: MissionProgressTable;
  login_states: LoginStatesTable;
  mapping_tokens: MappingTokensTable;
  user_sessions: UserSessionsTable;
  reward_assets: RewardAssetsTable;
  budgets: BudgetsTable;
  budget_stripes: BudgetStripesTable;
  reward_rules: RewardRulesTable;
  claims: ClaimsTable;
  claim_events: ClaimEventsTable;
  draws: DrawsTable;
  draw_seeds: DrawSeedsTable;
  tickets: TicketsTable;
  ledger_transfers: LedgerTransfersTable;
  ledger_entries: LedgerEntriesTable;
  user_streaks: UserStreaksTable;
  streak_rewards: StreakRewardsTable;
  schema_migrations: SchemaMigrationsTable;
  deferred_rewards: DeferredRewardsTable;
  budget_caps: BudgetCapsTable;
  cap_usage: CapUsageTable;
  completion_rates: CompletionRatesTable;
  completion_alarms: CompletionAlarmsTable;
  audit_events: AuditEventsTable;
  // 0009_chain
  chain_networks: ChainNetworksTable;
  chain_assets: ChainAssetsTable;
  reward_wallets: RewardWalletsTable;
  reward_wallet_nonces: RewardWalletNoncesTable;
  chain_payouts: ChainPayoutsTable;
  chain_payout_txs: ChainPayoutTxsTable;
  user_wallets: UserWalletsTable;
  user_wallet_events: UserWalletEventsTable;
  siwe_challenges: SiweChallengesTable;
  // 0010_webhooks
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_attempts: WebhookAttemptsTable;
  // 0011_idempotency
  idempotency_keys: IdempotencyKeysTable;
  // 0025_first_sign_in
  admin_first_sign_ins: AdminFirstSignInsTable;
}

// --- 0008_farming ---

export interface DeferredRewardsTable {
  id: string;
  kind: 'CLAIM' | 'TICKET';
  partner_id: string;
  partner_uid: string;
  promotion_id: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  source_id: string;
  period_key: string;
  budget_id: string;
  amount: Numeric | null;
  completed_at: Timestamp;
}

export interface BudgetCapsTable {
  budget_id: string;
  per_account_per_day: Numeric | null;
  per_partner_per_day: Numeric | null;
  updated_at: Timestamp;
}

export interface CapUsageTable {
  budget_id: string;
  day: string;
  scope: 'ACCOUNT' | 'PARTNER' | 'ADDRESS';
  subject: string;
  used: Numeric;
}

export interface CompletionRatesTable {
  partner_id: string;
  window_start: Timestamp;
  completions: number;
}

export interface CompletionAlarmsTable {
  partner_id: string;
  alarms: number;
  last_window: Timestamp;
  last_rate: number;
  last_baseline: string;
  last_at: Timestamp;
}

// --- 0014_audit ---

export type AuditAction = 'create' | 'update' | 'delete';

/** Written only by the audit_row_change trigger; UPDATE, DELETE and TRUNCATE are refused. */
export interface AuditEventsTable {
  id: Generated<string>;
  at: Date;
  actor_id: string;
  actor_name: string;
  action: AuditAction;
  entity_type: string;
  entity_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
}

// --- 0009_chain (the chain payout, docs/payout.md) ---

/**
 * A payout's state (docs/payout.md, "The payout's states"): SIGNED (stored, not yet accepted by a
 * node) -> BROADCAST (a node took it) -> CONFIRMED (mined with the network's confirmations and its
 * Transfer moved exactly the amount to the user) | REVERTED (mined, reverted: the nonce is used, the
 * claim may be paid again) | FAILED (mined, but the transfer moved nothing or another amount: final,
 * never paid again automatically). A replacement keeps the state and the nonce.
 */
export type PayoutStatus = 'SIGNED' | 'BROADCAST' | 'CONFIRMED' | 'REVERTED' | 'FAILED';
export type PayoutTxStatus = 'SIGNED' | 'REPLACED' | 'MINED' | 'DROPPED';

export interface ChainNetworksTable {
  id: string;
  name: string;
  chain_id: number;
  rpc_url: string;
  confirmations: number;
  explorer_tx_url: string | null;
  created_at: Timestamp;
  disabled_at: NullableTimestamp;
  fallback_rpc_urls: ColumnType<string[], string[] | undefined, string[]>;
  /** The hash of the chain's block 0 when last seen (the development chain: a new one at each start). */
  genesis_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the development chain was last found reset (a new instance). */
  reset_at: NullableTimestamp;
}

export interface ChainAssetsTable {
  asset_id: string;
  network_id: string;
  token_address: string | null;
  created_at: Timestamp;
}

export interface RewardWalletsTable {
  id: string;
  budget_id: string;
  network_id: string;
  address: string;
  encrypted_key: string;
  key_origin: 'CREATED' | 'IMPORTED';
  created_at: Timestamp;
  halted_at: NullableTimestamp;
  halted_reason: string | null;
}

export interface RewardWalletNoncesTable {
  wallet_id: string;
  next_nonce: number;
}

export interface ChainPayoutsTable {
  id: string;
  claim_id: string;
  budget_id: string;
  wallet_id: string;
  account_id: string;
  nonce: number;
  to_address: string;
  amount: Numeric;
  token_address: string | null;
  raw_tx: string;
  tx_hash: string;
  gas_limit: number;
  max_fee_per_gas: Numeric;
  max_priority_fee_per_gas: Numeric;
  status: PayoutStatus;
  mined_tx_hash: string | null;
  block_number: number | null;
  broadcasts: Generated<number>;
  replacements: Generated<number>;
  last_error: string | null;
  signed_at: Timestamp;
  broadcast_at: NullableTimestamp;
  settled_at: NullableTimestamp;
  updated_at: Timestamp;
  /** Confirmed on an instance of the development chain that is gone (its transfer went with it). */
  lost_with_chain_at: NullableTimestamp;
}

export interface ChainPayoutTxsTable {
  tx_hash: string;
  payout_id: string;
  raw_tx: string;
  max_fee_per_gas: Numeric;
  max_priority_fee_per_gas: Numeric;
  status: PayoutTxStatus;
  signed_at: Timestamp;
}

export interface UserWalletsTable {
  account_id: string;
  address: string;
  chain_id: number;
  bound_at: Timestamp;
}

export interface UserWalletEventsTable {
  id: Generated<number>;
  account_id: string;
  address: string;
  previous_address: string | null;
  challenge_nonce: string;
  at: Timestamp;
}

export interface SiweChallengesTable {
  nonce: string;
  account_id: string;
  address: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

// --- 0010_webhooks ---

export type WebhookMessageStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookEndpointsTable {
  id: string;
  partner_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookMessagesTable {
  id: string;
  seq: Generated<string>;
  endpoint_id: string;
  partner_id: string;
  event_type: string;
  rank: number;
  payload: JsonText<unknown>;
  status: WebhookMessageStatus;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  leased_until: NullableTimestamp;
  last_error: string | null;
  created_at: Timestamp;
  delivered_at: NullableTimestamp;
}

/** A statement's messages to one partner, until they become webhook_messages (migration 0048). */
export interface WebhookOutboxTable {
  partner_id: string;
  id: Generated<string>;
  created_at: Timestamp;
  endpoint_ids: string[];
  event_types: string[];
  event_times: Timestamp[];
  data: JsonText<unknown>;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  message_id: string;
  /** The message's partner (migration 0045): on Citus the shard both live on. */
  partner_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

// --- 0011_idempotency ---

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  owner: string;
  locked_until: Timestamp;
  response_status: number | null;
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

// --- 0025_first_sign_in ---

/** The development first-OWNER sign-in's one-time codes, by hash (src/admins/first-sign-in.ts). */
export interface AdminFirstSignInsTable {
  code_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}
