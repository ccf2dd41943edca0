// Operator API: promotions, mission groups and missions. One file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { createPromotionRoute } from './createPromotion.ts';
import { listPromotionsRoute } from './listPromotions.ts';
import { getPromotionRoute } from './getPromotion.ts';
import { updatePromotionRoute } from './updatePromotion.ts';
import { createMissionGroupRoute } from './createMissionGroup.ts';
import { listMissionGroupsRoute } from './listMissionGroups.ts';
import { getMissionGroupRoute } from './getMissionGroup.ts';
import { updateMissionGroupRoute } from './updateMissionGroup.ts';
import { createMissionRoute } from './createMission.ts';
import { listMissionsRoute } from './listMissions.ts';
import { getMissionRoute } from './getMission.ts';
import { updateMissionRoute } from './updateMission.ts';

/** Registers every operation of this folder. */
export const catalogAdminRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    createPromotionRoute,
    listPromotionsRoute,
    getPromotionRoute,
    updatePromotionRoute,
    createMissionGroupRoute,
    listMissionGroupsRoute,
    getMissionGroupRoute,
    updateMissionGroupRoute,
    createMissionRoute,
    listMissionsRoute,
    getMissionRoute,
    updateMissionRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};
