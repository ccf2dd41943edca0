// Operator API: partners, their allow-list and redirect URLs, and their API keys. One file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { createPartnerRoute } from './createPartner.ts';
import { listPartnersRoute } from './listPartners.ts';
import { getPartnerRoute } from './getPartner.ts';
import { updatePartnerRoute } from './updatePartner.ts';
import { createApiKeyRoute } from './createApiKey.ts';
import { listApiKeysRoute } from './listApiKeys.ts';
import { revokeApiKeyRoute } from './revokeApiKey.ts';

/** Registers every operation of this folder. */
export const partnerAdminRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    createPartnerRoute,
    listPartnersRoute,
    getPartnerRoute,
    updatePartnerRoute,
    createApiKeyRoute,
    listApiKeysRoute,
    revokeApiKeyRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};
