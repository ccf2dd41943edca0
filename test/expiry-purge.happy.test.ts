// Expired login states, mapping tokens (a day after expiry), sessions and wallet (SIWE) challenges
// are purged in bounded batches, live ones never; the timer that runs the purge stops with the app.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { purgeExpiredLoginData, startExpiredLoginPurge } from '../src/linking/expiry-purge.ts';
import { purgeExpiredChallenges as walletChallenges } from '../src/chain/user-wallets.ts';
import { createAccount, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { createLinkingPartner } from './login-helpers.ts';

let ctx: TestContext;
let partnerId: string;
let accountId: string;
const HOUR = 3600 * 1000;

beforeAll(async () => {
  ctx = await startTestApp();
  partnerId = (await createLinkingPartner(ctx)).partnerId;
  accountId = await createAccount(ctx);
});
afterAll(() => ctx.close());

const hash = () => randomBytes(32).toString('hex');

async function seed(now: Date) {
  const at = (ms: number) => new Date(now.getTime() + ms);
  const db = ctx.database.db;
  const state = (expiresAt: Date) => ({
    state_hash: hash(),
    purpose: 'SESSION' as const,
    partner_id: null,
    return_to: 'http://localhost/app',
    browser_type: 'WEB' as const,
    code_verifier: 'v',
    nonce: 'n',
    binding_hash: null,
    created_at: at(-2 * HOUR),
    expires_at: expiresAt,
  });
  await db
    .insertInto('login_states')
    .values([state(at(-HOUR)), state(at(-2 * 60_000)), state(at(-1)), state(at(HOUR))])
    .execute();
  const token = (expiresAt: Date, consumed: boolean) => ({
    token_hash: hash(),
    partner_id: partnerId,
    account_id: accountId,
    created_at: at(-72 * HOUR),
    expires_at: expiresAt,
    consumed_at: consumed ? at(-72 * HOUR) : null,
  });
  await db
    .insertInto('mapping_tokens')
    .values([
      token(at(-48 * HOUR), true),
      token(at(-25 * HOUR), false),
      token(at(-HOUR), true),
      token(at(HOUR), false),
    ])
    .execute();
  const session = (expiresAt: Date) => ({
    id_hash: hash(),
    account_id: accountId,
    created_at: at(-72 * HOUR),
    expires_at: expiresAt,
  });
  await db
    .insertInto('user_sessions')
    .values([session(at(-HOUR)), session(at(-1)), session(at(HOUR))])
    .execute();
  const challenge = (expiresAt: Date, used: boolean) => ({
    nonce: hash().slice(0, 17),
    account_id: accountId,
    address: '0x8ba1f109551bd432803012645ac136ddd64dba72',
    created_at: at(-2 * HOUR),
    expires_at: expiresAt,
    used_at: used ? at(-2 * HOUR) : null,
  });
  await db
    .insertInto('siwe_challenges')
    .values([challenge(at(-HOUR), true), challenge(at(-1), false), challenge(at(HOUR), false)])
    .execute();
}

const count = async (table: 'login_states' | 'mapping_tokens' | 'user_sessions' | 'siwe_challenges') =>
  Number(
    (
      await ctx.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function clear() {
  for (const table of ['login_states', 'mapping_tokens', 'user_sessions', 'siwe_challenges'] as const)
    await ctx.database.db.deleteFrom(table).execute();
}

describe('purgeExpiredLoginData', () => {
  it('deletes what expired, in bounded batches, and keeps what is live or still in its audit day', async () => {
    await clear();
    const now = ctx.clock.now();
    await seed(now);
    // One batch of two per table: bounded, the rest waits for the next run.
    expect(
      await purgeExpiredLoginData(ctx.database.db, now, { batchSize: 2, maxBatches: 1, walletChallenges }),
    ).toEqual({
      loginStates: 2,
      mappingTokens: 2,
      sessions: 2,
      siweChallenges: 2,
    });
    expect(
      await purgeExpiredLoginData(ctx.database.db, now, { batchSize: 2, maxBatches: 5, walletChallenges }),
    ).toEqual({
      loginStates: 1,
      mappingTokens: 0,
      sessions: 0,
      siweChallenges: 0,
    });
    expect(await count('login_states')).toBe(1);
    // The live token and the one that expired an hour ago (kept a day for the audit trail).
    expect(await count('mapping_tokens')).toBe(2);
    expect(await count('user_sessions')).toBe(1);
    expect(await count('siwe_challenges')).toBe(1);
    expect(await purgeExpiredLoginData(ctx.database.db, now, { walletChallenges })).toEqual({
      loginStates: 0,
      mappingTokens: 0,
      sessions: 0,
      siweChallenges: 0,
    });
  });
});

describe('startExpiredLoginPurge', () => {
  it('runs on its timer until stopped, and logs what it purged', async () => {
    await clear();
    await seed(ctx.clock.now());
    const lines: object[] = [];
    const log = { info: (obj: object) => lines.push(obj), warn: (obj: object) => lines.push(obj) };
    const purge = startExpiredLoginPurge(ctx.database.db, ctx.clock, {
      intervalMs: 20,
      log,
      walletChallenges,
    });
    try {
      // Until the run has logged: its deletes commit one by one before it returns (on a slow
      // database, such as a Citus cluster on a busy machine, the sessions' can be seen first).
      await vi.waitFor(
        async () => {
          expect(await count('user_sessions')).toBe(1);
          expect(lines.length).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 50 },
      );
      expect(await count('login_states')).toBe(1);
      expect(lines[0]).toEqual({
        purged: { loginStates: 3, mappingTokens: 2, sessions: 2, siweChallenges: 2 },
      });
    } finally {
      await purge.stop();
    }
    // Stopped: new expired rows stay.
    await seed(ctx.clock.now());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count('user_sessions')).toBe(4);
  });
});
