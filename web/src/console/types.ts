// Shapes of the operator API's answers (see /openapi.json); amounts are decimal strings.

export interface Partner {
  id: string;
  name: string;
  status: 'ACTIVE' | 'DISABLED';
  allowedIps: string[];
  redirectUrls: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ApiKey {
  id: string;
  partnerId: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export type PromotionType = 'COMPOSITE' | 'DAILY_CHECK';
export type Recurrence = 'ONE_TIME' | 'DAILY' | 'WEEKLY' | 'MONTHLY';

export interface Promotion {
  id: string;
  partnerId: string;
  type: PromotionType;
  title: string;
  timezone: string;
  startAt: string;
  endAt: string | null;
  status: 'ACTIVE' | 'INACTIVE';
  activatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MissionGroup {
  id: string;
  promotionId: string;
  partnerId: string;
  title: string;
}

export interface Mission {
  id: string;
  missionGroupId: string;
  partnerId: string;
  missionKey: string;
  title: string;
  recurrence: Recurrence;
  target: number | null;
}

export interface Asset {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  createdAt: string;
}

export type BudgetType = 'FIXED' | 'LUCKY_DRAW';

export interface Budget {
  id: string;
  type: BudgetType;
  name: string;
  assetId: string;
  assetSymbol: string;
  decimals: number;
  total: string;
  remaining: string;
  reserved: string;
  paid: string;
  rejected: number;
  createdAt: string;
}

export interface RewardRule {
  id: string;
  type: BudgetType;
  budgetId: string;
  amount: string | null;
}

export type ClaimStatus = 'RESERVED' | 'REQUESTED' | 'REJECTED' | 'SUCCEEDED' | 'FAILED';

export interface Claim {
  id: string;
  status: ClaimStatus;
  amount: string;
  assetSymbol: string;
  decimals: number;
  reason: string | null;
  source: string;
  sourceId: string;
  periodKey: string;
  partnerId: string;
  partnerUid: string;
  accountId: string | null;
  promotionId: string | null;
  budgetId: string;
  attempts: number;
  createdAt: string;
  updatedAt: string;
}

export interface ClaimEvent {
  from: string | null;
  to: string;
  reason: string | null;
  at: string;
}

export interface Items<T> {
  items: T[];
}

export interface Draw {
  id: string;
  budgetId: string;
  title: string;
  status: 'COMMITTED' | 'DRAWN';
  scheduledAt: string;
  /** SHA-256 (hex) of the seed, public before the draw. */
  commitment: string;
  /** Published after the draw. */
  seed: string | null;
  prizeAmount: string;
  assetSymbol: string;
  winnersCount: number;
  ticketCount: number | null;
  drawnAt: string | null;
  tickets: string[] | null;
  winners: Array<{ ticketId: string }> | null;
}
