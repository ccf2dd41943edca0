-- Reward farming (docs/security.md "Reward farming"): only linked users hold budget. A completion by
-- a user who has not linked is kept as a deferred reward (no claim, no reservation) and granted when
-- the user links; operator caps per account and per partner per day; completion-rate alarms.

-- What a completion by a not-yet-linked user earned, computed when it completed (the rule of that
-- moment), granted (claims, caps and budget) when the user links. Unique like claims and tickets,
-- so a repeated completion cannot add a second one.
CREATE TABLE deferred_rewards (
  id            text PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('CLAIM', 'TICKET')),
  partner_id    text NOT NULL REFERENCES partners (id),
  partner_uid   text NOT NULL,
  promotion_id  text,
  source        text NOT NULL CHECK (source IN ('MISSION', 'GROUP', 'DRAW', 'STREAK')),
  source_id     text NOT NULL,
  period_key    text NOT NULL,
  budget_id     text NOT NULL REFERENCES budgets (id),
  -- CLAIM: the amount earned; TICKET: none (a draw sets the prize).
  amount        numeric(78,0) CHECK (amount > 0),
  completed_at  timestamptz NOT NULL,
  UNIQUE (partner_id, partner_uid, kind, source, source_id, period_key),
  CHECK ((kind = 'CLAIM') = (amount IS NOT NULL))
);

-- A claim granted when its user linked: when the completion happened (the mission page says why
-- such a claim was refused: the budget ran out, or the completion was too old, before the link).
ALTER TABLE claims ADD COLUMN completed_before_link timestamptz;

-- Operator caps on a budget, each per UTC day: the most one platform account may receive, and the
-- most the users of one partner may take together. NULL: no cap.
CREATE TABLE budget_caps (
  budget_id             text PRIMARY KEY REFERENCES budgets (id) ON DELETE CASCADE,
  per_account_per_day   numeric(78,0) CHECK (per_account_per_day > 0),
  per_partner_per_day   numeric(78,0) CHECK (per_partner_per_day > 0),
  updated_at            timestamptz NOT NULL
);

-- What each account and each partner took from a capped budget on a UTC day (claims granted, not
-- refused). Read and updated under the row lock, so concurrent grants never pass a cap.
CREATE TABLE cap_usage (
  budget_id  text NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
  day        date NOT NULL,
  scope      text NOT NULL CHECK (scope IN ('ACCOUNT', 'PARTNER')),
  subject    text NOT NULL,
  used       numeric(78,0) NOT NULL CHECK (used >= 0),
  PRIMARY KEY (budget_id, day, scope, subject)
);

-- Completions per partner per window, summed over every process (each flushes its counts).
CREATE TABLE completion_rates (
  partner_id    text NOT NULL,
  window_start  timestamptz NOT NULL,
  completions   bigint NOT NULL CHECK (completions >= 0),
  PRIMARY KEY (partner_id, window_start)
);

-- Completion-rate alarms per partner: how many fired (the metric), and the last window that fired
-- (so that one window alarms at most once, whichever process sees it first).
CREATE TABLE completion_alarms (
  partner_id     text PRIMARY KEY,
  alarms         bigint NOT NULL,
  last_window    timestamptz NOT NULL,
  last_rate      bigint NOT NULL,
  last_baseline  numeric NOT NULL,
  last_at        timestamptz NOT NULL
);
