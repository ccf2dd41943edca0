-- Chain payouts (docs/payout.md): EVM networks, assets on them, one reward wallet per budget with
-- its nonce counter, the payout outbox (signed before it is broadcast), user wallets with their
-- history, and one-time SIWE challenges. Addresses are stored lower-case; amounts in base units.

CREATE TABLE chain_networks (
  id               text PRIMARY KEY,
  name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  chain_id         bigint NOT NULL CHECK (chain_id > 0),
  rpc_url          text NOT NULL,
  -- A payout is final once its block has this many confirmations (the block itself counts as 1).
  confirmations    integer NOT NULL CHECK (confirmations BETWEEN 1 AND 1000),
  -- Link to a transaction on an explorer; '{hash}' is replaced by the transaction hash.
  explorer_tx_url  text,
  created_at       timestamptz NOT NULL
);

-- A reward asset that lives on a chain: a token contract, or the network's native coin (NULL).
CREATE TABLE chain_assets (
  asset_id       text PRIMARY KEY REFERENCES reward_assets (id),
  network_id     text NOT NULL REFERENCES chain_networks (id),
  token_address  text CHECK (token_address ~ '^0x[0-9a-f]{40}$'),
  created_at     timestamptz NOT NULL
);

-- The externally owned account a budget pays from. The private key is AES-256-GCM encrypted
-- under the key-encryption key (WALLET_KEK) and is never returned or logged.
CREATE TABLE reward_wallets (
  id             text PRIMARY KEY,
  budget_id      text NOT NULL UNIQUE REFERENCES budgets (id),
  network_id     text NOT NULL REFERENCES chain_networks (id),
  address        text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  encrypted_key  text NOT NULL,
  key_origin     text NOT NULL CHECK (key_origin IN ('CREATED', 'IMPORTED')),
  created_at     timestamptz NOT NULL,
  -- Two budgets sharing a key would hand out one nonce twice.
  UNIQUE (network_id, address)
);

-- The wallet's next nonce. Signing locks this row, so nonces are handed out one by one across
-- every worker process, and each is stored with its signed transaction in the same transaction.
CREATE TABLE reward_wallet_nonces (
  wallet_id   text PRIMARY KEY REFERENCES reward_wallets (id),
  next_nonce  bigint NOT NULL CHECK (next_nonce >= 0)
);

-- The outbox: one row per payout attempt of a claim, holding its nonce and the signed transaction.
CREATE TABLE chain_payouts (
  id                        text PRIMARY KEY,
  -- The claim paid (the rewards module's id; tied to claims in phase 2).
  claim_id                  text NOT NULL,
  budget_id                 text NOT NULL REFERENCES budgets (id),
  wallet_id                 text NOT NULL REFERENCES reward_wallets (id),
  account_id                text NOT NULL,
  nonce                     bigint NOT NULL CHECK (nonce >= 0),
  to_address                text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  amount                    numeric(78,0) NOT NULL CHECK (amount > 0),
  -- NULL: the native coin.
  token_address             text CHECK (token_address ~ '^0x[0-9a-f]{40}$'),
  -- The transaction now in force (a replacement takes over); every signed one is in chain_payout_txs.
  raw_tx                    text NOT NULL,
  tx_hash                   text NOT NULL,
  gas_limit                 bigint NOT NULL,
  max_fee_per_gas           numeric(78,0) NOT NULL,
  max_priority_fee_per_gas  numeric(78,0) NOT NULL,
  status                    text NOT NULL CHECK (status IN ('SIGNED', 'BROADCAST', 'CONFIRMED', 'REVERTED')),
  -- The hash that was mined (the original or a replacement).
  mined_tx_hash             text,
  block_number              bigint,
  broadcasts                integer NOT NULL DEFAULT 0,
  replacements              integer NOT NULL DEFAULT 0,
  last_error                text,
  signed_at                 timestamptz NOT NULL,
  broadcast_at              timestamptz,
  settled_at                timestamptz,
  updated_at                timestamptz NOT NULL,
  -- A nonce belongs to one payout only.
  UNIQUE (wallet_id, nonce)
);
-- At most one live payout per claim; a REVERTED one (its nonce consumed) may be followed by a new one.
CREATE UNIQUE INDEX chain_payouts_live_claim ON chain_payouts (claim_id) WHERE status <> 'REVERTED';
CREATE INDEX chain_payouts_open ON chain_payouts (wallet_id, nonce) WHERE status IN ('SIGNED', 'BROADCAST');

-- Every transaction signed for a payout: the first and each same-nonce replacement. Whichever
-- is mined wins; the others can then never be mined (their nonce is used).
CREATE TABLE chain_payout_txs (
  tx_hash                   text PRIMARY KEY,
  payout_id                 text NOT NULL REFERENCES chain_payouts (id),
  raw_tx                    text NOT NULL,
  max_fee_per_gas           numeric(78,0) NOT NULL,
  max_priority_fee_per_gas  numeric(78,0) NOT NULL,
  status                    text NOT NULL CHECK (status IN ('SIGNED', 'REPLACED', 'MINED', 'DROPPED')),
  signed_at                 timestamptz NOT NULL
);
CREATE INDEX chain_payout_txs_payout ON chain_payout_txs (payout_id);

-- The wallet a platform account is paid to, bound by a SIWE signature.
CREATE TABLE user_wallets (
  account_id  text PRIMARY KEY REFERENCES platform_accounts (id),
  address     text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  chain_id    bigint NOT NULL,
  bound_at    timestamptz NOT NULL
);

-- Audit of every binding and rebinding.
CREATE TABLE user_wallet_events (
  id                bigserial PRIMARY KEY,
  account_id        text NOT NULL REFERENCES platform_accounts (id),
  address           text NOT NULL,
  previous_address  text,
  challenge_nonce   text NOT NULL,
  at                timestamptz NOT NULL
);
CREATE INDEX user_wallet_events_account ON user_wallet_events (account_id);

-- One-time SIWE challenges: issued to a signed-in account, used at most once, before they expire.
CREATE TABLE siwe_challenges (
  nonce       text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES platform_accounts (id),
  address     text NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL
);
