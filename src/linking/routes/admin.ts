// Operator API: a partner user's mapping and platform account; removing a mapping (unlink).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, PartnerUid, sendEmpty } from '../../http/schemas.ts';
import { getPartner } from '../../partners/service.ts';
import { mappingNotFound } from '../../error-factories.ts';
import { linkedUserView } from '../find-users.ts';
import { deleteMapping, findMappingWithAccount } from '../store.ts';

/** A linked user as operators see it: the mapping and its platform account. */
export const Mapping = Type.Object({
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
});
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
        response: { 200: Mapping, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { partnerId, partnerUid } = request.params;
      await getPartner(database.db, partnerId);
      const row = await findMappingWithAccount(database.db, partnerId, partnerUid);
      if (!row) throw mappingNotFound(partnerUid);
      return linkedUserView(row);
    },
  );

  app.delete(
    '/partners/:partnerId/users/:partnerUid/mapping',
    {
      schema: {
        tags,
        security,
        summary: 'Unlink: remove the mapping (the account and progress stay; the user may link again)',
        params,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { partnerId, partnerUid } = request.params;
      await getPartner(database.db, partnerId);
      const removed = await deleteMapping(database.db, partnerId, partnerUid, app.deps.clock.now());
      if (!removed) throw mappingNotFound(partnerUid);
      request.log.info(
        { partnerId, partnerUid, accountId: removed.account_id, admin: request.admin.id },
        'user mapping removed',
      );
      return sendEmpty(reply, 204);
    },
  );
};
