// The end user's wallet: bound by signing a one-time Sign-In with Ethereum (EIP-4361) challenge;
// rebinding is allowed and every binding is kept in user_wallet_events. A signature is checked as
// wallets really make it (docs/wallets.md): an account key's under Ethereum's EIP-191 prefix or
// Kaia's KIP-97 prefix, checked here without the network; a contract wallet's by asking the
// contract (EIP-1271), where a network that does not answer is an outage (3602), not a bad signature.
import {
  BaseError,
  concat,
  getAddress,
  hashMessage,
  HttpRequestError,
  keccak256,
  recoverAddress,
  stringToBytes,
  TimeoutError,
} from 'viem';
import type { Address, Hex, PublicClient } from 'viem';
import { createSiweMessage, generateSiweNonce, parseSiweMessage } from 'viem/siwe';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import type { WalletConnectorConfig } from '../config.ts';
import {
  chainNetworkNotFoundForChainId,
  contractWalletUnverifiable,
  noChainNetworkConfigured,
  siweChallengeInvalid,
  siweSignatureInvalid,
  userWalletNotFound,
  walletChallengesExhausted,
} from '../error-factories.ts';
import type { Because } from '../error-factories.ts';
import { refuseSharedAddress } from '../budgets/payout-addresses.ts';
import { rpcClient } from './rpc.ts';
import { normalizeAddress } from './service.ts';
import {
  deleteChallenges,
  deleteExpiredChallenges,
  findChallenge,
  findUserWallet,
  firstNetwork,
  firstNetworkChainId,
  insertChallenge,
  insertWalletEvent,
  liveChallengesOfOthers,
  lockChallengeIssuing,
  lockUserWallet,
  ownLiveChallengesBeyond,
  upsertUserWallet,
  useChallenge,
} from './wallet-store.ts';

/** How long a challenge may wait for its signature. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
/** Live challenges one account may hold; a new one beyond this replaces the account's oldest. */
export const MAX_CHALLENGES_PER_ACCOUNT = 5;
/**
 * Live challenges one address may hold across accounts; beyond this a new one is refused (3613)
 * until some expire, so that other accounts cannot push out the owner's own challenge.
 */
export const MAX_CHALLENGES_PER_ADDRESS = 20;

export interface SiweSite {
  /** Host (and port) of the service, the message's `domain`. */
  domain: string;
  /** The service's public base URL, the message's `uri`. */
  uri: string;
}

export function siweSiteOf(publicBaseUrl: string): SiweSite {
  return { domain: new URL(publicBaseUrl).host, uri: publicBaseUrl };
}

async function networkForChain(db: Kysely<DB>, chainId: number | undefined) {
  const network = await firstNetwork(db, chainId);
  if (!network)
    throw chainId === undefined ? noChainNetworkConfigured() : chainNetworkNotFoundForChainId(chainId);
  return network;
}

/** A one-time challenge for this account and address, as the EIP-4361 message to sign. */
export async function issueChallenge(
  db: Kysely<DB>,
  clock: Clock,
  site: SiweSite,
  input: { accountId: string; address: string; chainId?: number },
) {
  const address = getAddress(normalizeAddress(input.address));
  const network = await networkForChain(db, input.chainId);
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const nonce = generateSiweNonce();
  const lowerAddress = address.toLowerCase();
  const message = createSiweMessage({
    domain: site.domain,
    address,
    statement: 'Bind this wallet to my reward account to receive rewards.',
    uri: site.uri,
    version: '1',
    chainId: Number(network.chain_id),
    nonce,
    issuedAt: now,
    expirationTime: expiresAt,
  });
  await db.transaction().execute(async (trx) => {
    // The bounds hold across processes: issuing for one account, or one address, is serialized.
    await lockChallengeIssuing(trx, input.accountId, lowerAddress);
    const forAddress = await liveChallengesOfOthers(trx, now, lowerAddress, input.accountId);
    if (Number(forAddress.n) >= MAX_CHALLENGES_PER_ADDRESS) throw walletChallengesExhausted();
    // The account's own oldest make room: a user who asks again never locks themselves out.
    const own = await ownLiveChallengesBeyond(trx, now, input.accountId, MAX_CHALLENGES_PER_ACCOUNT - 1);
    await deleteChallenges(
      trx,
      own.map((row) => row.nonce),
    );
    await insertChallenge(trx, {
      nonce,
      account_id: input.accountId,
      address: lowerAddress,
      expires_at: expiresAt,
      used_at: null,
      created_at: now,
    });
  });
  return { message, nonce, expiresAt: expiresAt.toISOString() };
}

/** The hash Kaia's KIP-97 `personal_sign` signs (legacy Kaia Wallet / Kaikas, `klay_sign`). */
export function kip97Hash(message: string): Hex {
  const bytes = stringToBytes(message);
  return keccak256(concat([stringToBytes(`\x19Klaytn Signed Message:\n${bytes.length}`), bytes]));
}

const ERC1271_MAGIC = '0x1626ba7e';
const erc1271Abi = [
  {
    type: 'function',
    name: 'isValidSignature',
    stateMutability: 'view',
    inputs: [
      { name: 'hash', type: 'bytes32' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [{ name: '', type: 'bytes4' }],
  },
] as const;

async function recovered(hash: Hex, signature: Hex): Promise<string | undefined> {
  try {
    return (await recoverAddress({ hash, signature })).toLowerCase();
  } catch {
    return undefined; // not a 65-byte ECDSA signature: perhaps a contract wallet's
  }
}

/** The node did not answer (or not in time), as opposed to answering "no". */
function isOutage(error: unknown): boolean {
  if (error instanceof BaseError)
    return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError));
  return false;
}

/**
 * Whether `address` signed `message`: an account key under the EIP-191 or the KIP-97 prefix
 * (no network needed), else a contract at the address that accepts it by EIP-1271. Throws 3602
 * when the network must be asked and does not answer.
 */
export async function signatureIsValid(
  client: () => PublicClient,
  address: Address,
  message: string,
  signature: Hex,
): Promise<boolean> {
  const hashes = [hashMessage(message), kip97Hash(message)];
  for (const hash of hashes) if ((await recovered(hash, signature)) === address.toLowerCase()) return true;
  const rpc = client();
  let code: Hex | undefined;
  try {
    code = await rpc.getCode({ address });
  } catch (error) {
    throw contractWalletUnverifiable({ cause: error });
  }
  // No code: an account key, and its signature did not recover to it.
  if (!code || code === '0x') return false;
  for (const hash of hashes) {
    try {
      const answer = await rpc.readContract({
        address,
        abi: erc1271Abi,
        functionName: 'isValidSignature',
        args: [hash, signature],
      });
      if (answer.toLowerCase() === ERC1271_MAGIC) return true;
    } catch (error) {
      // A revert or an answer that is not bytes4 is the contract saying no; silence is an outage.
      if (isOutage(error)) throw contractWalletUnverifiable({ cause: error });
    }
  }
  return false;
}

/** Deletes challenges past their expiry (used or not: the binding event keeps the nonce). */
export async function purgeExpiredChallenges(db: Kysely<DB>, now: Date, limit: number): Promise<number> {
  return deleteExpiredChallenges(db, now, limit);
}

/** What the mission page may offer to connect a wallet (docs/wallets.md). */
export async function walletConnectors(db: Kysely<DB>, config: WalletConnectorConfig) {
  const network = await firstNetworkChainId(db);
  return {
    chainId: network ? Number(network.chain_id) : null,
    injected: true,
    miniDapp: config.miniDapp ?? null,
    devWallet: config.devWallet,
  };
}

export interface UserWalletView {
  address: string;
  chainId: number;
  boundAt: string;
}

/** Binds (or rebinds) the wallet that signed the challenge; the challenge is used up. */
export async function bindWallet(
  db: Kysely<DB>,
  clock: Clock,
  site: SiweSite,
  accountId: string,
  input: { message: string; signature: string },
  /** PAYOUT_ADDRESS_ONE_ACCOUNT: refuse an address another account has bound (3510). */
  options: { oneAccountPerAddress?: boolean } = {},
): Promise<UserWalletView> {
  const invalid = (why: string, because?: Because) => siweChallengeInvalid(why, because);
  let parsed: ReturnType<typeof parseSiweMessage>;
  try {
    parsed = parseSiweMessage(input.message);
  } catch (error) {
    throw invalid('the message is not an EIP-4361 message', { cause: error });
  }
  if (!parsed.nonce || !parsed.address || parsed.chainId === undefined)
    throw invalid('the message lacks its nonce, address or chain id');
  const challenge = await findChallenge(db, parsed.nonce);
  const now = clock.now();
  if (!challenge || challenge.account_id !== accountId) throw invalid('this challenge was not issued to you');
  if (challenge.used_at !== null) throw invalid('this challenge was used already; ask for a new one');
  if (challenge.expires_at.getTime() <= now.getTime())
    throw invalid('this challenge has expired; ask for a new one');
  if (challenge.address !== parsed.address.toLowerCase())
    throw invalid('the message names another address than the challenge');
  if (parsed.domain !== site.domain || parsed.uri !== site.uri)
    throw invalid('the message is for another site');
  if (parsed.expirationTime && parsed.expirationTime.getTime() <= now.getTime())
    throw invalid('this challenge has expired; ask for a new one');
  const network = await networkForChain(db, parsed.chainId);
  const valid = await signatureIsValid(
    () => rpcClient(network),
    getAddress(parsed.address),
    input.message,
    input.signature as Hex,
  );
  if (!valid) throw siweSignatureInvalid();
  const address = parsed.address.toLowerCase();
  await db.transaction().execute(async (trx) => {
    // The guard makes the challenge single-use even when two binds race.
    const used = await useChallenge(trx, challenge.nonce, now);
    if (!used) throw invalid('this challenge was used already; ask for a new one');
    if (options.oneAccountPerAddress) await refuseSharedAddress(trx, address, accountId);
    const previous = await lockUserWallet(trx, accountId);
    await upsertUserWallet(trx, {
      account_id: accountId,
      address,
      chain_id: Number(network.chain_id),
      bound_at: now,
    });
    await insertWalletEvent(trx, {
      account_id: accountId,
      address,
      previous_address: previous?.address ?? null,
      challenge_nonce: challenge.nonce,
      at: now,
    });
  });
  return { address: getAddress(address), chainId: Number(network.chain_id), boundAt: now.toISOString() };
}

export async function currentWallet(db: Kysely<DB>, accountId: string): Promise<UserWalletView> {
  const row = await findUserWallet(db, accountId);
  if (!row) throw userWalletNotFound();
  return {
    address: getAddress(row.address),
    chainId: Number(row.chain_id),
    boundAt: row.bound_at.toISOString(),
  };
}
