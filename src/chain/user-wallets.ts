// The end user's wallet: bound by signing a one-time Sign-In with Ethereum (EIP-4361) challenge,
// verified by viem/siwe; rebinding is allowed and every binding is kept in user_wallet_events.
import { getAddress } from 'viem';
import type { Address, Hex } from 'viem';
import { createSiweMessage, generateSiweNonce, parseSiweMessage, verifySiweMessage } from 'viem/siwe';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import {
  chainNetworkNotFoundForChainId,
  noChainNetworkConfigured,
  siweChallengeInvalid,
  siweSignatureInvalid,
  userWalletNotFound,
} from '../error-factories.ts';
import type { Because } from '../error-factories.ts';
import { rpcClient } from './rpc.ts';
import { chainDb } from './schema.ts';
import { normalizeAddress } from './service.ts';

/** How long a challenge may wait for its signature. */
export const CHALLENGE_TTL_MS = 10 * 60_000;

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
  let query = chainDb(db).selectFrom('chain_networks').selectAll().orderBy('created_at').limit(1);
  if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
  const network = await query.executeTakeFirst();
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
  await chainDb(db)
    .insertInto('siwe_challenges')
    .values({
      nonce,
      account_id: input.accountId,
      address: address.toLowerCase(),
      expires_at: expiresAt,
      used_at: null,
      created_at: now,
    })
    .execute();
  return { message, nonce, expiresAt: expiresAt.toISOString() };
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
  const cdb = chainDb(db);
  const challenge = await cdb
    .selectFrom('siwe_challenges')
    .selectAll()
    .where('nonce', '=', parsed.nonce)
    .executeTakeFirst();
  const now = clock.now();
  if (!challenge || challenge.account_id !== accountId) throw invalid('this challenge was not issued to you');
  if (challenge.used_at !== null) throw invalid('this challenge was used already; ask for a new one');
  if (challenge.expires_at.getTime() <= now.getTime())
    throw invalid('this challenge has expired; ask for a new one');
  if (challenge.address !== parsed.address.toLowerCase())
    throw invalid('the message names another address than the challenge');
  if (parsed.domain !== site.domain || parsed.uri !== site.uri)
    throw invalid('the message is for another site');
  const network = await networkForChain(db, parsed.chainId);
  const valid = await verifySiweMessage(rpcClient(network), {
    message: input.message,
    signature: input.signature as Hex,
    domain: site.domain,
    nonce: challenge.nonce,
    address: parsed.address as Address,
    time: now,
  }).catch(() => false);
  if (!valid) throw siweSignatureInvalid();
  const address = parsed.address.toLowerCase();
  await cdb.transaction().execute(async (trx) => {
    // The guard makes the challenge single-use even when two binds race.
    const used = await trx
      .updateTable('siwe_challenges')
      .set({ used_at: now })
      .where('nonce', '=', challenge.nonce)
      .where('used_at', 'is', null)
      .returning('nonce')
      .executeTakeFirst();
    if (!used) throw invalid('this challenge was used already; ask for a new one');
    const previous = await trx
      .selectFrom('user_wallets')
      .select('address')
      .where('account_id', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    await trx
      .insertInto('user_wallets')
      .values({ account_id: accountId, address, chain_id: Number(network.chain_id), bound_at: now })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ address, chain_id: Number(network.chain_id), bound_at: now }),
      )
      .execute();
    await trx
      .insertInto('user_wallet_events')
      .values({
        account_id: accountId,
        address,
        previous_address: previous?.address ?? null,
        challenge_nonce: challenge.nonce,
        at: now,
      })
      .execute();
  });
  return { address: getAddress(address), chainId: Number(network.chain_id), boundAt: now.toISOString() };
}

export async function currentWallet(db: Kysely<DB>, accountId: string): Promise<UserWalletView> {
  const row = await chainDb(db)
    .selectFrom('user_wallets')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw userWalletNotFound();
  return {
    address: getAddress(row.address),
    chainId: Number(row.chain_id),
    boundAt: row.bound_at.toISOString(),
  };
}
