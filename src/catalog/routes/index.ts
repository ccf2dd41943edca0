// Operator API: promotions, mission groups and missions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  component,
  errorResponses,
  EXAMPLE,
  Id,
  Instant,
  ListQuery,
  MissionKey,
} from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';

const PromotionType = Type.Union([Type.Literal('COMPOSITE'), Type.Literal('DAILY_CHECK')], {
  ...component('PromotionType'),
  description: 'Kind of promotion (spec 2.3)',
});
const PromotionStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')], {
  ...component('PromotionStatus'),
  description: 'Whether a promotion is active (spec 2.3)',
});
const Recurrence = Type.Union(
  [Type.Literal('ONE_TIME'), Type.Literal('DAILY'), Type.Literal('WEEKLY'), Type.Literal('MONTHLY')],
  { ...component('RecurrenceType'), description: "A mission's repeat cycle (spec 2.3)" },
);
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Asia/Seoul' });

const Promotion = Type.Object(
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
const MissionGroup = Type.Object(
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
const Mission = Type.Object(
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
const Target = Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
  description: 'When set, a completion must report metadata.current >= target',
});
const security = [{ adminBearer: [] }];

export const catalogAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;

  // --- promotions ---
  const ptags = ['admin: promotions'];
  const PromotionParams = Type.Object({ promotionId: Id('Promotion id') });

  app.post(
    '/promotions',
    {
      schema: {
        tags: ptags,
        security,
        summary: 'Create a promotion (INACTIVE unless status says otherwise)',
        body: Type.Object(
          {
            partnerId: Id('Partner id'),
            type: PromotionType,
            title: Title,
            titles: Type.Optional(TitlesSchema),
            timezone: Timezone,
            startAt: Instant,
            endAt: Type.Optional(Type.Union([Instant, Type.Null()])),
            status: Type.Optional(PromotionStatus),
          },
          {
            additionalProperties: false,
            examples: [
              {
                partnerId: EXAMPLE.partnerId,
                type: 'COMPOSITE',
                title: 'Winter missions',
                titles: { ko: '겨울 미션' },
                timezone: 'Asia/Seoul',
                startAt: '2026-12-01T00:00:00.000+09:00',
                endAt: '2027-01-01T00:00:00.000+09:00',
              },
            ],
          },
        ),
        response: { 201: Promotion, ...errorResponses('NOT_FOUND_PARTNER', 'INVALID_TIMEZONE') },
      },
    },
    async (request, reply) => reply.code(201).send(await catalog.createPromotion(db, clock, request.body)),
  );

  app.get(
    '/promotions',
    {
      schema: {
        tags: ptags,
        security,
        summary: 'List promotions',
        querystring: Type.Object(
          {
            ...ListQuery.properties,
            partnerId: Type.Optional(Id('Partner id')),
            status: Type.Optional(PromotionStatus),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Promotion) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await catalog.listPromotions(db, {
        ...(request.query.partnerId !== undefined && { partnerId: request.query.partnerId }),
        ...(request.query.status !== undefined && { status: request.query.status }),
        limit: request.query.limit ?? 100,
        offset: request.query.offset ?? 0,
      }),
    }),
  );

  app.get(
    '/promotions/:promotionId',
    {
      schema: {
        tags: ptags,
        security,
        summary: 'Get a promotion',
        params: PromotionParams,
        response: { 200: Promotion, ...errorResponses('NOT_FOUND_PROMOTION') },
      },
    },
    async (request) => catalog.getPromotion(db, request.params.promotionId),
  );

  app.patch(
    '/promotions/:promotionId',
    {
      schema: {
        tags: ptags,
        security,
        summary:
          'Change a promotion; partner, type, start and time zone are fixed once it has been ACTIVE (2102)',
        params: PromotionParams,
        body: Type.Object(
          {
            partnerId: Type.Optional(Id('Partner id')),
            type: Type.Optional(PromotionType),
            title: Type.Optional(Title),
            titles: Type.Optional(TitlesSchema),
            timezone: Type.Optional(Timezone),
            startAt: Type.Optional(Instant),
            endAt: Type.Optional(Type.Union([Instant, Type.Null()])),
            status: Type.Optional(PromotionStatus),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ status: 'ACTIVE' }, { endAt: '2027-02-01T00:00:00.000+09:00' }],
          },
        ),
        response: {
          200: Promotion,
          ...errorResponses('INVALID_TIMEZONE', 'NOT_FOUND_PROMOTION', 'IMMUTABLE_PROMOTION_FIELD'),
        },
      },
    },
    async (request) => catalog.updatePromotion(db, clock, request.params.promotionId, request.body),
  );

  // --- mission groups ---
  const gtags = ['admin: mission groups'];
  const GroupParams = Type.Object({ groupId: Id('Mission group id') });

  app.post(
    '/promotions/:promotionId/mission-groups',
    {
      schema: {
        tags: gtags,
        security,
        summary: 'Create a mission group in a promotion',
        params: PromotionParams,
        body: Type.Object(
          { title: Title, titles: Type.Optional(TitlesSchema) },
          { additionalProperties: false, examples: [{ title: 'Every day', titles: { ko: '매일' } }] },
        ),
        response: { 201: MissionGroup, ...errorResponses('NOT_FOUND_PROMOTION') },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await catalog.createMissionGroup(db, clock, request.params.promotionId, request.body)),
  );

  app.get(
    '/promotions/:promotionId/mission-groups',
    {
      schema: {
        tags: gtags,
        security,
        summary: "List a promotion's mission groups",
        params: PromotionParams,
        response: {
          200: Type.Object({ items: Type.Array(MissionGroup) }),
          ...errorResponses('NOT_FOUND_PROMOTION'),
        },
      },
    },
    async (request) => ({ items: await catalog.listMissionGroups(db, request.params.promotionId) }),
  );

  app.get(
    '/mission-groups/:groupId',
    {
      schema: {
        tags: gtags,
        security,
        summary: 'Get a mission group',
        params: GroupParams,
        response: { 200: MissionGroup, ...errorResponses('NOT_FOUND_MISSION_GROUP') },
      },
    },
    async (request) => catalog.getMissionGroup(db, request.params.groupId),
  );

  app.patch(
    '/mission-groups/:groupId',
    {
      schema: {
        tags: gtags,
        security,
        summary: 'Rename a mission group',
        params: GroupParams,
        body: Type.Object(
          { title: Type.Optional(Title), titles: Type.Optional(TitlesSchema) },
          { additionalProperties: false, minProperties: 1, examples: [{ title: 'Every day of the week' }] },
        ),
        response: { 200: MissionGroup, ...errorResponses('NOT_FOUND_MISSION_GROUP') },
      },
    },
    async (request) => catalog.updateMissionGroup(db, clock, request.params.groupId, request.body),
  );

  // --- missions ---
  const mtags = ['admin: missions'];
  const MissionParams = Type.Object({ missionId: Id('Mission id') });

  app.post(
    '/mission-groups/:groupId/missions',
    {
      schema: {
        tags: mtags,
        security,
        summary: 'Create a mission; its key is unique per partner',
        params: GroupParams,
        body: Type.Object(
          {
            missionKey: MissionKey,
            title: Title,
            titles: Type.Optional(TitlesSchema),
            recurrence: Recurrence,
            target: Type.Optional(Target),
          },
          {
            additionalProperties: false,
            examples: [
              {
                missionKey: EXAMPLE.missionKey,
                title: 'Log in every day',
                titles: { ko: '매일 출석하기', ja: '毎日ログイン' },
                recurrence: 'DAILY',
              },
              { missionKey: 'play-5-rounds', title: 'Play 5 rounds', recurrence: 'WEEKLY', target: 5 },
            ],
          },
        ),
        response: { 201: Mission, ...errorResponses('NOT_FOUND_MISSION_GROUP', 'DUPLICATE_MISSION_KEY') },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await catalog.createMission(db, clock, request.params.groupId, request.body)),
  );

  app.get(
    '/mission-groups/:groupId/missions',
    {
      schema: {
        tags: mtags,
        security,
        summary: "List a mission group's missions",
        params: GroupParams,
        response: {
          200: Type.Object({ items: Type.Array(Mission) }),
          ...errorResponses('NOT_FOUND_MISSION_GROUP'),
        },
      },
    },
    async (request) => ({ items: await catalog.listMissions(db, request.params.groupId) }),
  );

  app.get(
    '/missions/:missionId',
    {
      schema: {
        tags: mtags,
        security,
        summary: 'Get a mission',
        params: MissionParams,
        response: { 200: Mission, ...errorResponses('NOT_FOUND_MISSION') },
      },
    },
    async (request) => catalog.getMission(db, request.params.missionId),
  );

  app.patch(
    '/missions/:missionId',
    {
      schema: {
        tags: mtags,
        security,
        summary: 'Change a mission title or target (key and recurrence are fixed)',
        params: MissionParams,
        body: Type.Object(
          { title: Type.Optional(Title), titles: Type.Optional(TitlesSchema), target: Type.Optional(Target) },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ title: 'Play 10 rounds', target: 10 }],
          },
        ),
        response: { 200: Mission, ...errorResponses('NOT_FOUND_MISSION') },
      },
    },
    async (request) => catalog.updateMission(db, clock, request.params.missionId, request.body),
  );
};
