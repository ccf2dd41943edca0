-- Citus (docs/scaling.md "On Citus"): on a database where the citus extension is installed (the
-- coordinator of a Citus cluster), the partner-scoped tables become tables distributed on
-- partner_id, all in one co-location group, and every other table a reference table (a copy on
-- every node). On plain PostgreSQL and PGlite (no citus extension) this file only defines the two
-- helper functions below and changes nothing else.
--
-- A later migration that creates a table ends with ONE of:
--   SELECT mrs_distribute_by_partner('the_table');  -- it has partner_id, and its primary key and
--                                                    -- unique keys include it
--   SELECT mrs_make_reference('the_table');          -- small, shared, or without partner_id
-- Both are no-ops without Citus. A table left out stays a table of the coordinator alone, which
-- Citus refuses to join to distributed tables in a modification and to reference by foreign key.

-- A table Citus distributes ('h') or replicates to every node (a reference table: 'n' with
-- replication model 't'); a table of the coordinator alone, even one Citus added to its metadata
-- for a foreign key, is neither.
CREATE OR REPLACE FUNCTION mrs_is_spread(target regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN false; END IF;
  RETURN EXISTS (SELECT 1 FROM pg_dist_partition
                 WHERE logicalrelid = target AND (partmethod = 'h' OR (partmethod = 'n' AND repmodel = 't')));
END
$$;

-- Distributes a table on partner_id, co-located with mission_progress (the first one distributed).
CREATE OR REPLACE FUNCTION mrs_distribute_by_partner(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF mrs_is_spread(target) THEN RETURN; END IF;
  IF to_regclass('mission_progress') <> target AND mrs_is_spread('mission_progress') THEN
    PERFORM create_distributed_table(target, 'partner_id', colocate_with => 'mission_progress');
  ELSE
    PERFORM create_distributed_table(target, 'partner_id');
  END IF;
END
$$;

-- Makes a table a reference table (replicated to every node).
CREATE OR REPLACE FUNCTION mrs_make_reference(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF mrs_is_spread(target) THEN RETURN; END IF;
  PERFORM create_reference_table(target);
END
$$;

DO $citus$
DECLARE
  t text;
  progress boolean;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  -- Reference tables created in this transaction are then used by the distributed ones' foreign
  -- keys: Citus needs one connection per node for that, so the whole migration runs sequentially.
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
  -- And every session after it: a transaction that read or wrote several shards over parallel
  -- connections may not then write a reference table (claims, budget stripes), which every
  -- completion does. The service's statements mostly touch one shard, where the mode costs nothing.
  -- (The database's default reaches new sessions; this session, whose process may serve next, too.)
  EXECUTE format('ALTER DATABASE %I SET citus.multi_shard_modify_mode TO %L', current_database(), 'sequential');
  SET citus.multi_shard_modify_mode TO 'sequential';
  -- The audit triggers of 0014 stay on the operator-managed tables. Citus puts a table's triggers on
  -- each of its shards; a reference table's write runs on the coordinator's own copy in the
  -- request's session, which sees mrs.actor and writes the one audit row; the workers' copies do
  -- not see it (set_config is not sent to them) and skip the trigger by its WHEN clause.
  SET LOCAL citus.enable_unsafe_triggers TO on;

  -- Primary keys that do not include the distribution column get it first (Citus enforces
  -- uniqueness per shard, so a unique key must contain partner_id). The id alone stays unique in
  -- practice (random, 128 bits); lookups by id alone are answered by every shard.
  ALTER TABLE mapping_tokens DROP CONSTRAINT mapping_tokens_pkey;
  ALTER TABLE mapping_tokens ADD PRIMARY KEY (partner_id, token_hash);
  ALTER TABLE deferred_rewards DROP CONSTRAINT deferred_rewards_pkey;
  ALTER TABLE deferred_rewards ADD PRIMARY KEY (partner_id, id);

  -- Every table that is neither partner-scoped nor a coordinator-only counter becomes a reference
  -- table, parents before children (a reference table's foreign keys must point at Citus tables).
  -- The partner-scoped ones are distributed as soon as their parents are Citus tables.
  LOOP
    progress := false;
    FOR t IN
      SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'
        AND c.relname NOT IN ('schema_migrations', 'rate_limit_counters', 'audit_events')
        AND NOT mrs_is_spread(c.oid)
        -- every table it references is already distributed or replicated (or itself)
        AND NOT EXISTS (
          SELECT 1 FROM pg_constraint f
          WHERE f.conrelid = c.oid AND f.contype = 'f' AND f.confrelid <> c.oid AND NOT mrs_is_spread(f.confrelid))
      ORDER BY c.relname
    LOOP
      IF t IN ('mission_progress', 'user_mappings', 'user_streaks', 'mapping_tokens', 'deferred_rewards',
               'completion_rates', 'completion_alarms') THEN
        PERFORM mrs_distribute_by_partner(t::regclass);
      ELSE
        PERFORM mrs_make_reference(t::regclass);
      END IF;
      progress := true;
    END LOOP;
    EXIT WHEN NOT progress;
  END LOOP;
END
$citus$;
