// Operator API: partners, their allow-list and redirect URLs, and their API keys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, sendEmpty, EXAMPLE, Id, ListQuery } from '../../http/schemas.ts';
import * as partners from '../service.ts';

const Cidrs = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 100,
  description: 'IPs or CIDRs allowed to call achieve',
});
const RedirectUrls = Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
  maxItems: 50,
  description: 'Exact URLs (scheme, host, port, path) the login may return to; the query may vary',
});
const Status = Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')], component('PartnerStatus'));
const Partner = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Status,
    allowedIps: Type.Array(Type.String()),
    redirectUrls: Type.Array(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('Partner'),
    examples: [
      {
        id: EXAMPLE.partnerId,
        name: 'Acme Games',
        status: 'ACTIVE',
        allowedIps: ['203.0.113.10', '198.51.100.0/24'],
        redirectUrls: ['https://partner.example/mini-app/return'],
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
      },
    ],
  },
);
const ApiKey = Type.Object(
  {
    id: Type.String(),
    partnerId: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
    createdAt: Type.String(),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('ApiKey'),
    examples: [
      {
        id: EXAMPLE.apiKeyId,
        partnerId: EXAMPLE.partnerId,
        name: 'game server',
        prefix: 'mrk_test_Qx7v',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
      },
    ],
  },
);
const NewApiKey = Type.Intersect(
  [
    ApiKey,
    Type.Object({ apiKey: Type.String({ description: 'The key itself: shown only in this answer' }) }),
  ],
  {
    ...component('NewApiKey'),
    examples: [
      {
        id: EXAMPLE.apiKeyId,
        partnerId: EXAMPLE.partnerId,
        name: 'game server',
        prefix: 'mrk_test_Qx7v',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
        apiKey: 'mrk_test_Qx7vL2mK9cTn4wRb8yPe1sZd6gHa3uJf0oVi5kXq7tCw2',
      },
    ],
  },
);
const PartnerParams = Type.Object({ partnerId: Id('Partner id') });
const tags = ['admin: partners'];
const security = [{ adminBearer: [] }];

export const partnerAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;

  app.post(
    '/partners',
    {
      schema: {
        tags,
        security,
        summary: 'Register a partner',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            allowedIps: Type.Optional(Cidrs),
            redirectUrls: Type.Optional(RedirectUrls),
          },
          {
            additionalProperties: false,
            examples: [
              {
                name: 'Acme Games',
                allowedIps: ['203.0.113.10', '198.51.100.0/24'],
                redirectUrls: ['https://partner.example/mini-app/return'],
              },
            ],
          },
        ),
        response: { 201: Partner, ...errorResponses() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await partners.createPartner(database.db, clock, request.body)),
  );

  app.get(
    '/partners',
    {
      schema: {
        tags,
        security,
        summary: 'List partners',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Partner) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await partners.listPartners(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );

  app.get(
    '/partners/:partnerId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a partner',
        params: PartnerParams,
        response: { 200: Partner, ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => partners.getPartner(database.db, request.params.partnerId),
  );

  app.patch(
    '/partners/:partnerId',
    {
      schema: {
        tags,
        security,
        summary: 'Change a partner (name, status, allow-list, redirect URLs)',
        params: PartnerParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            status: Type.Optional(Status),
            allowedIps: Type.Optional(Cidrs),
            redirectUrls: Type.Optional(RedirectUrls),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ allowedIps: ['203.0.113.10', '203.0.113.11'] }, { status: 'DISABLED' }],
          },
        ),
        response: { 200: Partner, ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => partners.updatePartner(database.db, clock, request.params.partnerId, request.body),
  );

  app.post(
    '/partners/:partnerId/api-keys',
    {
      schema: {
        tags,
        security,
        summary: 'Issue an API key; the key is shown only in this answer',
        params: PartnerParams,
        body: Type.Optional(
          Type.Object(
            { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
            { additionalProperties: false, examples: [{ name: 'game server' }] },
          ),
        ),
        response: {
          201: NewApiKey,
          ...errorResponses('NOT_FOUND_PARTNER'),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await partners.createApiKey(
            database.db,
            clock,
            request.params.partnerId,
            request.body?.name,
            app.deps.config.serviceEnvironment,
          ),
        ),
  );

  app.get(
    '/partners/:partnerId/api-keys',
    {
      schema: {
        tags,
        security,
        summary: "List a partner's API keys (never the keys themselves)",
        params: PartnerParams,
        response: { 200: Type.Object({ items: Type.Array(ApiKey) }), ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => ({ items: await partners.listApiKeys(database.db, request.params.partnerId) }),
  );

  app.delete(
    '/partners/:partnerId/api-keys/:keyId',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke an API key; it stops working at once',
        params: Type.Object({ partnerId: Id('Partner id'), keyId: Id('API key id') }),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_PARTNER', 'NOT_FOUND_API_KEY') },
      },
    },
    async (request, reply) => {
      await partners.revokeApiKey(database.db, clock, request.params.partnerId, request.params.keyId);
      return sendEmpty(reply, 204);
    },
  );
};
