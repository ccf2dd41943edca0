// Payout addresses shared by several platform accounts: a farmer binds one wallet to many accounts
// to collect each account's rewards in one place. Caps count per address (claims/grants.ts); this
// module lists the shared addresses for operators and refuses a second account on an address when
// the operator asks for it (PAYOUT_ADDRESS_ONE_ACCOUNT).
import type { Kysely, QueryExecutorProvider } from 'kysely';
import type { DB } from '../db/schema.ts';
import { payoutAddressTaken } from '../error-factories.ts';
import {
  addressBoundByAnother,
  countSharedAddresses,
  lockPayoutAddress,
  selectSharedAddresses,
} from './store.ts';

/**
 * Inside the bind's transaction: refuses `address` (lower case) when another account has bound it.
 * An advisory lock on the address (transaction-scoped, every process) makes two accounts binding
 * the same address at once take turns, so the second sees the first.
 */
export async function refuseSharedAddress(
  trx: QueryExecutorProvider,
  address: string,
  accountId: string,
): Promise<void> {
  await lockPayoutAddress(trx, address);
  if (await addressBoundByAnother(trx, address, accountId)) throw payoutAddressTaken();
}

export interface SharedPayoutAddress {
  address: string;
  accounts: Array<{ accountId: string; displayName: string | null; chainId: number; boundAt: string }>;
}

/** The payout addresses bound by more than one account, most accounts first. */
export async function listSharedPayoutAddresses(
  db: Kysely<DB>,
  limit: number,
  offset: number,
): Promise<{ items: SharedPayoutAddress[]; total: number }> {
  const rows = await selectSharedAddresses(db, limit, offset);
  const total = await countSharedAddresses(db);
  return {
    total,
    items: rows.map((r) => ({
      address: r.address,
      accounts: (typeof r.accounts === 'string' ? JSON.parse(r.accounts) : r.accounts).map(
        (a: { accountId: string; displayName: string | null; chainId: string; boundAt: string }) => ({
          accountId: a.accountId,
          displayName: a.displayName,
          chainId: Number(a.chainId),
          boundAt: new Date(a.boundAt).toISOString(),
        }),
      ),
    })),
  };
}
