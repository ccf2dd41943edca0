// Reward-wallet keys at rest: WALLET_KEK is validated at start-up, keys are AES-256-GCM encrypted
// and bound to their wallet's address, and production refuses to run without a KEK.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import {
  createPrivateKey,
  decryptPrivateKey,
  encryptPrivateKey,
  resolveWalletKek,
} from '../src/chain/signer.ts';

describe('WALLET_KEK configuration', () => {
  it('takes 32 bytes as hex or base64 and stops start-up naming WALLET_KEK otherwise', () => {
    expect(loadConfig({ WALLET_KEK: 'ab'.repeat(32) }).walletKek).toEqual(Buffer.alloc(32, 0xab));
    expect(loadConfig({ WALLET_KEK: Buffer.alloc(32, 7).toString('base64') }).walletKek).toEqual(
      Buffer.alloc(32, 7),
    );
    expect(loadConfig({}).walletKek).toBeUndefined();
    for (const bad of ['short', 'ab'.repeat(31), Buffer.alloc(16).toString('base64'), 'zz'.repeat(32)]) {
      expect(() => loadConfig({ WALLET_KEK: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ WALLET_KEK: bad })).toThrow(/WALLET_KEK/);
    }
  });
});

describe('private keys at rest', () => {
  const kek = Buffer.alloc(32, 1);

  it('round-trips, never contains the key in clear, and does not decrypt for another address or KEK', () => {
    const { privateKey, address } = createPrivateKey();
    const other = createPrivateKey();
    const sealed = encryptPrivateKey(kek, privateKey, address);
    expect(sealed).not.toContain(privateKey.slice(2));
    expect(Buffer.from(sealed.split(':').at(-1) ?? '', 'base64').toString('hex')).not.toContain(
      privateKey.slice(2),
    );
    expect(decryptPrivateKey(kek, sealed, address)).toBe(privateKey);
    expect(() => decryptPrivateKey(kek, sealed, other.address)).toThrow();
    expect(() => decryptPrivateKey(Buffer.alloc(32, 2), sealed, address)).toThrow();
  });

  it('uses a development KEK from the data dir with a warning, and none in production', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-kek-'));
    try {
      const warnings: string[] = [];
      const first = resolveWalletKek({ walletKek: undefined, nodeEnv: 'development', dataDir }, (m) =>
        warnings.push(m),
      );
      const again = resolveWalletKek({ walletKek: undefined, nodeEnv: 'development', dataDir }, (m) =>
        warnings.push(m),
      );
      expect(first).toHaveLength(32);
      expect(again).toEqual(first);
      expect(warnings[0]).toMatch(/WALLET_KEK is not set/);
      expect(readFileSync(path.join(dataDir, 'chain', 'wallet-kek.dev'), 'utf8')).toBe(first.toString('hex'));
      expect(() =>
        resolveWalletKek({ walletKek: undefined, nodeEnv: 'production', dataDir }, () => {}),
      ).toThrow(/WALLET_KEK/);
      expect(resolveWalletKek({ walletKek: kek, nodeEnv: 'production', dataDir }, () => {})).toBe(kek);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
