// Schemas of the lucky-draw and ticket routes.
import { Type } from 'typebox';
import { Id } from '../../http/schemas.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];
export const params = Type.Object({ id: Id('Draw id') });

export const Draw = Type.Object({
  id: Type.String(),
  budgetId: Type.String(),
  title: Type.String(),
  status: Type.Union([Type.Literal('COMMITTED'), Type.Literal('DRAWN')]),
  scheduledAt: Type.String(),
  commitment: Type.String({ description: 'SHA-256 (hex) of the seed, published before the draw' }),
  seed: Type.Union([Type.String(), Type.Null()], { description: 'Published after the draw' }),
  prizeAmount: Type.String(),
  assetSymbol: Type.String(),
  winnersCount: Type.Integer(),
  ticketCount: Type.Union([Type.Integer(), Type.Null()]),
  drawnAt: Type.Union([Type.String(), Type.Null()]),
  tickets: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Every ticket in the draw, to recompute the winners',
  }),
  winners: Type.Union([Type.Array(Type.Object({ ticketId: Type.String() })), Type.Null()]),
});
export const TicketStatus = Type.Union([
  Type.Literal('NOT_RECEIVED'),
  Type.Literal('RECEIVED'),
  Type.Literal('DRAWN'),
]);
export const Ticket = Type.Object({
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
});
