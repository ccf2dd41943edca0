-- Foundation: partners and their credentials, operators, the mission catalog, platform accounts,
-- user mappings and mission progress. Ids are text with a type prefix (ptn_, key_, prm_ ...).

CREATE TABLE partners (
  id            text PRIMARY KEY,
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status        text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
  -- CIDRs (canonical text) allowed to call achieve; empty means no server may call it yet.
  allowed_ips   text[] NOT NULL DEFAULT '{}',
  -- Exact redirect URLs (scheme, host, port, path) the login may return to.
  redirect_urls text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE partner_api_keys (
  id           text PRIMARY KEY,
  partner_id   text NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  -- SHA-256 of the key, hex; the key itself is shown once and never stored.
  key_hash     text NOT NULL UNIQUE,
  -- First characters of the key, so an operator can recognise it in a list.
  key_prefix   text NOT NULL,
  name         text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX partner_api_keys_partner ON partner_api_keys (partner_id);

CREATE TABLE admin_credentials (
  id           text PRIMARY KEY,
  name         text NOT NULL,
  role         text NOT NULL CHECK (role IN ('OWNER', 'OPERATOR', 'VIEWER')),
  secret_hash  text NOT NULL UNIQUE,
  secret_prefix text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);

CREATE TABLE promotions (
  id           text PRIMARY KEY,
  partner_id   text NOT NULL REFERENCES partners (id),
  type         text NOT NULL CHECK (type IN ('COMPOSITE', 'DAILY_CHECK')),
  title        text NOT NULL,
  timezone     text NOT NULL,
  start_at     timestamptz NOT NULL,
  end_at       timestamptz,
  status       text NOT NULL DEFAULT 'INACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE')),
  -- First time the promotion went ACTIVE; from then on type, partner, start and time zone are fixed.
  activated_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (end_at IS NULL OR end_at > start_at)
);
CREATE INDEX promotions_partner ON promotions (partner_id);

CREATE TABLE mission_groups (
  id           text PRIMARY KEY,
  partner_id   text NOT NULL REFERENCES partners (id),
  promotion_id text NOT NULL REFERENCES promotions (id),
  title        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mission_groups_promotion ON mission_groups (promotion_id);

CREATE TABLE missions (
  id               text PRIMARY KEY,
  partner_id       text NOT NULL REFERENCES partners (id),
  mission_group_id text NOT NULL REFERENCES mission_groups (id),
  mission_key      text NOT NULL,
  title            text NOT NULL,
  recurrence       text NOT NULL CHECK (recurrence IN ('ONE_TIME', 'DAILY', 'WEEKLY', 'MONTHLY')),
  -- When set, a completion must report metadata.current >= target.
  target           bigint CHECK (target > 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (partner_id, mission_key)
);
CREATE INDEX missions_group ON missions (mission_group_id);

-- A person on the reward platform, identified by the login provider's subject.
CREATE TABLE platform_accounts (
  id           text PRIMARY KEY,
  issuer       text NOT NULL,
  subject      text NOT NULL,
  display_name text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, subject)
);

CREATE TABLE user_mappings (
  partner_id   text NOT NULL REFERENCES partners (id),
  partner_uid  text NOT NULL,
  account_id   text NOT NULL REFERENCES platform_accounts (id),
  region       text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, partner_uid),
  UNIQUE (partner_id, account_id)
);

-- One record per (partner, user, mission, period); completed only ever moves false -> true.
CREATE TABLE mission_progress (
  partner_id      text NOT NULL,
  partner_uid     text NOT NULL,
  mission_id      text NOT NULL REFERENCES missions (id),
  period_key      text NOT NULL,
  completed       boolean NOT NULL DEFAULT false,
  target          bigint,
  current         bigint,
  completed_at    timestamptz,
  -- Request id of the report that first completed this period: it alone triggers the reward.
  completed_by    text,
  report_count    integer NOT NULL DEFAULT 1,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (partner_id, partner_uid, mission_id, period_key),
  CHECK (completed = (completed_at IS NOT NULL))
);
