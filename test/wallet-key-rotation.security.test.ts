// Rotating WALLET_KEK: keys sealed under the old key are resealed under the new one in one run (safe
// to repeat); during the rotation a process holding the new key and WALLET_KEK_PREVIOUS still pays;
// afterwards the old key opens nothing; no error or result ever carries a private key.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { loadConfig, ConfigError } from '../src/config.ts';
import { createChainPayout } from '../src/chain/outbox.ts';
import {
  createPrivateKey,
  decryptPrivateKey,
  encryptPrivateKey,
  kekFingerprint,
} from '../src/chain/signer.ts';
import { resealWalletKeys } from '../src/chain/wallet-key-rotation.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';

describe('sealed keys name their key-encryption key', () => {
  const oldKek = Buffer.alloc(32, 1);
  const newKek = Buffer.alloc(32, 2);

  it('opens with the key it names among those held, and says which one it lacks without the key', () => {
    const { privateKey, address } = createPrivateKey();
    const sealed = encryptPrivateKey(oldKek, privateKey, address);
    expect(sealed.startsWith(`v2:${kekFingerprint(oldKek)}:`)).toBe(true);
    expect(decryptPrivateKey(newKek, sealed, address, [oldKek])).toBe(privateKey);
    let message = '';
    try {
      decryptPrivateKey(newKek, sealed, address);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(kekFingerprint(oldKek));
    expect(message).toContain(kekFingerprint(newKek));
    expect(message).not.toContain(privateKey.slice(2));
  });

  it('still opens keys sealed before fingerprints (v1) with any key held', () => {
    const { privateKey, address } = createPrivateKey();
    const sealed = encryptPrivateKey(oldKek, privateKey, address);
    const legacy = `v1:${sealed.split(':')[2]}`;
    expect(decryptPrivateKey(newKek, legacy, address, [oldKek])).toBe(privateKey);
    expect(() => decryptPrivateKey(newKek, legacy, address)).toThrow();
  });

  it('WALLET_KEK_PREVIOUS takes a comma list of keys and stops start-up naming itself on a bad one', () => {
    expect(loadConfig({}).walletKekPrevious).toEqual([]);
    expect(
      loadConfig({ WALLET_KEK_PREVIOUS: `${'ab'.repeat(32)}, ${Buffer.alloc(32, 7).toString('base64')}` })
        .walletKekPrevious,
    ).toEqual([Buffer.alloc(32, 0xab), Buffer.alloc(32, 7)]);
    expect(() => loadConfig({ WALLET_KEK_PREVIOUS: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ WALLET_KEK_PREVIOUS: 'short' })).toThrow(/WALLET_KEK_PREVIOUS/);
  });
});

describe('a rotation of WALLET_KEK on a live payout', () => {
  let ctx: TestContext;
  let chain: Awaited<ReturnType<typeof startTestChain>>;
  beforeAll(async () => {
    [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
  });
  afterAll(async () => {
    await ctx?.close();
    await chain?.cleanup();
  });

  it('reseals every wallet key once; the new key pays, the old one no longer opens anything', async () => {
    const newKek = randomBytes(32);
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const user = await userWithWallet(ctx, chain.chainId);
    const payWith = async (kek: Buffer, previousKeks: Buffer[], claimId: string) => {
      const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek, previousKeks });
      await payout.payClaims([
        { claimId, budgetId: budget.budgetId, accountId: user.accountId, amount: '5' },
      ]);
      for (let i = 0; i < 20; i++) if ((await payout.runCycle()).length > 0) break;
    };
    const sealed = async () =>
      (
        await ctx.database.db
          .selectFrom('reward_wallets')
          .select('encrypted_key')
          .where('id', '=', budget.walletId)
          .executeTakeFirstOrThrow()
      ).encrypted_key;

    // Before: only the new key is not enough; with the old one as previous, it pays.
    await expect(payWith(newKek, [], 'clm_rot_refused')).rejects.toThrow(kekFingerprint(TEST_KEK));
    await payWith(newKek, [TEST_KEK], 'clm_rot_during');
    expect(await balanceOf(chain, budget.token, user.address)).toBe(5n);

    const first = await resealWalletKeys(ctx.database.db, newKek, [TEST_KEK]);
    expect(first).toMatchObject({ kek: kekFingerprint(newKek), alreadyCurrent: 0 });
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(await sealed()).toMatch(new RegExp(`^v2:${kekFingerprint(newKek)}:`));
    const again = await resealWalletKeys(ctx.database.db, newKek, [TEST_KEK]);
    expect(again).toEqual({ kek: kekFingerprint(newKek), resealed: 0, alreadyCurrent: first.resealed });

    // After: the new key alone pays; the old key alone opens nothing.
    await payWith(newKek, [], 'clm_rot_after');
    expect(await balanceOf(chain, budget.token, user.address)).toBe(10n);
    await expect(payWith(TEST_KEK, [], 'clm_rot_old')).rejects.toThrow(kekFingerprint(newKek));
    expect(await balanceOf(chain, budget.token, user.address)).toBe(10n);
    expect(JSON.stringify([first, again])).not.toMatch(/0x[0-9a-f]{64}/i);
  });

  it('a key it cannot open stops the run and changes nothing', async () => {
    const before = await ctx.database.db
      .selectFrom('reward_wallets')
      .select(['id', 'encrypted_key'])
      .orderBy('id')
      .execute();
    await expect(resealWalletKeys(ctx.database.db, randomBytes(32), [])).rejects.toThrow(
      /encrypted under KEK/,
    );
    const after = await ctx.database.db
      .selectFrom('reward_wallets')
      .select(['id', 'encrypted_key'])
      .orderBy('id')
      .execute();
    expect(after).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
    expect((before[0]?.encrypted_key ?? '') as Hex).toMatch(/^v2:/);
  });
});
