// Registering a webhook endpoint through the admin API, as the webhook tests do before anything else,
// and emptying the outbox between a delivery test's cases.
import { expect } from 'vitest';
import { sql } from 'kysely';
import type { TestContext } from '../harness.ts';

/** Forgets every message and attempt: each delivery test starts from an empty outbox. */
export async function emptyOutbox(ctx: Pick<TestContext, 'database'>): Promise<void> {
  await sql`DELETE FROM webhook_attempts`.execute(ctx.database.db);
  await sql`DELETE FROM webhook_outbox`.execute(ctx.database.db);
  await sql`DELETE FROM webhook_messages`.execute(ctx.database.db);
}

/** An endpoint of `partnerId` for `events` at `url` (201 expected): its id and its whsec_ secret. */
export async function registerEndpoint(
  ctx: Pick<TestContext, 'admin'>,
  partnerId: string,
  url: string,
  events: string[],
): Promise<{ id: string; secret: string }> {
  const created = await ctx.admin('POST', `/admin/v1/partners/${partnerId}/webhook-endpoints`, {
    url,
    events,
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json() as { id: string; secret: string };
}
