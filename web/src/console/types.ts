// Names for the operator API's shapes the console shows, each taken from the generated api-schema.ts
// (npm run gen:api), so a change on the server shows up here as a type error, not a wrong page.
import type { AnswerOf, ItemOf } from '../shared/api-client.ts';

export type AdminIdentity = AnswerOf<'get', '/admin/v1/me'>;
export type AdminRole = AdminIdentity['role'];

export type Partner = AnswerOf<'get', '/admin/v1/partners/{partnerId}'>;
export type ApiKey = ItemOf<AnswerOf<'get', '/admin/v1/partners/{partnerId}/api-keys'>>;
/** A key just created: the only answer that carries the key itself. */
export type NewApiKey = AnswerOf<'post', '/admin/v1/partners/{partnerId}/api-keys'>;

export type Promotion = AnswerOf<'get', '/admin/v1/promotions/{promotionId}'>;
export type PromotionType = Promotion['type'];
export type MissionGroup = ItemOf<AnswerOf<'get', '/admin/v1/promotions/{promotionId}/mission-groups'>>;
export type Mission = ItemOf<AnswerOf<'get', '/admin/v1/mission-groups/{groupId}/missions'>>;
export type Recurrence = Mission['recurrence'];
/** A reward set on a mission or a group, with its budget's name and asset. */
export type RewardView = ItemOf<AnswerOf<'get', '/admin/v1/promotions/{id}/rewards'>>;

export type Asset = ItemOf<AnswerOf<'get', '/admin/v1/reward-assets'>>;
export type Budget = AnswerOf<'get', '/admin/v1/budgets/{id}'>;
export type BudgetType = Budget['type'];
export type BudgetHistoryPoint = ItemOf<AnswerOf<'get', '/admin/v1/budgets/{id}/history'>>;

export type Claim = ItemOf<AnswerOf<'get', '/admin/v1/claims'>>;
export type ClaimStatus = Claim['status'];
export type ClaimEvent = ItemOf<AnswerOf<'get', '/admin/v1/claims/{id}/history'>>;

export type Draw = ItemOf<AnswerOf<'get', '/admin/v1/draws'>>;

export type DailyActivity = AnswerOf<'get', '/admin/v1/reports/daily'>;
