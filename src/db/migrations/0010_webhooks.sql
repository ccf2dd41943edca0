-- Webhooks (docs/webhooks.md): a partner's endpoints, the outbox of messages (one row per event and
-- endpoint, written in the same statement as the change it reports) and every delivery attempt.

CREATE TABLE webhook_endpoints (
  id                          text PRIMARY KEY,
  partner_id                  text NOT NULL REFERENCES partners (id),
  url                         text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  description                 text CHECK (length(description) <= 200),
  -- Event types this endpoint receives (docs/webhooks.md lists them).
  events                      text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 50),
  enabled                     boolean NOT NULL,
  -- The signing secret ('whsec_' + base64). Signing needs it as it is, so it is stored, never returned after creation.
  secret                      text NOT NULL,
  -- After a roll the old secret keeps signing (a second signature) until this time.
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL
);
-- The hot path asks "which enabled endpoints of this partner want this event?".
CREATE INDEX webhook_endpoints_partner ON webhook_endpoints (partner_id) WHERE enabled;

CREATE TABLE webhook_messages (
  id               text PRIMARY KEY,
  -- Insertion order; with `rank` (the event's place in a lifecycle) it orders one statement's events.
  seq              bigserial NOT NULL,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id),
  partner_id       text NOT NULL,
  event_type       text NOT NULL,
  rank             smallint NOT NULL,
  -- {type, timestamp, data}: the body sent, byte for byte the same on every attempt.
  payload          jsonb NOT NULL,
  status           text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  last_error       text,
  created_at       timestamptz NOT NULL,
  delivered_at     timestamptz
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id           bigserial PRIMARY KEY,
  message_id   text NOT NULL REFERENCES webhook_messages (id),
  attempted_at timestamptz NOT NULL,
  -- NULL when no HTTP answer came (refused address, connection error, timeout).
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL
);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, id);
