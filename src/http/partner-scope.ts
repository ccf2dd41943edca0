// The partner scope (/v1): every route here needs X-Partner-Id and X-Api-Key; achieve also needs
// a source address in the partner's allow-list. The browser login routes are not in this scope.
import type { BlockList } from 'node:net';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  apiKeyWrongEnvironment,
  ipNotAllowed,
  partnerCredentialsInvalid,
  partnerCredentialsMissing,
  partnerDisabled,
} from '../error-factories.ts';
import { buildAllowList, isAddressAllowed } from '../domain/ip-allow-list.ts';

/** What the scope needs of an authenticated partner. */
export interface ScopePartner {
  id: string;
  allowed_ips: readonly string[];
}

/** How a partner's credentials checked out (partners/service.ts answers it). */
export type PartnerAuthentication =
  | { outcome: 'OK'; partner: ScopePartner }
  | { outcome: 'UNAUTHORIZED' }
  | { outcome: 'DISABLED' }
  /** The key's prefix names the other environment (docs/environments.md); checked before any lookup. */
  | { outcome: 'WRONG_ENVIRONMENT'; message: string };

export interface PartnerScopeOptions {
  authenticate(partnerId: string, apiKey: string): Promise<PartnerAuthentication>;
  routes: FastifyPluginAsync[];
  /** Routes that also need a source address in the partner's allow-list (achieve). */
  allowListedRoutes: FastifyPluginAsync[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated partner; set on every route of the partner scope. */
    partner: ScopePartner;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 256 ? value : undefined;
}

// Failed credentials are counted (per address, per partner id) and beyond their limit answer 429;
// a call that authenticates costs no counting of failures, only the partner's own limit.
async function requirePartner(
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: PartnerScopeOptions['authenticate'],
): Promise<void> {
  const { limits } = request.server;
  const partnerId = header(request, 'x-partner-id');
  const apiKey = header(request, 'x-api-key');
  if (partnerId === undefined || apiKey === undefined) {
    await limits.failedPartnerKey(request, reply, partnerId);
    throw partnerCredentialsMissing();
  }
  const result = await authenticate(partnerId, apiKey);
  if (result.outcome === 'UNAUTHORIZED') {
    await limits.failedPartnerKey(request, reply, partnerId);
    throw partnerCredentialsInvalid();
  }
  if (result.outcome === 'WRONG_ENVIRONMENT') {
    await limits.failedPartnerKey(request, reply, partnerId);
    throw apiKeyWrongEnvironment(result.message);
  }
  if (result.outcome === 'DISABLED') throw partnerDisabled(partnerId);
  request.partner = result.partner;
  await limits.partnerCall(request, reply);
}

/** A partner row's allow-list and the answers it gave, per client address text. */
interface AllowList {
  list: BlockList;
  answers: Map<string, boolean>;
}

/** Most answers kept per allow-list; past it they are forgotten and asked again. */
export const MAX_ALLOW_LIST_ANSWERS = 1024;

// Built once per partner row: the row is cached (src/cache/), so its list is too, and a changed
// allow-list comes with a new row (and no answers). A BlockList never changes once built, so its
// answer for an address is kept: BlockList.check builds a SocketAddress per call (2.4% of the
// busy time of achieve; docs/performance.md, "Fourth round: CPU per request").
const allowLists = new WeakMap<readonly string[], AllowList>();
function allowListOf(partner: ScopePartner): AllowList {
  let entry = allowLists.get(partner.allowed_ips);
  if (entry === undefined) {
    entry = { list: buildAllowList(partner.allowed_ips), answers: new Map() };
    allowLists.set(partner.allowed_ips, entry);
  }
  return entry;
}

/** Whether the partner's allow-list lets `ip` in: the list's own answer, kept per address. */
export function allowedByPartner(partner: ScopePartner, ip: string): boolean {
  const { list, answers } = allowListOf(partner);
  let allowed = answers.get(ip);
  if (allowed === undefined) {
    allowed = isAddressAllowed(list, ip);
    if (answers.size >= MAX_ALLOW_LIST_ANSWERS) answers.clear();
    answers.set(ip, allowed);
  }
  return allowed;
}

/** The client address comes from request.ip, which honours TRUST_PROXY and nothing else. */
async function requireAllowedIp(request: FastifyRequest): Promise<void> {
  if (!allowedByPartner(request.partner, request.ip)) {
    throw ipNotAllowed(request.ip);
  }
}

export async function partnerScope(app: FastifyInstance, options: PartnerScopeOptions): Promise<void> {
  app.decorateRequest('partner', null as unknown as ScopePartner);
  // Limited per partner (requirePartner), not by the per-address limit of credential-less routes.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, limitedBy: 'partner', scope: 'partner' };
  });
  app.addHook('onRequest', (request, reply) => requirePartner(request, reply, options.authenticate));
  for (const routes of options.routes) await app.register(routes);
  await app.register(async (ipScope) => {
    ipScope.addHook('onRequest', requireAllowedIp);
    for (const routes of options.allowListedRoutes) await ipScope.register(routes);
  });
}
