// DELETE /admin/v1/partners/{partnerId}/users/{partnerUid}/mapping: unlink (the account and progress stay).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { unlink } from '../links.ts';
import { params, security, tags } from './mapping-schemas.ts';

export const unlinkUserRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.delete(
    '/partners/:partnerId/users/:partnerUid/mapping',
    {
      schema: {
        operationId: 'unlinkUser',
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
