\set uid random(1, 1000000000)
BEGIN;
UPDATE bench_budget SET remaining = remaining - 1 WHERE id = 1;
INSERT INTO bench_claims (uid, amount) VALUES (:uid, 1);
END;
