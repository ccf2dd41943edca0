// Operator API: a partner user's mapping and platform account; removing a mapping (unlink).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id, PartnerUid, sendEmpty } from '../../http/schemas.ts';
import { mappingWithAccount, unlink } from '../service.ts';

/** A linked user as operators see it: the mapping and its platform account. */
export const Mapping = Type.Object(
  {
    partnerId: Type.String(),
    partnerUid: Type.String(),
    region: Type.String(),
    linkedAt: Type.String(),
    account: Type.Object({
      id: Type.String(),
      issuer: Type.String(),
      subject: Type.String({ description: "The login provider's user id (LINE: the user's LINE id)" }),
      displayName: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
    }),
  },
  {
    ...component('Mapping'),
    description: 'A linked user: the mapping of a partner user to a platform account, with the account',
    examples: [
      {
        partnerId: EXAMPLE.partnerId,
        partnerUid: EXAMPLE.partnerUid,
        region: 'KR',
        linkedAt: EXAMPLE.later,
        account: {
          id: EXAMPLE.accountId,
          issuer: 'https://access.line.me',
          subject: 'U4af4980629a1b2c3d4e5f60718293a4b',
          displayName: 'Minji',
          createdAt: EXAMPLE.instant,
        },
      },
    ],
  },
);
const params = Type.Object({ partnerId: Id('Partner id'), partnerUid: PartnerUid });
const tags = ['admin: users'];
const security = [{ adminBearer: [] }];

export const linkingAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;

  app.get(
    '/partners/:partnerId/users/:partnerUid/mapping',
    {
      schema: {
        tags,
        security,
        summary: "A partner user's mapping and platform account",
        params,
        response: { 200: Mapping, ...errorResponses('NOT_FOUND_PARTNER', 'NOT_FOUND_MAPPING') },
      },
    },
    async (request) => mappingWithAccount(database.db, request.params.partnerId, request.params.partnerUid),
  );

  app.delete(
    '/partners/:partnerId/users/:partnerUid/mapping',
    {
      schema: {
        tags,
        security,
        summary: 'Unlink: remove the mapping (the account and progress stay; the user may link again)',
        params,
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_PARTNER', 'NOT_FOUND_MAPPING') },
      },
    },
    async (request, reply) => {
      const { partnerId, partnerUid } = request.params;
      const { accountId } = await unlink(database.db, app.deps.clock, partnerId, partnerUid);
      request.log.info({ partnerId, partnerUid, accountId, admin: request.admin.id }, 'user mapping removed');
      return sendEmpty(reply, 204);
    },
  );
};
