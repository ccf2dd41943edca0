// The partner scope (/v1): every route here needs X-Partner-Id and X-Api-Key; achieve also needs
// a source address in the partner's allow-list. The browser login routes are not in this scope.
import type { BlockList } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError } from '../errors.ts';
import type { PartnerRow } from '../partners/store.ts';
import { authenticatePartner } from '../partners/service.ts';
import { findPartnerCredentials } from '../partners/store.ts';
import { buildAllowList, isAddressAllowed } from '../domain/ip-allow-list.ts';
import { checkLinkRoute } from '../linking/routes/checkLink.ts';
import { achieveRoute } from '../progress/routes/achieve.ts';
import { connectRoute } from '../linking/routes/connect.ts';
import { releaseWaitingClaims } from '../rewards/claims.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated partner; set on every route of the partner scope. */
    partner: PartnerRow;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 256 ? value : undefined;
}

async function requirePartner(request: FastifyRequest): Promise<void> {
  const partnerId = header(request, 'x-partner-id');
  const apiKey = header(request, 'x-api-key');
  if (partnerId === undefined || apiKey === undefined) {
    throw appError('PARTNER_UNAUTHORIZED', 'send the X-Partner-Id and X-Api-Key headers');
  }
  const { database, caches } = request.server.deps;
  const result = await authenticatePartner(database.db, partnerId, apiKey, (db, id) =>
    caches.partners.get(id, () => findPartnerCredentials(db, id)),
  );
  if (result.outcome === 'UNAUTHORIZED') throw appError('PARTNER_UNAUTHORIZED', 'invalid partner id or API key');
  if (result.outcome === 'DISABLED') throw appError('PARTNER_DISABLED', `partner '${partnerId}' is disabled`);
  request.partner = result.partner;
}

// Built once per partner row: the row is cached (src/cache/), so its list is too, and a changed
// allow-list comes with a new row.
const allowLists = new WeakMap<readonly string[], BlockList>();
function allowListOf(partner: PartnerRow): BlockList {
  let list = allowLists.get(partner.allowed_ips);
  if (list === undefined) {
    list = buildAllowList(partner.allowed_ips);
    allowLists.set(partner.allowed_ips, list);
  }
  return list;
}

/** The client address comes from request.ip, which honours TRUST_PROXY and nothing else. */
async function requireAllowedIp(request: FastifyRequest): Promise<void> {
  const allowed = isAddressAllowed(allowListOf(request.partner), request.ip);
  if (!allowed) {
    throw appError('IP_NOT_ALLOWED', `address ${request.ip} is not in this partner's allow-list for achieve`);
  }
}

export async function partnerScope(app: FastifyInstance): Promise<void> {
  app.decorateRequest('partner', null as unknown as PartnerRow);
  app.addHook('onRequest', requirePartner);
  await app.register(checkLinkRoute);
  await app.register(connectRoute([releaseWaitingClaims(app.deps.clock)]));
  await app.register(async (ipScope) => {
    ipScope.addHook('onRequest', requireAllowedIp);
    await ipScope.register(achieveRoute);
  });
}
