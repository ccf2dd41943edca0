// Refuses cross-site writes authenticated by a cookie (logout, /v1/me writes): a browser sends the
// session cookie with a form posted from any site (SameSite=Lax still allows top-level POSTs from
// same-site origins, and older browsers send it everywhere), so the request must say where it came from.
import type { FastifyRequest } from 'fastify';
import { crossSiteRequest } from '../error-factories.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * onRequest hook: a write must come from a page of our own origin (PUBLIC_BASE_URL). Browsers send
 * `Origin` on every POST and `Sec-Fetch-Site` on every request; each that is present must say
 * "ours", and one must be present: a request with neither is not from a browser page we served.
 */
export async function refuseCrossSiteWrite(request: FastifyRequest): Promise<void> {
  if (SAFE_METHODS.has(request.method)) return;
  const ours = new URL(request.server.deps.config.publicBaseUrl).origin;
  const origin = request.headers.origin;
  const fetchSite = request.headers['sec-fetch-site'];
  const originOk = origin === undefined || origin === ours;
  const fetchSiteOk = fetchSite === undefined || fetchSite === 'same-origin';
  if (!originOk || !fetchSiteOk || (origin === undefined && fetchSite === undefined)) {
    throw crossSiteRequest(ours);
  }
}
