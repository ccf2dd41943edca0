// GET /admin/v1/audit-events: the operator audit log, newest first, filtered. Read-only: the log
// has no route that changes it (and the database refuses UPDATE and DELETE of it).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { listAuditEvents } from '../service.ts';

const Action = Type.Union(
  [Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')],
  component('AuditAction'),
);
const Row = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

const AuditEvent = Type.Object(
  {
    id: Type.String(),
    at: Type.String({ description: 'ISO 8601' }),
    actor: Type.Object({ id: Type.String(), name: Type.String() }),
    action: Action,
    entityType: Type.String({ description: "e.g. 'partner', 'mission', 'budget'; see docs/audit.md" }),
    entityId: Type.String(),
    before: Row,
    after: Row,
    requestId: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('AuditEvent'),
    description: 'One operator write: who, what, and the row before and after',
    examples: [
      {
        id: '1042',
        at: EXAMPLE.later,
        actor: { id: EXAMPLE.adminId, name: 'ops: Jiwoo' },
        action: 'update',
        entityType: 'partner',
        entityId: EXAMPLE.partnerId,
        before: { status: 'ACTIVE' },
        after: { status: 'DISABLED' },
        requestId: '0b6d5c1e-8f4a-4a8e-9c1d-2f3e4a5b6c7d',
      },
    ],
  },
);

export const listAuditEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/audit-events',
    {
      schema: {
        operationId: 'listAuditEvents',
        tags: ['admin: audit'],
        security: [{ adminBearer: [] }],
        summary: 'The audit log of operator writes, newest first',
        querystring: Type.Object(
          {
            actorId: Type.Optional(Id('Only writes by this admin credential')),
            entityType: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
            action: Type.Optional(Action),
            since: Type.Optional(
              Type.String({ format: 'date-time', description: 'From this instant (inclusive)' }),
            ),
            until: Type.Optional(
              Type.String({ format: 'date-time', description: 'Before this instant (exclusive)' }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(AuditEvent), total: Type.Integer() }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      return listAuditEvents(database.db, filter, limit ?? 100, offset ?? 0);
    },
  );
};
