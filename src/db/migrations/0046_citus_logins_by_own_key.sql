-- Logins, sessions and wallet challenges on the workers (docs/scaling.md "What lives where"): on
-- Citus only, the three tables a login or a wallet binding writes move from reference tables (a copy
-- on every node, each write a two-phase commit over all of them, serialized cluster-wide by a lock on
-- the table's shard) to tables distributed on their own keys, each in a co-location group of its own:
-- a login's state by its hash, a session by its id's hash, a SIWE challenge by its nonce. They are
-- found by those keys (a state at the callback, a session on every request of the mission page, a
-- challenge at the bind), never joined to a partner's rows, so each such statement is routed to one
-- shard; the purges by expiry, "sign out everywhere" (by account) and the challenge counts of an
-- address or an account read every shard, as a multi-shard statement may.
-- Their foreign keys stay (to partners and accounts, reference tables): a distributed table may point
-- at a reference table, a deleted account still takes its sessions with it, and the shared lock such a
-- write takes on the account's shard does not queue these writes behind one another. On PostgreSQL
-- and PGlite this does nothing.
DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('user_sessions') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

  -- Citus undistributes a table only without foreign keys: each is dropped, and added again once
  -- the table is distributed (the same keys, checked again on the rows kept).
  ALTER TABLE login_states DROP CONSTRAINT login_states_partner_id_fkey;
  ALTER TABLE user_sessions DROP CONSTRAINT user_sessions_account_id_fkey;
  ALTER TABLE siwe_challenges DROP CONSTRAINT siwe_challenges_account_id_fkey;
  PERFORM undistribute_table('login_states');
  PERFORM undistribute_table('user_sessions');
  PERFORM undistribute_table('siwe_challenges');
  PERFORM create_distributed_table('login_states', 'state_hash', colocate_with => 'none');
  PERFORM create_distributed_table('user_sessions', 'id_hash', colocate_with => 'none');
  PERFORM create_distributed_table('siwe_challenges', 'nonce', colocate_with => 'none');
  ALTER TABLE login_states ADD CONSTRAINT login_states_partner_id_fkey
    FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE;
  ALTER TABLE user_sessions ADD CONSTRAINT user_sessions_account_id_fkey
    FOREIGN KEY (account_id) REFERENCES platform_accounts (id) ON DELETE CASCADE;
  ALTER TABLE siwe_challenges ADD CONSTRAINT siwe_challenges_account_id_fkey
    FOREIGN KEY (account_id) REFERENCES platform_accounts (id);
END
$citus$;
