// The webhook operator routes (/admin/v1), one file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { createEndpointRoute } from './createEndpoint.ts';
import { listEndpointsRoute } from './listEndpoints.ts';
import { getEndpointRoute } from './getEndpoint.ts';
import { updateEndpointRoute } from './updateEndpoint.ts';
import { rollEndpointSecretRoute } from './rollEndpointSecret.ts';
import { listMessagesRoute } from './listMessages.ts';
import { getMessageRoute } from './getMessage.ts';
import { resendMessageRoute } from './resendMessage.ts';

export const webhookAdminRoutes = [
  createEndpointRoute,
  listEndpointsRoute,
  getEndpointRoute,
  updateEndpointRoute,
  rollEndpointSecretRoute,
  listMessagesRoute,
  getMessageRoute,
  resendMessageRoute,
] as FastifyPluginAsync[];
