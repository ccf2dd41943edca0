-- A delivery round leases the earliest due messages in event order (next_attempt_at, then
-- created_at, rank, seq). The index of 0010 covered only next_attempt_at, so messages due at the
-- same instant (one statement's events, or a backlog inserted at once) were all read and sorted on
-- every round: with 10,000 such messages a round of 20 took 21 ms instead of 0.1 ms, and draining a
-- backlog grew with its square (docs/webhooks.md "Delivery"). This index hands out the round's
-- messages in that order, reading only them.
CREATE INDEX webhook_messages_due_order
  ON webhook_messages (next_attempt_at, created_at, rank, seq) WHERE status = 'PENDING';
DROP INDEX webhook_messages_due;
