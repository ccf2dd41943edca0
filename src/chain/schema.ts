// Table types of the chain payout (migration 0009_chain.sql), kept beside the capability so the
// shared src/db/schema.ts is not touched in phase 1; `chainDb()` adds them to a Kysely instance.
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** numeric(78,0): read as a decimal string, written as a string or bigint-as-string. */
type Numeric = ColumnType<string, string, string>;

export type PayoutStatus = 'SIGNED' | 'BROADCAST' | 'CONFIRMED' | 'REVERTED';
export type PayoutTxStatus = 'SIGNED' | 'REPLACED' | 'MINED' | 'DROPPED';

export interface ChainNetworksTable {
  id: string;
  name: string;
  chain_id: number;
  rpc_url: string;
  confirmations: number;
  explorer_tx_url: string | null;
  created_at: Timestamp;
}

export interface ChainAssetsTable {
  asset_id: string;
  network_id: string;
  token_address: string | null;
  created_at: Timestamp;
}

export interface RewardWalletsTable {
  id: string;
  budget_id: string;
  network_id: string;
  address: string;
  encrypted_key: string;
  key_origin: 'CREATED' | 'IMPORTED';
  created_at: Timestamp;
}

export interface RewardWalletNoncesTable {
  wallet_id: string;
  next_nonce: number;
}

export interface ChainPayoutsTable {
  id: string;
  claim_id: string;
  budget_id: string;
  wallet_id: string;
  account_id: string;
  nonce: number;
  to_address: string;
  amount: Numeric;
  token_address: string | null;
  raw_tx: string;
  tx_hash: string;
  gas_limit: number;
  max_fee_per_gas: Numeric;
  max_priority_fee_per_gas: Numeric;
  status: PayoutStatus;
  mined_tx_hash: string | null;
  block_number: number | null;
  broadcasts: Generated<number>;
  replacements: Generated<number>;
  last_error: string | null;
  signed_at: Timestamp;
  broadcast_at: NullableTimestamp;
  settled_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface ChainPayoutTxsTable {
  tx_hash: string;
  payout_id: string;
  raw_tx: string;
  max_fee_per_gas: Numeric;
  max_priority_fee_per_gas: Numeric;
  status: PayoutTxStatus;
  signed_at: Timestamp;
}

export interface UserWalletsTable {
  account_id: string;
  address: string;
  chain_id: number;
  bound_at: Timestamp;
}

export interface UserWalletEventsTable {
  id: Generated<number>;
  account_id: string;
  address: string;
  previous_address: string | null;
  challenge_nonce: string;
  at: Timestamp;
}

export interface SiweChallengesTable {
  nonce: string;
  account_id: string;
  address: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

// A type alias (not an interface) so that it satisfies withTables' Record constraint.
export type ChainTables = {
  chain_networks: ChainNetworksTable;
  chain_assets: ChainAssetsTable;
  reward_wallets: RewardWalletsTable;
  reward_wallet_nonces: RewardWalletNoncesTable;
  chain_payouts: ChainPayoutsTable;
  chain_payout_txs: ChainPayoutTxsTable;
  user_wallets: UserWalletsTable;
  user_wallet_events: UserWalletEventsTable;
  siwe_challenges: SiweChallengesTable;
};

export type ChainDB = DB & ChainTables;

/** The same connection (or transaction), typed with the chain tables too. */
export function chainDb(db: Transaction<DB>): Transaction<ChainDB>;
export function chainDb(db: Kysely<DB>): Kysely<ChainDB>;
export function chainDb(db: Kysely<DB> | Transaction<DB>): Kysely<ChainDB> | Transaction<ChainDB> {
  return db.withTables<ChainTables>() as Kysely<ChainDB> | Transaction<ChainDB>;
}
