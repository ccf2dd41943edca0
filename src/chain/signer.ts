// Signing behind a small interface so that a KMS can replace the local key later, and the local
// key's protection at rest: AES-256-GCM under the key-encryption key, bound to the wallet address.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ConfigError } from '../config.ts';
import type { Config } from '../config.ts';

/** What the payout needs from a key: its address and signatures. Never exposes the key itself. */
export interface Signer {
  readonly address: Address;
  signTransaction(transaction: TransactionSerializableEIP1559): Promise<Hex>;
  signMessage(message: string): Promise<Hex>;
}

/** A signer over a private key held in this process's memory (decrypted from the database). */
export function localKeySigner(privateKey: Hex): Signer {
  const account = privateKeyToAccount(privateKey);
  return {
    address: account.address,
    signTransaction: (transaction) => account.signTransaction(transaction),
    signMessage: (message) => account.signMessage({ message }),
  };
}

/** A new private key from a cryptographically secure source, with its address. */
export function createPrivateKey(): { privateKey: Hex; address: Address } {
  const privateKey = generatePrivateKey();
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}

/** The address of an imported key; throws on anything that is not a 32-byte secp256k1 key. */
export function addressOfPrivateKey(privateKey: string): Address {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error('a private key is 0x and 64 hex digits');
  return privateKeyToAccount(privateKey as Hex).address;
}

/**
 * The format of a sealed key: `v2:<KEK fingerprint>:<base64 of iv, tag, ciphertext>`. The fingerprint
 * names the key-encryption key, so that during a rotation a process picks the right one of its keys
 * and says which it lacks. `v1:<base64>` (before rotation existed) still opens with any key held.
 */
const FORMAT = 'v2';

/** The public name of a key-encryption key: the first 12 hex digits of its SHA-256. */
export function kekFingerprint(kek: Buffer): string {
  return createHash('sha256').update(kek).digest('hex').slice(0, 12);
}

/**
 * Encrypts a private key under the key-encryption key. The address is authenticated data: a
 * ciphertext copied onto another wallet's row does not decrypt.
 */
export function encryptPrivateKey(kek: Buffer, privateKey: Hex, address: Address): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(address.toLowerCase()));
  const body = Buffer.concat([cipher.update(Buffer.from(privateKey.slice(2), 'hex')), cipher.final()]);
  return `${FORMAT}:${kekFingerprint(kek)}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

function openSealed(kek: Buffer, data: string, address: string): Hex {
  const bytes = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', kek, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(address.toLowerCase()));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const key = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
  return `0x${key.toString('hex')}`;
}

/**
 * Decrypts a sealed key with the current key-encryption key or one of the previous ones
 * (WALLET_KEK_PREVIOUS, during a rotation). Throws naming the fingerprint it lacks, never the key.
 */
export function decryptPrivateKey(
  kek: Buffer,
  encrypted: string,
  address: string,
  previous: readonly Buffer[] = [],
): Hex {
  const ring = [kek, ...previous];
  const parts = encrypted.split(':');
  if (parts[0] === 'v2' && parts.length === 3) {
    const wanted = parts[1];
    const match = ring.find((candidate) => kekFingerprint(candidate) === wanted);
    if (!match)
      throw new Error(
        `the wallet key of ${address} is encrypted under KEK ${wanted}; this process holds ${ring.map(kekFingerprint).join(', ')} (set WALLET_KEK_PREVIOUS during a rotation)`,
      );
    return openSealed(match, parts[2] as string, address);
  }
  if (parts[0] === 'v1' && parts.length === 2) {
    let failure: unknown;
    for (const candidate of ring) {
      try {
        return openSealed(candidate, parts[1] as string, address);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
  throw new Error('unknown wallet key format');
}

/**
 * The key-encryption key: WALLET_KEK, or in development one generated once into the data dir (with
 * a warning, since whoever reads that folder can decrypt the wallets). Production requires WALLET_KEK.
 */
export function resolveWalletKek(
  config: Pick<Config, 'walletKek' | 'nodeEnv' | 'dataDir'>,
  warn: (message: string) => void,
): Buffer {
  if (config.walletKek) return config.walletKek;
  if (config.nodeEnv === 'production')
    throw new ConfigError('WALLET_KEK', 'is required when NODE_ENV=production and chain payouts are used');
  const file = path.join(config.dataDir, 'chain', 'wallet-kek.dev');
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process of this data dir wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  warn(
    `WALLET_KEK is not set: reward-wallet keys are encrypted under a development key in ${file}; set WALLET_KEK in production`,
  );
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}
