// Cost of webhooks on achieve (docs/webhooks.md "Measured"): sequential completions of a FIXED
// reward by linked users, with no endpoint anywhere, with an endpoint of another partner only, and
// with a subscribed endpoint of this partner. Run: DATABASE_URL=... npx tsx bench/webhooks-hot-path.ts [n]
import { sql } from 'kysely';
import { linkUsers } from '../test/link-users.ts';
import { partnerCall, setupMission, startTestApp } from '../test/harness.ts';

const n = Number(process.argv[2] ?? 500);
const ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
const setup = await setupMission(ctx, { missionKey: 'm', recurrence: 'DAILY' });
const other = await setupMission(ctx, { missionKey: 'o', recurrence: 'DAILY' });
const assetId = (
  await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'P', name: 'P', decimals: 0 })
).json().id;
const budgetId = (
  await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'B', total: '100000000' })
).json().id;
await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
  type: 'FIXED',
  budgetId,
  amount: '1',
});

async function run(label: string) {
  const users = Array.from({ length: n }, (_, i) => `${label}-${i}`);
  await linkUsers(ctx, setup.partnerId, users);
  // warm up
  for (const u of users.slice(0, 20))
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: u, missionKey: 'm', completed: true },
    });
  const started = performance.now();
  for (const u of users.slice(20)) {
    const r = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: u, missionKey: 'm', completed: true },
    });
    if (r.statusCode !== 200) throw new Error(r.body);
  }
  const ms = (performance.now() - started) / (n - 20);
  // Made, or still in the outbox (docs/webhooks.md "The outbox").
  const messages = await sql<{ c: number }>`
    SELECT (SELECT count(*) FROM webhook_messages)
           + (SELECT coalesce(sum(cardinality(endpoint_ids)), 0) FROM webhook_outbox) AS c`
    .execute(ctx.database.db)
    .then((r) => r.rows[0]);
  console.log(
    `${label}: ${ms.toFixed(3)} ms per achieve (${n - 20} sequential), messages so far ${messages?.c}`,
  );
}

const endpoint = (partnerId: string) =>
  ctx.admin('POST', `/admin/v1/partners/${partnerId}/webhook-endpoints`, {
    url: 'http://127.0.0.1:9/hooks',
    events: ['mission.completed', 'claim.reserved', 'claim.requested'],
  });
await run('none');
await endpoint(other.partnerId);
await run('other');
await endpoint(setup.partnerId);
await run('subscribed');
if (process.env.REPEAT) await run('subscribed-again');
await ctx.close();
