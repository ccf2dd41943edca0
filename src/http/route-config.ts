// The facts a route declares about itself, in its own definition (docs/architecture.md, "Adding a
// route"): beside `schema.operationId` (read by @fastify/swagger), these `config` fields, typed once
// here for every route. Nothing keyed by URL elsewhere repeats them.
import type { AdminRole } from '../db/schema.ts';

/**
 * How a POST route treats an Idempotency-Key (docs/idempotency.md). `keyed`: takes the header.
 * `in-statement`: takes the header, and the handler claims the key itself (deferredKeyOf), in its
 * own statement where it can. `refused`: its answer carries a secret shown once, which is never
 * stored, so it cannot be replayed: the header is refused rather than silently ignored.
 */
export type IdempotencyMode = 'keyed' | 'in-statement' | 'refused';

/** The credentials a route needs: the scope (src/http/*-scope.ts) that registered it, or none. */
export type RouteScope = 'admin' | 'partner' | 'user' | 'open';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Least role a route of the admin scope needs; by default VIEWER to read, OPERATOR to write. */
    minRole?: AdminRole;
    /** A POST route that takes (or refuses) an Idempotency-Key; absent: the header is ignored. */
    idempotency?: IdempotencyMode;
    /**
     * Set by the scope that registers the route (admin, partner, user), never by the route: the
     * document's credentials and errors follow where the route really is. Absent: open.
     */
    scope?: Exclude<RouteScope, 'open'>;
  }
}
