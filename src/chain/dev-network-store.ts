// The SQL of the development chain's rows (dev-network.ts): its network and test token, the
// clean-up of an earlier instance's payouts, and its retirement when a real network is registered.
import type { Kysely } from 'kysely';
import type { Address } from 'viem';
import type { DB } from '../db/schema.ts';

/** Fixed ids, so that every start finds the rows of the earlier ones. */
export const DEV_NETWORK_ID = 'net_devchain';
export const DEV_ASSET_ID = 'ast_devtoken';
export const DEV_TOKEN_SYMBOL = 'DEVT';

/** Another network than the development chain, if one is registered. */
export const otherNetwork = (db: Kysely<DB>) =>
  db.selectFrom('chain_networks').select('name').where('id', '<>', DEV_NETWORK_ID).executeTakeFirst();

/** A reward wallet on the development chain, if any. */
export function walletOnDevNetwork(db: Kysely<DB>) {
  return db
    .selectFrom('reward_wallets')
    .select('id')
    .where('network_id', '=', DEV_NETWORK_ID)
    .executeTakeFirst();
}

/** Drops the development chain's rows; the foreign keys refuse (23503) while a budget or claim names its token. */
export async function dropDevNetworkRows(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('chain_assets').where('network_id', '=', DEV_NETWORK_ID).execute();
    // Kept (as a ledger asset would be) if a budget or claim names it: the foreign key refuses.
    await trx.deleteFrom('reward_assets').where('id', '=', DEV_ASSET_ID).execute();
    await trx.deleteFrom('chain_networks').where('id', '=', DEV_NETWORK_ID).execute();
  });
}

export async function disableDevNetwork(db: Kysely<DB>, now: Date): Promise<void> {
  await db.updateTable('chain_networks').set({ disabled_at: now }).where('id', '=', DEV_NETWORK_ID).execute();
}

/** The network and token rows of this instance, and the clean-up of the earlier instance's open payouts. */
export async function registerDevNetwork(
  db: Kysely<DB>,
  now: Date,
  chainId: number,
  rpcUrl: string,
  token: Address,
  genesis: string,
) {
  return db.transaction().execute(async (trx) => {
    // A row from an earlier start whose block 0 differs (or was not recorded) is another chain.
    const earlier = await trx
      .selectFrom('chain_networks')
      .select('genesis_hash')
      .where('id', '=', DEV_NETWORK_ID)
      .forUpdate()
      .executeTakeFirst();
    const reset = earlier !== undefined && earlier.genesis_hash !== genesis;
    await trx
      .insertInto('chain_networks')
      .values({
        id: DEV_NETWORK_ID,
        name: 'Development chain',
        chain_id: chainId,
        rpc_url: rpcUrl,
        confirmations: 1,
        explorer_tx_url: null,
        created_at: now,
        genesis_hash: genesis,
      })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          rpc_url: rpcUrl,
          genesis_hash: genesis,
          // Disabled while a real network was registered (retireDevNetwork): the chain runs again.
          disabled_at: null,
          ...(reset && { reset_at: now }),
        }),
      )
      .execute();
    await trx
      .insertInto('reward_assets')
      .values({
        id: DEV_ASSET_ID,
        symbol: DEV_TOKEN_SYMBOL,
        name: 'Development chain test token',
        decimals: 18,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await trx
      .insertInto('chain_assets')
      .values({
        asset_id: DEV_ASSET_ID,
        network_id: DEV_NETWORK_ID,
        token_address: token.toLowerCase(),
        created_at: now,
      })
      .onConflict((oc) => oc.column('asset_id').doUpdateSet({ token_address: token.toLowerCase() }))
      .execute();
    const stale = await trx
      .updateTable('chain_payouts')
      .set({
        status: 'REVERTED',
        last_error: 'the development chain restarted: this transaction was lost with its earlier instance',
        settled_at: now,
        updated_at: now,
      })
      .where('status', 'in', ['SIGNED', 'BROADCAST'])
      .where('wallet_id', 'in', (eb) =>
        eb.selectFrom('reward_wallets').select('id').where('network_id', '=', DEV_NETWORK_ID),
      )
      .executeTakeFirst();
    // Transfers confirmed on the earlier chain went with it: marked, so that they read as history
    // (the console, reconcile), not as payouts missing from this chain.
    const lost = reset
      ? await trx
          .updateTable('chain_payouts')
          .set({
            lost_with_chain_at: now,
            last_error: `confirmed on an earlier instance of the development chain, reset at ${now.toISOString()}: its transfer went with that chain`,
          })
          .where('status', '=', 'CONFIRMED')
          .where('lost_with_chain_at', 'is', null)
          .where('wallet_id', 'in', (eb) =>
            eb.selectFrom('reward_wallets').select('id').where('network_id', '=', DEV_NETWORK_ID),
          )
          .executeTakeFirst()
      : undefined;
    const wallets = await trx
      .selectFrom('reward_wallets as w')
      .innerJoin('reward_wallet_nonces as n', 'n.wallet_id', 'w.id')
      .select(['w.address', 'w.budget_id', 'n.next_nonce'])
      .where('w.network_id', '=', DEV_NETWORK_ID)
      .execute();
    return {
      reset,
      lostConfirmed: Number(lost?.numUpdatedRows ?? 0),
      stalePayouts: Number(stale.numUpdatedRows),
      wallets: wallets.map((w) => ({
        address: w.address,
        budgetId: w.budget_id,
        nextNonce: Number(w.next_nonce),
      })),
    };
  });
}
