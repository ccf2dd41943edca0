// Schemas of the signed-in user's routes (/v1/me) and of an account's balances.
import { Type } from 'typebox';
import { ClaimStatus } from '../../claims/routes/schemas.ts';
import { TicketStatus } from '../../draws/routes/schemas.ts';
import { component, EXAMPLE } from '../../http/schemas.ts';

export const tags = ['user'];

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);
// The operator API's enums, one component each (the spec's ClaimStatus and TicketFilter).
export { ClaimStatus };
export const TicketFilter = TicketStatus;

/** The most items a page of /v1/me/claims or /v1/me/tickets holds, and how many when no limit is asked. */
export const MY_PAGE_MAX = 500;
export const MY_PAGE_DEFAULT = 100;
/** Paging of the user's lists, like the operator's: `nextCursor` of one page is `cursor` of the next. */
export const PageQuery = {
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "The previous page's nextCursor (opaque); omitted for the first page",
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MY_PAGE_MAX,
      description: `Items per page (default ${MY_PAGE_DEFAULT})`,
    }),
  ),
};
export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as cursor for the next page; null on the last page',
});

/** One page of `rows` fetched with limit + 1: the page, and the cursor after it when more follow. */
export function pageOf<T extends { id: string | null }>(
  rows: T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last?.id ? last.id : null };
}
export const Balance = Type.Object(
  {
    assetId: Type.String(),
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Integer(),
    balance: Type.String({ description: 'Whole units, a decimal string' }),
  },
  {
    ...component('Balance'),
    description: "An account's balance of one asset: what its SUCCEEDED claims paid",
    examples: [
      { assetId: EXAMPLE.assetId, symbol: 'PNT', name: 'Acme points', decimals: 2, balance: '650.5' },
    ],
  },
);
export const MyMission = Type.Object(
  {
    partnerId: Type.String(),
    partnerName: Type.String(),
    promotionId: Type.String(),
    promotionTitle: Type.String(),
    promotionType: Type.String(),
    missionGroupId: Type.String(),
    groupTitle: Type.String(),
    missionId: Type.String(),
    missionKey: Type.String(),
    title: Type.String(),
    recurrence: Type.String(),
    periodKey: Type.String(),
    target: Nullable(Type.Integer()),
    current: Nullable(Type.Integer()),
    completed: Type.Boolean(),
    completedAt: Nullable(Type.String()),
    reward: Nullable(
      Type.Object({
        type: Type.String(),
        amount: Nullable(Type.String()),
        assetSymbol: Type.String(),
        decimals: Type.Integer({ description: "The asset's decimals, to show the amount" }),
      }),
    ),
    claim: Nullable(
      Type.Object(
        {
          status: Type.String(),
          reason: Nullable(
            Type.String({
              description:
                'Why a REJECTED claim was refused: BUDGET_EXHAUSTED, CAP_REACHED, EXPIRED or ALREADY_REWARDED (the person had it through another partnerUid)',
            }),
          ),
          grantedOnLink: Type.Boolean({
            description: 'Completed before the account was linked; granted at the link',
          }),
        },
        { description: "This period's claim of the mission's reward, if any" },
      ),
    ),
  },
  {
    ...component('MyMission'),
    description: "A mission as the signed-in user sees it: this period's progress, reward and claim",
    examples: [
      {
        partnerId: EXAMPLE.partnerId,
        partnerName: 'Acme Games',
        promotionId: EXAMPLE.promotionId,
        promotionTitle: 'Winter missions',
        promotionType: 'COMPOSITE',
        missionGroupId: EXAMPLE.groupId,
        groupTitle: 'Every day',
        missionId: EXAMPLE.missionId,
        missionKey: EXAMPLE.missionKey,
        title: 'Log in every day',
        recurrence: 'DAILY',
        periodKey: '2026-11-24',
        target: null,
        current: null,
        completed: true,
        completedAt: EXAMPLE.later,
        reward: { type: 'FIXED', amount: '50', assetSymbol: 'PNT', decimals: 2 },
        claim: { status: 'SUCCEEDED', reason: null, grantedOnLink: false },
      },
    ],
  },
);
export const MyStreak = Type.Object(
  {
    promotionId: Type.String(),
    promotionTitle: Type.String(),
    current: Type.Integer(),
    best: Type.Integer(),
    lastCheckDate: Nullable(Type.String()),
  },
  {
    ...component('MyStreak'),
    description: "The signed-in user's streak of daily checks in a DAILY_CHECK promotion",
    examples: [
      {
        promotionId: EXAMPLE.promotionId,
        promotionTitle: 'Daily check-in',
        current: 4,
        best: 12,
        lastCheckDate: '2026-11-24',
      },
    ],
  },
);
export const MyClaim = Type.Object(
  {
    id: Type.String(),
    status: Type.String(),
    reason: Nullable(Type.String()),
    grantedOnLink: Type.Boolean(),
    amount: Type.String(),
    assetSymbol: Type.String(),
    decimals: Type.Integer(),
    source: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    // [chain payout] the transfer of a claim paid on chain, with its explorer link.
    txHash: Nullable(Type.String()),
    explorerUrl: Nullable(Type.String()),
    // The payout waits for the user to bind a wallet on the asset's chain (#29 "the claim that waits").
    waitsForWallet: Type.Boolean(),
  },
  {
    ...component('MyClaim'),
    description: "One of the signed-in user's reward claims",
    examples: [
      {
        id: EXAMPLE.claimId,
        status: 'SUCCEEDED',
        reason: null,
        grantedOnLink: false,
        amount: '50',
        assetSymbol: 'PNT',
        decimals: 2,
        source: 'MISSION',
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
        txHash: EXAMPLE.txHash,
        explorerUrl: `https://sepolia.etherscan.io/tx/${EXAMPLE.txHash}`,
        waitsForWallet: false,
      },
    ],
  },
);
export const MyTicket = Type.Object(
  {
    id: Nullable(Type.String()),
    missionId: Type.String(),
    missionTitle: Type.String(),
    status: Type.String(),
    periodKey: Type.String(),
    drawId: Nullable(Type.String()),
    won: Nullable(Type.Boolean()),
    createdAt: Nullable(Type.String()),
    prize: Nullable(
      Type.Object(
        {
          amount: Type.String({ description: 'Whole units, a decimal string' }),
          assetSymbol: Type.String(),
          decimals: Type.Integer(),
          claimStatus: Type.String({ description: "The prize claim's status (SUCCEEDED once paid)" }),
        },
        { description: 'What a winning ticket paid (its prize claim); null unless won' },
      ),
    ),
  },
  {
    ...component('MyTicket'),
    description: "One of the signed-in user's lucky-draw tickets (id null while NOT_RECEIVED)",
    examples: [
      {
        id: EXAMPLE.ticketId,
        missionId: EXAMPLE.missionId,
        missionTitle: 'Log in every day',
        status: 'DRAWN',
        periodKey: '2026-11-24',
        drawId: EXAMPLE.drawId,
        won: true,
        createdAt: EXAMPLE.later,
        prize: { amount: '20', assetSymbol: 'PNT', decimals: 2, claimStatus: 'SUCCEEDED' },
      },
    ],
  },
);
