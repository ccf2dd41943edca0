-- DAILY_CHECK streaks: each user's run of consecutive check-in days per promotion, and rewards
-- for reaching a streak length (paid as claims with source STREAK).

ALTER TABLE claims DROP CONSTRAINT claims_source_check;
ALTER TABLE claims ADD CONSTRAINT claims_source_check CHECK (source IN ('MISSION', 'GROUP', 'DRAW', 'STREAK'));

CREATE TABLE user_streaks (
  partner_id    text NOT NULL,
  partner_uid   text NOT NULL,
  promotion_id  text NOT NULL REFERENCES promotions (id) ON DELETE CASCADE,
  current       integer NOT NULL CHECK (current >= 1),
  best          integer NOT NULL CHECK (best >= current),
  -- The promotion-local date (YYYY-MM-DD) of the last check-in.
  last_date     text NOT NULL,
  PRIMARY KEY (partner_id, partner_uid, promotion_id)
);

CREATE TABLE streak_rewards (
  promotion_id  text NOT NULL REFERENCES promotions (id) ON DELETE CASCADE,
  days          integer NOT NULL CHECK (days BETWEEN 1 AND 3660),
  budget_id     text NOT NULL REFERENCES budgets (id),
  amount        numeric(78,0) NOT NULL CHECK (amount > 0),
  PRIMARY KEY (promotion_id, days)
);
