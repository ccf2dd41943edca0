// Schemas shared by many routes: the error body, ids, pagination. Route files declare the rest.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply } from 'fastify';
import { ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';
import { groupBy } from '../domain/group-by.ts';

/** Marks a response schema with the error names it stands for (read by src/http/openapi.ts). */
export const ERROR_NAMES_KEY = 'x-error-names';

/** Marks a schema as the OpenAPI component `#/components/schemas/<name>` (src/http/openapi.ts). */
export const COMPONENT_KEY = 'x-component';

/**
 * The options that make a TypeBox schema a named component of the OpenAPI document, each use a
 * `$ref`: `Type.Object({...}, { ...component('Mission'), examples: [...] })`. Not `$id`: the route
 * validator (ajv) and serializer (fast-json-stringify) refuse a schema where one `$id` appears twice
 * ("reference resolves to more than one schema"), and a status enum or a Mission often does.
 */
export const component = (name: string) => ({ [COMPONENT_KEY]: name }) as const;

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
  const byStatus = groupBy(names, (name) => ERRORS[name].status);
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

/**
 * The values the OpenAPI examples share, so that one example's partner is the next one's partner
 * too. Ids have the real prefixes (src/domain/ids.ts); instants are ISO 8601 in UTC.
 */
export const EXAMPLE = {
  partnerId: 'ptn_Zq3vX9LmB2cT7rYk1sWd0A',
  apiKeyId: 'key_H4nR8pQe2wKc6tVy0bJm5g',
  adminId: 'adc_9LkT2vXq7bNc4mRw1yPe3Q',
  accountId: 'acc_Ue8rWq2mZt5nKc1vXb7LyA',
  promotionId: 'prm_N7cW2qLx9vRt4mKb8sYe1g',
  groupId: 'grp_B5tY8nKq3cLw7vXm2rPe9A',
  missionId: 'msn_R2mK7cXv4bLq9tNw1yZe6g',
  assetId: 'ast_K8vQ3nLc6tWm1xRb9yPe2A',
  budgetId: 'bdg_T6nW1qKx8cLm3vRb5yZe7g',
  claimId: 'clm_M3kX9vLq2tNc7wRb4yPe8A',
  drawId: 'drw_C9tL4nWq7vKm2xRb6yZe1g',
  ticketId: 'tkt_W1qK6cLx3vNm8tRb2yPe5A',
  rewardId: 'rwd_L5vN2qKc9tWm4xRb7yZe3g',
  networkId: 'net_Q7cK4vLm1tNw6xRb3yPe9A',
  walletId: 'rwl_X2nL8qKv5tWm9cRb1yZe4g',
  endpointId: 'whe_P4tW9nKq2cLm7vXb6yRe3A',
  messageId: 'msg_3f2c9a7e1b8d4c6fa0e5b9d7c2a4f6e8',
  partnerUid: 'user-1234',
  missionKey: 'daily-login',
  instant: '2026-11-24T09:00:00.000Z',
  later: '2026-11-24T09:05:00.000Z',
  wallet: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
} as const;
