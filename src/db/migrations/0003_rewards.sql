-- Rewards: assets, budgets (striped into sub-allotments), reward rules on missions and groups,
-- claims with their history, lucky-draw tickets and draws, and the double-entry payout ledger.
-- Amounts are integers of base units: numeric(78,0), never floats.

CREATE TABLE reward_assets (
  id          text PRIMARY KEY,
  type        text NOT NULL DEFAULT 'FT' CHECK (type IN ('FT')),
  symbol      text NOT NULL CHECK (length(symbol) BETWEEN 1 AND 16),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- NULL until an operator sets it; such an asset cannot back a reward (1402).
  decimals    integer CHECK (decimals BETWEEN 0 AND 36),
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);

CREATE TABLE budgets (
  id          text PRIMARY KEY,
  type        text NOT NULL CHECK (type IN ('FIXED', 'LUCKY_DRAW')),
  asset_id    text NOT NULL REFERENCES reward_assets (id),
  name        text NOT NULL,
  -- Everything ever put in (creation + top-ups).
  total       numeric(78,0) NOT NULL CHECK (total >= 0),
  stripes     integer NOT NULL CHECK (stripes BETWEEN 1 AND 64),
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);

-- What is left to reserve, split into stripes so concurrent reservations do not queue on one row.
-- The sum of the stripes plus every live claim's amount equals the budget's total.
CREATE TABLE budget_stripes (
  budget_id   text NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
  stripe      integer NOT NULL,
  remaining   numeric(78,0) NOT NULL CHECK (remaining >= 0),
  PRIMARY KEY (budget_id, stripe)
);

-- A reward on a mission or on a mission group: FIXED pays `amount`; LUCKY_DRAW issues a ticket.
CREATE TABLE reward_rules (
  id               text PRIMARY KEY,
  mission_id       text UNIQUE REFERENCES missions (id) ON DELETE CASCADE,
  mission_group_id text UNIQUE REFERENCES mission_groups (id) ON DELETE CASCADE,
  type             text NOT NULL CHECK (type IN ('FIXED', 'LUCKY_DRAW')),
  budget_id        text NOT NULL REFERENCES budgets (id),
  amount           numeric(78,0) CHECK (amount > 0),
  created_at       timestamptz NOT NULL,
  CHECK ((mission_id IS NULL) <> (mission_group_id IS NULL)),
  CHECK ((type = 'FIXED') = (amount IS NOT NULL))
);

CREATE TABLE claims (
  id            text PRIMARY KEY,
  budget_id     text NOT NULL REFERENCES budgets (id),
  asset_id      text NOT NULL REFERENCES reward_assets (id),
  partner_id    text NOT NULL REFERENCES partners (id),
  partner_uid   text NOT NULL,
  -- Set once the user is linked; a claim without an account waits in RESERVED.
  account_id    text REFERENCES platform_accounts (id),
  promotion_id  text,
  -- What earned it: a mission, a group, or a draw; with the period, at most one claim each.
  source        text NOT NULL CHECK (source IN ('MISSION', 'GROUP', 'DRAW')),
  source_id     text NOT NULL,
  period_key    text NOT NULL,
  amount        numeric(78,0) NOT NULL CHECK (amount > 0),
  status        text NOT NULL CHECK (status IN ('RESERVED', 'REQUESTED', 'REJECTED', 'SUCCEEDED', 'FAILED')),
  reason        text,
  attempts      integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (partner_id, partner_uid, source, source_id, period_key)
);
CREATE INDEX claims_budget_status ON claims (budget_id, status);
CREATE INDEX claims_user ON claims (partner_id, partner_uid);
CREATE INDEX claims_account ON claims (account_id);
CREATE INDEX claims_requested ON claims (next_attempt_at) WHERE status = 'REQUESTED';

CREATE TABLE claim_events (
  id           bigserial PRIMARY KEY,
  claim_id     text NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
  from_status  text,
  to_status    text NOT NULL,
  reason       text,
  at           timestamptz NOT NULL
);
CREATE INDEX claim_events_claim ON claim_events (claim_id);

CREATE TABLE draws (
  id             text PRIMARY KEY,
  budget_id      text NOT NULL REFERENCES budgets (id),
  title          text NOT NULL,
  prize_amount   numeric(78,0) NOT NULL CHECK (prize_amount > 0),
  winners_count  integer NOT NULL CHECK (winners_count BETWEEN 1 AND 100000),
  scheduled_at   timestamptz NOT NULL,
  status         text NOT NULL CHECK (status IN ('COMMITTED', 'DRAWN')),
  -- Published before the draw: sha256(seed), hex. The seed is published after it.
  commitment     text NOT NULL,
  seed           text NOT NULL,
  ticket_count   integer,
  created_at     timestamptz NOT NULL,
  drawn_at       timestamptz
);

CREATE TABLE tickets (
  id           text PRIMARY KEY,
  partner_id   text NOT NULL REFERENCES partners (id),
  partner_uid  text NOT NULL,
  mission_id   text NOT NULL REFERENCES missions (id),
  budget_id    text NOT NULL REFERENCES budgets (id),
  period_key   text NOT NULL,
  status       text NOT NULL CHECK (status IN ('RECEIVED', 'DRAWN')),
  draw_id      text REFERENCES draws (id),
  won          boolean,
  created_at   timestamptz NOT NULL,
  UNIQUE (partner_id, partner_uid, mission_id, period_key)
);
CREATE INDEX tickets_budget_status ON tickets (budget_id, status);

-- Double-entry ledger: one transfer per paid claim, two entries summing to zero.
-- Accounts are named 'budget:<id>' and 'user:<platform account id>'.
CREATE TABLE ledger_transfers (
  id          text PRIMARY KEY,
  claim_id    text NOT NULL UNIQUE REFERENCES claims (id),
  asset_id    text NOT NULL REFERENCES reward_assets (id),
  amount      numeric(78,0) NOT NULL CHECK (amount > 0),
  created_at  timestamptz NOT NULL
);

CREATE TABLE ledger_entries (
  id           bigserial PRIMARY KEY,
  transfer_id  text NOT NULL REFERENCES ledger_transfers (id),
  account      text NOT NULL,
  asset_id     text NOT NULL REFERENCES reward_assets (id),
  amount       numeric(78,0) NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account, asset_id);
