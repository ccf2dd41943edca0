// Names for the end-user API's shapes the mission page shows, each taken from the generated
// api-schema.ts (npm run gen:api), so a change on the server shows up here as a type error.
import type { AnswerOf, ItemOf } from '../shared/api-client.ts';
import type { operations } from '../shared/api-schema.ts';

export type Me = AnswerOf<'get', '/v1/me'>;
export type MyMissions = AnswerOf<'get', '/v1/me/missions'>;
export type MyMission = ItemOf<MyMissions>;
export type MyStreak = MyMissions['streaks'][number];
export type MyTicket = ItemOf<AnswerOf<'get', '/v1/me/tickets'>>;
export type TicketFilter = NonNullable<
  NonNullable<operations['listMyTickets']['parameters']['query']>['filter']
>;
export type MyClaim = ItemOf<AnswerOf<'get', '/v1/me/claims'>>;
export type ClaimStatus = NonNullable<
  NonNullable<operations['listMyClaims']['parameters']['query']>['status']
>;
export type Balance = ItemOf<AnswerOf<'get', '/v1/me/balances'>>;
export type MyDraw = AnswerOf<'get', '/v1/draws/{id}'>;
