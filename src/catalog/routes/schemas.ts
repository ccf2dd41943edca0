// The schemas the promotion, mission group and mission operations share.
import { Type } from 'typebox';
import { component, EXAMPLE, Id } from '../../http/schemas.ts';
import { TitlesSchema } from '../titles.ts';

export const PromotionType = Type.Union([Type.Literal('COMPOSITE'), Type.Literal('DAILY_CHECK')], {
  ...component('PromotionType'),
  description: 'Kind of promotion (spec 2.3)',
});
export const PromotionStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')], {
  ...component('PromotionStatus'),
  description: 'Whether a promotion is active (spec 2.3)',
});
export const Recurrence = Type.Union(
  [Type.Literal('ONE_TIME'), Type.Literal('DAILY'), Type.Literal('WEEKLY'), Type.Literal('MONTHLY')],
  { ...component('RecurrenceType'), description: "A mission's repeat cycle (spec 2.3)" },
);
export const Title = Type.String({ minLength: 1, maxLength: 200 });
export const Timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone, e.g. Asia/Seoul',
});

export const Promotion = Type.Object(
  {
    id: Type.String(),
    partnerId: Type.String(),
    type: PromotionType,
    title: Type.String(),
    titles: TitlesSchema,
    timezone: Type.String(),
    startAt: Type.String(),
    endAt: Type.Union([Type.String(), Type.Null()]),
    status: PromotionStatus,
    activatedAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('Promotion'),
    examples: [
      {
        id: EXAMPLE.promotionId,
        partnerId: EXAMPLE.partnerId,
        type: 'COMPOSITE',
        title: 'Winter missions',
        titles: { ko: '겨울 미션' },
        timezone: 'Asia/Seoul',
        startAt: '2026-12-01T00:00:00.000+09:00',
        endAt: '2027-01-01T00:00:00.000+09:00',
        status: 'ACTIVE',
        activatedAt: EXAMPLE.later,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
      },
    ],
  },
);
export const MissionGroup = Type.Object(
  {
    id: Type.String(),
    promotionId: Type.String(),
    partnerId: Type.String(),
    title: Type.String(),
    titles: TitlesSchema,
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('MissionGroup'),
    examples: [
      {
        id: EXAMPLE.groupId,
        promotionId: EXAMPLE.promotionId,
        partnerId: EXAMPLE.partnerId,
        title: 'Every day',
        titles: { ko: '매일' },
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.instant,
      },
    ],
  },
);
export const Mission = Type.Object(
  {
    id: Type.String(),
    missionGroupId: Type.String(),
    partnerId: Type.String(),
    missionKey: Type.String(),
    title: Type.String(),
    titles: TitlesSchema,
    recurrence: Recurrence,
    target: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('Mission'),
    examples: [
      {
        id: EXAMPLE.missionId,
        missionGroupId: EXAMPLE.groupId,
        partnerId: EXAMPLE.partnerId,
        missionKey: EXAMPLE.missionKey,
        title: 'Log in every day',
        titles: { ko: '매일 출석하기', ja: '毎日ログイン' },
        recurrence: 'DAILY',
        target: null,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.instant,
      },
    ],
  },
);
export const Target = Type.Union(
  [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()],
  {
    description: 'When set, a completion must report metadata.current >= target',
  },
);
export const security = [{ adminBearer: [] }];
export const ptags = ['admin: promotions'];
export const PromotionParams = Type.Object({ promotionId: Id('Promotion id') });
export const gtags = ['admin: mission groups'];
export const GroupParams = Type.Object({ groupId: Id('Mission group id') });
export const mtags = ['admin: missions'];
export const MissionParams = Type.Object({ missionId: Id('Mission id') });
