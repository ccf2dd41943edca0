-- A lucky draw's seed is secret until the draw runs (issue #28): it lived in `draws.seed`, which the
-- audit trigger copies whole into audit_events, so any VIEWER could read it and compute the winners
-- before the run. The seed now waits in draw_seeds, a table no trigger, answer, log or metric reads;
-- `draws.seed` stays empty until the run copies it there (public from then on).

CREATE TABLE draw_seeds (
  draw_id  text PRIMARY KEY REFERENCES draws (id),
  seed     text NOT NULL
);

ALTER TABLE draws ALTER COLUMN seed DROP NOT NULL;

-- Draws not run yet: their seed moves out of `draws` (no actor is set here, so the audit trigger
-- does not fire on this update).
INSERT INTO draw_seeds (draw_id, seed) SELECT id, seed FROM draws WHERE status = 'COMMITTED';
UPDATE draws SET seed = NULL WHERE status = 'COMMITTED';

-- The seeds that audit events of those draws already hold are redacted, as the trigger redacts a
-- secret column: the only change ever made to audit_events, so its append-only trigger steps
-- aside for this one statement.
ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
UPDATE audit_events e
SET before = CASE WHEN e.before ? 'seed' THEN jsonb_set(e.before, '{seed}', '"[redacted]"') ELSE e.before END,
    after = CASE WHEN e.after ? 'seed' THEN jsonb_set(e.after, '{seed}', '"[redacted]"') ELSE e.after END
WHERE e.entity_type = 'draw'
  AND e.entity_id IN (SELECT draw_id FROM draw_seeds);
ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;

