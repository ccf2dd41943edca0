// POST /v1/achieve: the partner reports a user's progress on a mission (spec 4.4).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  component,
  errorResponses,
  sendEmpty,
  EXAMPLE,
  MissionKey,
  PartnerUid,
  ProgressValue,
} from '../../http/schemas.ts';
import type { Achiever } from '../service.ts';
import { answerIsKept } from '../../idempotency/service.ts';
import { deferredKeyOf } from '../../idempotency/route-hooks.ts';
import { AppError } from '../../errors.ts';

/** What a report answers once written; stored with its idempotency key by the statement that writes it. */
const SAVED = { status: 200, headers: {}, body: null };

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
        { ...component('AchieveMetadata'), additionalProperties: false },
      ),
    ),
  },
  {
    ...component('AchieveRequest'),
    additionalProperties: false,
    description: "A progress report (spec 4.4): an upsert of the user's record of the mission",
    examples: [
      {
        partnerUid: EXAMPLE.partnerUid,
        missionKey: EXAMPLE.missionKey,
        completed: false,
        metadata: { target: 5, current: 3 },
      },
      { partnerUid: EXAMPLE.partnerUid, missionKey: EXAMPLE.missionKey, completed: true },
    ],
  },
);

/** The route with its ready service: the composition root (src/app.ts) builds the achiever. */
export function achieveRoute(achiever: Pick<Achiever, 'achieve'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/achieve',
      {
        config: { idempotency: 'in-statement' },
        schema: {
          operationId: 'achieve',
          tags: ['partner'],
          summary: 'Report mission progress or completion (upsert)',
          description:
            'Looks the mission up by missionKey, checks the report and stores it; the first completion of a ' +
            "period pays the mission's reward. Callers must come from the partner's allow-listed addresses.",
          security: [{ partnerId: [], partnerApiKey: [] }],
          body: AchieveBody,
          response: {
            200: Type.Null({ description: 'Empty body: saved and committed' }),
            ...errorResponses(
              'MALFORMED_JSON',
              'PAYLOAD_TOO_LARGE',
              'UNSUPPORTED_MEDIA_TYPE',
              'IP_NOT_ALLOWED',
              'NOT_FOUND_MISSION',
              'PROMOTION_NOT_ACTIVE',
              'PROMOTION_NOT_IN_PERIOD',
              'INVALID_MISSION_COMPLETION',
            ),
          },
        },
      },
      async (request, reply) => {
        const key = deferredKeyOf(request);
        // With an Idempotency-Key, the report claims it in the statement (or transaction) that
        // writes it: the answer is known beforehand, an empty 200 (docs/idempotency.md).
        if (key !== undefined) {
          try {
            const result = await achiever.achieve(request.partner.id, request.body, key.answered(SAVED));
            if (result.keyTaken) return sendEmpty(reply, 200);
          } catch (err) {
            // A verdict on the report (an unknown mission…) is kept like any answer: claim the key
            // now, before answering, and replay an earlier answer if it has one.
            if (!(err instanceof AppError && answerIsKept(err.status))) throw err;
            if (await key.claim()) return reply;
            throw err;
          }
          // The key was held or used: replay, refuse, or (its row just went) run as usual.
          if (await key.claim()) return reply;
        }
        await achiever.achieve(request.partner.id, request.body);
        return sendEmpty(reply, 200);
      },
    );
  };
}
