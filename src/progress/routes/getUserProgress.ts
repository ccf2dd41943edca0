// GET /admin/v1/partners/{partnerId}/users/{partnerUid}/progress: a partner user's progress records.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id, PartnerUid } from '../../http/schemas.ts';
import { getPartner } from '../../partners/service.ts';
import { userProgress } from '../service.ts';

const ProgressRecord = Type.Object(
  {
    missionKey: Type.String(),
    missionId: Type.String(),
    periodKey: Type.String({ description: "ONCE, a local date, 'W' + the week's Monday, or a month" }),
    completed: Type.Boolean(),
    target: Type.Union([Type.Integer(), Type.Null()]),
    current: Type.Union([Type.Integer(), Type.Null()]),
    completedAt: Type.Union([Type.String(), Type.Null()]),
    reportCount: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('ProgressRecord'),
    description: "A partner user's record of one mission in one period (spec 2.2)",
    examples: [
      {
        missionKey: EXAMPLE.missionKey,
        missionId: EXAMPLE.missionId,
        periodKey: '2026-11-24',
        completed: true,
        target: 5,
        current: 5,
        completedAt: EXAMPLE.later,
        reportCount: 3,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
      },
    ],
  },
);

export const getUserProgressRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners/:partnerId/users/:partnerUid/progress',
    {
      schema: {
        operationId: 'getUserProgress',
        tags: ['admin: users'],
        security: [{ adminBearer: [] }],
        summary: "A partner user's progress records, one per mission and period",
        params: Type.Object({ partnerId: Id('Partner id'), partnerUid: PartnerUid }),
        response: {
          200: Type.Object({ items: Type.Array(ProgressRecord) }),
          ...errorResponses('NOT_FOUND_PARTNER'),
        },
      },
    },
    async (request) => {
      await getPartner(database.db, request.params.partnerId);
      return { items: await userProgress(database.db, request.params.partnerId, request.params.partnerUid) };
    },
  );
};
