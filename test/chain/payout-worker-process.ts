// A chain payout worker as its own process, for the crash tests: it hands its claims to the outbox
// (idempotent by claim id) and runs cycles until every claim's payout is CONFIRMED. With
// PAYOUT_HOLD_AT=signed|broadcast|mined it prints "HOLD <step>" there and waits to be killed.
import { openPostgres } from '../../src/db/connection.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { createChainPayout } from '../../src/chain/outbox.ts';
import type { ChainClaim, PayoutStep } from '../../src/chain/outbox.ts';

const database = openPostgres(process.env.DATABASE_URL as string, 4);
const claims = JSON.parse(process.env.CHAIN_CLAIMS as string) as ChainClaim[];
const holdAt = process.env.PAYOUT_HOLD_AT as PayoutStep | undefined;
const payout = createChainPayout({
  db: database.db,
  clock: systemClock,
  kek: Buffer.from(process.env.WALLET_KEK as string, 'hex'),
  rebroadcastAfterMs: 300,
  replaceAfterMs: 600_000,
  holdAt: async (step) => {
    if (step !== holdAt) return;
    process.stdout.write(`HOLD ${step}\n`);
    await new Promise(() => {});
  },
});

const deadline = Date.now() + 45_000;
const ids = claims.map((c) => c.claimId);
for (;;) {
  await payout.payClaims(claims);
  await payout.runCycle();
  const confirmed = await database.db
    .selectFrom('chain_payouts')
    .select('claim_id')
    .where('claim_id', 'in', ids)
    .where('status', '=', 'CONFIRMED')
    .execute();
  if (confirmed.length === ids.length) break;
  if (Date.now() > deadline) {
    process.stdout.write('TIMEOUT\n');
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write('DONE\n');
await database.close();
process.exit(0);
