// Schemas shared by many routes: the error body, ids, pagination. Route files declare the rest.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply } from 'fastify';
import { ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';

/** Marks a response schema with the error names it stands for (read by src/http/openapi.ts). */
export const ERROR_NAMES_KEY = 'x-error-names';

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'Numeric error code; see GET /docs/errors', examples: [1201] }),
    name: Type.String({ description: 'The error name', examples: ['NOT_FOUND_MISSION'] }),
    message: Type.String({
      description: 'What went wrong, for people',
      examples: ["no mission 'daily-login' for this partner"],
    }),
  },
  { $id: 'ErrorBody', additionalProperties: true, description: 'The body of every error response.' },
);

type StatusOf<N extends ErrorName> = (typeof ERRORS)[N]['status'];

/**
 * The errors (catalog names) an operation may answer besides those every request and its scope can
 * give (src/http/openapi.ts adds those): one response per HTTP status, each naming its codes.
 */
export function errorResponses<N extends ErrorName>(...names: N[]): Record<StatusOf<N>, typeof ErrorBody> {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of names)
    byStatus.set(ERRORS[name].status, [...(byStatus.get(ERRORS[name].status) ?? []), name]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      Type.Object(ErrorBody.properties, {
        additionalProperties: true,
        description: group.join(', '),
        [ERROR_NAMES_KEY]: group,
      }),
    ]),
  ) as Record<StatusOf<N>, typeof ErrorBody>;
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

/** A decimal amount in whole units of an asset (e.g. 100.5). */
export const Decimal = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 120,
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description,
    examples: ['100.5'],
  });

/** limit and offset of the listings that take filters too. */
export const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
};

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
