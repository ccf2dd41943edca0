// Crash safety of the chain outbox (PostgreSQL: the worker is another process): a worker killed
// with SIGKILL after signing, after broadcasting, and after mining but before its confirm commit,
// then restarted, and two workers at once, leave on-chain balances equal to the CONFIRMED payouts,
// every nonce used once, and no transfer twice.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChainClaim } from '../src/chain/outbox.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';
import type { ChainBudget } from './chain/chain-fixture.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;
let budget: ChainBudget;

beforeAll(async () => {
  if (!onPostgres) return;
  [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
  budget = await chainBudget(ctx, chain, { decimals: 6 });
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

function startWorker(claims: ChainClaim[], holdAt?: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/chain/payout-worker-process.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      WALLET_KEK: TEST_KEK.toString('hex'),
      CHAIN_CLAIMS: JSON.stringify(claims),
      PAYOUT_HOLD_AT: holdAt ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const saw = async (text: string) => {
    for (let i = 0; i < 600 && !output.includes(text); i++) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return output.includes(text);
  };
  return { child, exited, saw, output: () => output };
}

async function makeClaims(prefix: string, count: number) {
  const users = await Promise.all(Array.from({ length: count }, () => userWithWallet(ctx, chain.chainId)));
  const claims = users.map((u, i) => ({
    claimId: `${prefix}_${i}`,
    budgetId: budget.budgetId,
    accountId: u.accountId,
    amount: String(100 + i),
  }));
  return { users, claims };
}

/** The invariant: each recipient holds exactly its claim, every payout is CONFIRMED once, and the wallet sent one transaction per nonce. */
async function expectPaidExactlyOnce(users: Array<{ address: `0x${string}` }>, claims: ChainClaim[]) {
  for (const [i, user] of users.entries())
    expect(await balanceOf(chain, budget.token, user.address)).toBe(BigInt(claims[i]?.amount ?? 0));
  const rows = await ctx.database.db
    .selectFrom('chain_payouts')
    .select(['claim_id', 'status'])
    .where('wallet_id', '=', budget.walletId)
    .execute();
  const mine = rows.filter((r) => claims.some((c) => c.claimId === r.claim_id));
  expect(mine).toHaveLength(claims.length);
  expect(mine.every((r) => r.status === 'CONFIRMED')).toBe(true);
  const nonces = await ctx.database.db
    .selectFrom('reward_wallet_nonces')
    .select('next_nonce')
    .where('wallet_id', '=', budget.walletId)
    .executeTakeFirstOrThrow();
  expect(await chain.client.getTransactionCount({ address: budget.walletAddress })).toBe(
    Number(nonces.next_nonce),
  );
  expect(rows).toHaveLength(Number(nonces.next_nonce));
}

describeUnless(needsPostgres('a killed worker process needs a database of its own'))(
  'a worker killed with SIGKILL, then restarted',
  () => {
    for (const step of ['signed', 'broadcast', 'mined'] as const) {
      it(`after ${step === 'mined' ? 'mining, before its confirm commit' : step === 'signed' ? 'signing, before broadcast' : 'broadcasting'}: every claim is paid exactly once`, async () => {
        const { users, claims } = await makeClaims(`crash_${step}`, 8);
        const first = startWorker(claims, step);
        expect(await first.saw(`HOLD ${step}`)).toBe(true);
        first.child.kill('SIGKILL');
        await first.exited;
        const rows = await ctx.database.db
          .selectFrom('chain_payouts')
          .select(['status'])
          .where(
            'claim_id',
            'in',
            claims.map((c) => c.claimId),
          )
          .execute();
        expect(rows).toHaveLength(8);
        // Killed before any payout's confirm committed: none is CONFIRMED yet, whatever the chain did.
        expect(rows.every((r) => r.status !== 'CONFIRMED')).toBe(true);
        const paidBefore = await balanceOf(chain, budget.token, users[0]?.address as `0x${string}`);
        expect(paidBefore).toBe(step === 'signed' ? 0n : 100n);
        const second = startWorker(claims);
        expect(await second.exited).toBe(0);
        await expectPaidExactlyOnce(users, claims);
      });
    }

    it('two workers at once on the same claims pay each claim once', async () => {
      const { users, claims } = await makeClaims('pair', 12);
      const [a, b] = [startWorker(claims), startWorker(claims)];
      expect([await a.exited, await b.exited]).toEqual([0, 0]);
      await expectPaidExactlyOnce(users, claims);
    });
  },
);
