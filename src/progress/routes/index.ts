// Operator API: a user's progress records, one file per operation. (The partner's achieve registers
// in the partner scope's allow-listed part: src/app.ts.)
import type { FastifyPluginAsync } from 'fastify';
import { getUserProgressRoute } from './getUserProgress.ts';

/** Registers the progress operations of the operator API. */
export const progressAdminRoutes: FastifyPluginAsync = async (app) => {
  await app.register(getUserProgressRoute as FastifyPluginAsync);
};
