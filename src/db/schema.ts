// Table types for Kysely, one interface per table of the migrations. Keep in step with
// src/db/migrations/*.sql: a column added there is added here in the same commit.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A title per language (jsonb); keys are the languages of docs/i18n.md. */
export type Titles = Partial<Record<'en' | 'ko' | 'ja' | 'zh-TW' | 'th', string>>;
/** Written as a JSON string (so pg and PGlite both send it as jsonb text), read back as an object. */
type TitlesColumn = ColumnType<Titles, string | undefined, string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

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

/** numeric(78,0): read as a decimal string, written as a string or bigint. */
type Numeric = ColumnType<string, string | bigint, string | bigint>;

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
  stripe: number;
  remaining: Numeric;
}

export interface RewardRulesTable {
  id: string;
  mission_id: string | null;
  mission_group_id: string | null;
  type: 'FIXED' | 'LUCKY_DRAW';
  budget_id: string;
  amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
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
  status: 'COMMITTED' | 'DRAWN';
  commitment: string;
  seed: string;
  ticket_count: number | null;
  created_at: Timestamp;
  drawn_at: NullableTimestamp;
}

export interface TicketsTable {
  id: string;
  partner_id: string;
  partner_uid: string;
  mission_id: string;
  budget_id: string;
  period_key: string;
  status: 'RECEIVED' | 'DRAWN';
  draw_id: string | null;
  won: boolean | null;
  created_at: Timestamp;
}

export interface LedgerTransfersTable {
  id: string;
  claim_id: string;
  asset_id: string;
  amount: Numeric;
  created_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
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
  scope: 'ACCOUNT' | 'PARTNER';
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
