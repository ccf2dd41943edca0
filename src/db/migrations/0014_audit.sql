-- The audit log of operator writes (docs/audit.md). Row triggers on the operator-managed tables
-- write one audit_events row per changed row, in the transaction of the change, but only when that
-- transaction names an operator: the admin scope runs every write request in one transaction that
-- starts with set_config('mrs.actor', '{"id","name","requestId","at"}', true). Partner and user
-- traffic (no actor) skips the trigger in its WHEN clause and pays no function call.

CREATE TABLE audit_events (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at           timestamptz NOT NULL,
  actor_id     text NOT NULL,
  -- The credential's name at the time of the write (a later rename does not rewrite history).
  actor_name   text NOT NULL,
  action       text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
  entity_type  text NOT NULL,
  entity_id    text NOT NULL,
  -- The row as JSON before and after the change, secret columns replaced by "[redacted]".
  before       jsonb,
  after        jsonb,
  request_id   text
);
CREATE INDEX audit_events_at ON audit_events (at DESC, id DESC);
CREATE INDEX audit_events_entity ON audit_events (entity_type, entity_id, at DESC);
CREATE INDEX audit_events_actor ON audit_events (actor_id, at DESC);

-- Append-only: no UPDATE, DELETE or TRUNCATE, whoever asks (the API has no such route either).
CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();

-- Arguments: entity type, key column(s) joined by ',' (the entity id is their values joined by
-- ':'), secret column(s) joined by ',' (never logged; "[redacted, changed]" when an update changed one).
CREATE FUNCTION audit_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  actor jsonb := current_setting('mrs.actor', true)::jsonb;
  key_columns text[] := string_to_array(TG_ARGV[1], ',');
  secret_columns text[] := coalesce(string_to_array(nullif(TG_ARGV[2], ''), ','), '{}');
  old_row jsonb;
  new_row jsonb;
  entity text;
  secret text;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_row := to_jsonb(OLD); END IF;
  IF TG_OP <> 'DELETE' THEN new_row := to_jsonb(NEW); END IF;
  -- An UPDATE that changed nothing is not a change.
  IF TG_OP = 'UPDATE' AND old_row = new_row THEN RETURN NULL; END IF;
  SELECT string_agg(coalesce(coalesce(new_row, old_row) ->> k.name, ''), ':' ORDER BY k.n)
    INTO entity FROM unnest(key_columns) WITH ORDINALITY AS k(name, n);
  FOREACH secret IN ARRAY secret_columns LOOP
    IF new_row IS NOT NULL AND new_row ->> secret IS NOT NULL THEN
      new_row := jsonb_set(new_row, ARRAY[secret], CASE
        WHEN old_row IS NOT NULL AND (old_row -> secret) IS DISTINCT FROM (new_row -> secret)
          THEN '"[redacted, changed]"'::jsonb ELSE '"[redacted]"'::jsonb END);
    END IF;
    IF old_row IS NOT NULL AND old_row ->> secret IS NOT NULL THEN
      old_row := jsonb_set(old_row, ARRAY[secret], '"[redacted]"'::jsonb);
    END IF;
  END LOOP;
  INSERT INTO audit_events (at, actor_id, actor_name, action, entity_type, entity_id, before, after, request_id)
  VALUES (
    coalesce((actor ->> 'at')::timestamptz, now()),
    actor ->> 'id',
    coalesce(actor ->> 'name', ''),
    CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'UPDATE' THEN 'update' ELSE 'delete' END,
    TG_ARGV[0],
    coalesce(entity, ''),
    old_row,
    new_row,
    actor ->> 'requestId'
  );
  -- Tells the request that this transaction left a row (see src/audit/operator-writes.ts).
  PERFORM set_config('mrs.audited', 'yes', true);
  RETURN NULL;
END
$$;

-- One trigger per operator-managed table. The WHEN clause keeps every other transaction (achieve,
-- connect, the payout worker) from calling the function at all.
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON partners FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('partner', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON partner_api_keys FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('partner_api_key', 'id', 'key_hash');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON admin_credentials FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('admin_credential', 'id', 'secret_hash');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON promotions FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('promotion', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON mission_groups FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('mission_group', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON missions FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('mission', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON user_mappings FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('user_mapping', 'partner_id,partner_uid', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON reward_assets FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('reward_asset', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON budgets FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('budget', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON budget_caps FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('budget_caps', 'budget_id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON reward_rules FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('reward_rule', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON streak_rewards FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('streak_reward', 'promotion_id,days', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON claims FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('claim', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON draws FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('draw', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chain_networks FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('chain_network', 'id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chain_assets FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('chain_asset', 'asset_id', '');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON reward_wallets FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('reward_wallet', 'id', 'encrypted_key');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON webhook_endpoints FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('webhook_endpoint', 'id', 'secret,previous_secret');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON webhook_messages FOR EACH ROW
  WHEN (current_setting('mrs.actor', true) <> '') EXECUTE FUNCTION audit_row_change('webhook_message', 'id', '');
