-- Rewards, second part (0003_rewards.sql has landed and is never edited): DAILY_CHECK streaks and
-- their rewards, draws limited to one mission's tickets, and the indexes of the worker's sweeps.

-- Claims may also come from a streak.
ALTER TABLE claims DROP CONSTRAINT claims_source_check;
ALTER TABLE claims ADD CONSTRAINT claims_source_check CHECK (source IN ('MISSION', 'GROUP', 'STREAK', 'DRAW'));

-- A flash crowd inserts one claim (or ticket) per user, all pointing at the same partner, budget and
-- asset rows. A foreign key check locks the referenced row FOR KEY SHARE in every such transaction,
-- which turns that one row back into a hot spot (a new MultiXact per concurrent locker). Those
-- parents are never deleted (no API deletes partners, budgets, assets or missions) and the ids are
-- taken from rows read in the same transaction, so the keys are dropped on these two tables only.
ALTER TABLE claims DROP CONSTRAINT claims_budget_id_fkey;
ALTER TABLE claims DROP CONSTRAINT claims_asset_id_fkey;
ALTER TABLE claims DROP CONSTRAINT claims_partner_id_fkey;
ALTER TABLE tickets DROP CONSTRAINT tickets_budget_id_fkey;
ALTER TABLE tickets DROP CONSTRAINT tickets_partner_id_fkey;
ALTER TABLE tickets DROP CONSTRAINT tickets_mission_id_fkey;

-- One row per (partner user, DAILY_CHECK promotion): the run of consecutive local days with a
-- check-in. Advanced by one guarded upsert inside the achieve transaction.
CREATE TABLE check_streaks (
  partner_id       text NOT NULL,
  partner_uid      text NOT NULL,
  promotion_id     text NOT NULL REFERENCES promotions (id),
  current          integer NOT NULL CHECK (current >= 1),
  best             integer NOT NULL CHECK (best >= current),
  last_check_date  date NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (partner_id, partner_uid, promotion_id)
);

-- A FIXED reward for reaching a streak of `days` consecutive check-ins in a DAILY_CHECK promotion.
CREATE TABLE streak_rewards (
  id            text PRIMARY KEY,
  promotion_id  text NOT NULL REFERENCES promotions (id),
  days          integer NOT NULL CHECK (days BETWEEN 1 AND 3660),
  budget_id     text NOT NULL REFERENCES budgets (id),
  amount        numeric(78,0) NOT NULL CHECK (amount > 0),
  created_at    timestamptz NOT NULL,
  UNIQUE (promotion_id, days)
);

-- A LUCKY_DRAW reward on a mission group issues a ticket for finishing the group.
ALTER TABLE tickets ADD COLUMN mission_group_id text;
ALTER TABLE tickets ALTER COLUMN mission_id DROP NOT NULL;
ALTER TABLE tickets ADD CONSTRAINT tickets_one_source CHECK ((mission_id IS NULL) <> (mission_group_id IS NULL));
CREATE UNIQUE INDEX tickets_group_once ON tickets (partner_id, partner_uid, mission_group_id, period_key)
  WHERE mission_group_id IS NOT NULL;

-- A draw among the tickets of one budget, or of one mission only.
ALTER TABLE draws ADD COLUMN mission_id text REFERENCES missions (id);
ALTER TABLE draws ADD CONSTRAINT draws_seed_hex CHECK (seed ~ '^[0-9a-f]{64}$');
CREATE INDEX draws_due ON draws (scheduled_at) WHERE status = 'COMMITTED';
CREATE INDEX tickets_draw ON tickets (draw_id) WHERE draw_id IS NOT NULL;
CREATE INDEX tickets_user ON tickets (partner_id, partner_uid);

-- The worker's sweeps: expiring old reservations and retrying failed payouts.
CREATE INDEX claims_reserved_age ON claims (created_at) WHERE status = 'RESERVED';
CREATE INDEX claims_failed_due ON claims (next_attempt_at) WHERE status = 'FAILED';
CREATE INDEX claims_source ON claims (source, source_id);
