// Shapes of the end-user API (/v1/me..., docs/plans/me-api.md) and the public draw view.
// Amounts are decimal strings in whole units.

export interface Me {
  accountId: string;
  displayName: string | null;
  mappings: Array<{
    partnerId: string;
    partnerName: string;
    partnerUid: string;
    region: string;
    linkedAt: string;
  }>;
}

export interface MyMission {
  partnerId: string;
  partnerName: string;
  promotionId: string;
  promotionTitle: string;
  promotionType: string;
  missionGroupId: string;
  groupTitle: string;
  missionId: string;
  missionKey: string;
  title: string;
  recurrence: string;
  periodKey: string;
  target: number | null;
  current: number | null;
  completed: boolean;
  completedAt: string | null;
  reward: { type: string; amount: string | null; assetSymbol: string } | null;
  /** This period's claim of the reward: why it was refused, and whether it was granted at the link. */
  claim: { status: string; reason: string | null; grantedOnLink: boolean } | null;
}

export interface MyStreak {
  promotionId: string;
  promotionTitle: string;
  current: number;
  best: number;
  lastCheckDate: string | null;
}

export interface MyMissions {
  items: MyMission[];
  streaks: MyStreak[];
}

export type TicketFilter = 'NOT_RECEIVED' | 'RECEIVED' | 'DRAWN';

export interface MyTicket {
  id: string | null;
  missionId: string;
  missionTitle: string;
  status: TicketFilter;
  periodKey: string;
  drawId: string | null;
  won: boolean | null;
  createdAt: string | null;
}

export interface MyClaim {
  id: string;
  status: string;
  amount: string;
  assetSymbol: string;
  decimals: number;
  source: string;
  createdAt: string;
  updatedAt: string;
  /** Paid on a chain: the transaction, and its page on the network's explorer (when configured). */
  txHash: string | null;
  explorerUrl: string | null;
}

export interface Balance {
  assetId: string;
  symbol: string;
  name: string;
  decimals: number;
  balance: string;
}

export interface MyDraw {
  id: string;
  title: string;
  status: 'COMMITTED' | 'DRAWN';
  scheduledAt: string;
  commitment: string;
  seed: string | null;
  prizeAmount: string;
  assetSymbol: string;
  winnersCount: number;
  ticketCount: number | null;
  drawnAt: string | null;
  winners: Array<{ ticketId: string }> | null;
}
