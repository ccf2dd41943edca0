// Rotating the key-encryption key of reward-wallet keys (docs/operations.md, "Rotating keys and
// secrets"): every sealed key not yet under the current KEK is opened with a previous one and sealed
// again under the current, in one transaction. Safe to run again; it never reads out or logs a key.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { decryptPrivateKey, encryptPrivateKey, kekFingerprint } from './signer.ts';
import type { Address } from 'viem';
import { lockWalletKeys, setWalletKey } from './store.ts';

export interface RotationResult {
  /** Fingerprint of the KEK every wallet key is now sealed under. */
  kek: string;
  /** Wallet keys sealed again by this run. */
  resealed: number;
  /** Wallet keys that were already under the current KEK. */
  alreadyCurrent: number;
}

export async function resealWalletKeys(
  db: Kysely<DB>,
  kek: Buffer,
  previous: readonly Buffer[],
): Promise<RotationResult> {
  const fingerprint = kekFingerprint(kek);
  return db.transaction().execute(async (trx) => {
    // Locked, so a concurrent run (or a wallet import) waits instead of writing over this one.
    const wallets = await lockWalletKeys(trx);
    let resealed = 0;
    for (const wallet of wallets) {
      if (wallet.encrypted_key.startsWith(`v2:${fingerprint}:`)) continue;
      const key = decryptPrivateKey(kek, wallet.encrypted_key, wallet.address, previous);
      await setWalletKey(trx, wallet.id, encryptPrivateKey(kek, key, wallet.address as Address));
      resealed += 1;
    }
    return { kek: fingerprint, resealed, alreadyCurrent: wallets.length - resealed };
  });
}
