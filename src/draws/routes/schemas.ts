// Schemas of the lucky-draw and ticket routes.
import { Type } from 'typebox';
import { component, EXAMPLE, Id } from '../../http/schemas.ts';
import { TitlesSchema } from '../../catalog/titles.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];
export const params = Type.Object({ id: Id('Draw id') });

export const Draw = Type.Object(
  {
    id: Type.String(),
    budgetId: Type.String(),
    title: Type.String({
      description: "The default title; on the public view, the reader's language's title when there is one",
    }),
    titles: TitlesSchema,
    status: Type.Union([Type.Literal('COMMITTED'), Type.Literal('DRAWN')], component('DrawStatus')),
    closesAt: Type.String({
      description:
        'When the ticket set closed or closes (tickets received by then take part); fixed at creation',
    }),
    scheduledAt: Type.String({
      description: 'When the draw runs (at or after closesAt); it cannot run before',
    }),
    commitment: Type.String({ description: 'SHA-256 (hex) of the seed, published before the draw' }),
    seed: Type.Union([Type.String(), Type.Null()], { description: 'Published after the draw' }),
    beacon: Type.Union(
      [
        Type.Object({
          chainId: Type.Integer(),
          networkName: Type.Union([Type.String(), Type.Null()]),
          blockNumber: Type.Union([Type.Integer(), Type.Null()], {
            description: 'The first block mined after closesAt (set by the run)',
          }),
          blockHash: Type.Union([Type.String(), Type.Null()], {
            description:
              "That block's hash (0x, lowercase hex): tickets score SHA-256(seed:blockHash:ticketId)",
          }),
        }),
        Type.Null(),
      ],
      {
        ...component('DrawBeacon'),
        description:
          "The chain the draw's budget pays on, whose first block after closesAt is mixed into the seed; null for a ledger budget (tickets score SHA-256(seed:ticketId))",
      },
    ),
    prizeAmount: Type.String(),
    assetSymbol: Type.String(),
    decimals: Type.Optional(Type.Integer({ description: "The asset's decimals, to show the prize" })),
    winnersCount: Type.Integer(),
    ticketCount: Type.Union([Type.Integer(), Type.Null()]),
    drawnAt: Type.Union([Type.String(), Type.Null()]),
    tickets: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Every ticket in the draw, to recompute the winners',
    }),
    winners: Type.Union([Type.Array(Type.Object({ ticketId: Type.String() })), Type.Null()]),
  },
  {
    ...component('Draw'),
    description:
      'A lucky draw: committed to a seed before (COMMITTED), its seed and winners published after (DRAWN)',
    examples: [
      {
        id: EXAMPLE.drawId,
        budgetId: EXAMPLE.budgetId,
        title: 'Weekly draw',
        titles: { ko: '주간 추첨' },
        status: 'COMMITTED',
        closesAt: '2026-11-30T11:00:00.000Z',
        scheduledAt: '2026-11-30T12:00:00.000Z',
        commitment: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        seed: null,
        beacon: null,
        prizeAmount: '1000',
        assetSymbol: 'PNT',
        winnersCount: 1,
        ticketCount: null,
        drawnAt: null,
        tickets: null,
        winners: null,
      },
      {
        id: EXAMPLE.drawId,
        budgetId: EXAMPLE.budgetId,
        title: 'Weekly draw',
        titles: { ko: '주간 추첨' },
        status: 'DRAWN',
        closesAt: '2026-11-30T11:00:00.000Z',
        scheduledAt: '2026-11-30T12:00:00.000Z',
        commitment: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        seed: '4a1c0e7d3b9f2a6c8e5d1b7f0a3c9e2d',
        beacon: {
          chainId: 1001,
          networkName: 'Kaia Kairos',
          blockNumber: 171234567,
          blockHash: '0x3f2a9c1e5b7d4f60a8c2e1d9b3f5a7c4e6d8b0a2c4e6f8a1b3d5f7a9c1e3b5d7',
        },
        prizeAmount: '1000',
        assetSymbol: 'PNT',
        winnersCount: 1,
        ticketCount: 2,
        drawnAt: '2026-11-30T12:00:03.000Z',
        tickets: [EXAMPLE.ticketId, 'tkt_Z8vN3qLc1tWm6xRb4yKe9g'],
        winners: [{ ticketId: EXAMPLE.ticketId }],
      },
    ],
  },
);
/** A ticket's state, and the filter of the ticket lists by it: the spec's TicketFilter. */
export const TicketStatus = Type.Union(
  [Type.Literal('NOT_RECEIVED'), Type.Literal('RECEIVED'), Type.Literal('DRAWN')],
  {
    ...component('TicketFilter'),
    description: "A lucky-draw ticket's state, and the filter on it (spec 2.3 TicketFilter)",
  },
);
export const Ticket = Type.Object(
  {
    id: Type.Union([Type.String(), Type.Null()], { description: 'null for NOT_RECEIVED' }),
    status: TicketStatus,
    partnerId: Type.String(),
    partnerUid: Type.String(),
    missionId: Type.String(),
    missionTitle: Type.String(),
    periodKey: Type.String(),
    drawId: Type.Union([Type.String(), Type.Null()]),
    won: Type.Union([Type.Boolean(), Type.Null()]),
    createdAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('Ticket'),
    description: "A partner user's lucky-draw ticket for one mission period (id null while NOT_RECEIVED)",
    examples: [
      {
        id: EXAMPLE.ticketId,
        status: 'RECEIVED',
        partnerId: EXAMPLE.partnerId,
        partnerUid: EXAMPLE.partnerUid,
        missionId: EXAMPLE.missionId,
        missionTitle: 'Log in every day',
        periodKey: '2026-11-24',
        drawId: null,
        won: null,
        createdAt: EXAMPLE.later,
      },
    ],
  },
);
