// POST /v1/achieve: the partner reports a user's progress on a mission (spec 4.4).
import { completionHandler, loadCompletionContext } from '../../rewards/claims.ts';
import type { CompletionContextOf } from '../../rewards/claims.ts';
import { completionsInOneStatement } from '../../rewards/fixed-completions.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty, MissionKey, PartnerUid, ProgressValue } from '../../http/schemas.ts';
import { createAchiever } from '../service.ts';
import { findMissionForAchieve } from '../store.ts';

const AchieveBody = Type.Object(
  {
    partnerUid: PartnerUid,
    missionKey: MissionKey,
    completed: Type.Boolean({ description: 'Completion state; once true has been stored it stays true' }),
    metadata: Type.Optional(
      Type.Object(
        {
          target: Type.Optional({ ...ProgressValue, description: 'Maximum target value (progress gauge)' }),
          current: Type.Optional({ ...ProgressValue, description: 'Current progress value' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const achieveRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, caches } = app.deps;
  // Catalog facts come from the cache; on a miss whoever asks reads them (the one-statement path,
  // or the achieve transaction).
  // Inside a transaction a miss never waits for a load another batch started outside one: on
  // PGlite that load waits for the one connection this transaction holds.
  const context: CompletionContextOf = (db, event) =>
    caches.completions.get(event.missionId, () => loadCompletionContext(db, event), { joinPending: !db.isTransaction });
  // Concurrent reports are written in batches (one statement or transaction per batch).
  const achiever = createAchiever(database.db, clock, {
    onCompletion: completionHandler(context),
    inOneStatement: completionsInOneStatement(context),
    findMission: (db, partnerId, missionKey) => caches.missions.get(`${partnerId}\u0000${missionKey}`, () => findMissionForAchieve(db, partnerId, missionKey)),
    concurrency: app.deps.config.batchConcurrency,
  });
  app.post(
    '/achieve',
    {
      schema: {
        tags: ['partner'],
        summary: 'Report mission progress or completion (upsert)',
        description:
          'Looks the mission up by missionKey, checks the report and stores it; the first completion of a ' +
          "period pays the mission's reward. Callers must come from the partner's allow-listed addresses.",
        security: [{ partnerId: [], partnerApiKey: [] }],
        body: AchieveBody,
        response: { 200: Type.Null({ description: 'Empty body: saved and committed' }), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      await achiever.achieve(request.partner.id, request.body);
      return sendEmpty(reply, 200);
    },
  );
};
