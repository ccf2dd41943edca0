// Schemas shared by many routes: the error body, ids, pagination. Route files declare the rest.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply } from 'fastify';

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'Numeric error code; see docs/errors.md', examples: [1201] }),
    name: Type.String({ examples: ['NOT_FOUND_MISSION'] }),
    message: Type.String({ examples: ["no mission 'daily-login' for this partner"] }),
  },
  { $id: 'ErrorBody', additionalProperties: true, description: 'The body of every error response.' },
);

/** Error responses a route may give, for the OpenAPI document. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<S, typeof ErrorBody>;
}

/** Answers with a status and no body at all (the spec's "empty body"), not the JSON text null. */
export function sendEmpty(reply: FastifyReply, status: 200 | 204): FastifyReply {
  return reply.code(status).send();
}

export const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

/** ISO 8601 instant with an offset or Z. */
export const Instant = Type.String({ format: 'date-time' });

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const EmptyResponse = Type.Null({ description: 'Empty body.' });

export const MissionKey = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$',
  description: 'Mission key, unique per partner: letters, digits and . _ : -',
  examples: ['daily-login'],
});

export const PartnerUid = Type.String({
  minLength: 1,
  maxLength: 256,
  description: "The partner's own identifier of the user",
  examples: ['user-1234'],
});

/** Progress values: whole numbers a JavaScript number holds exactly. */
export const ProgressValue = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
