-- Indexes for the reward worker's upkeep, which runs every cycle and must not read whole tables:
-- FAILED claims due for a retry, RESERVED claims old enough to expire, and links made in the last
-- hour (the link sweep).

CREATE INDEX claims_failed_due ON claims (next_attempt_at) WHERE status = 'FAILED';
CREATE INDEX claims_reserved_since ON claims (created_at) WHERE status = 'RESERVED';
CREATE INDEX user_mappings_created ON user_mappings (created_at);
