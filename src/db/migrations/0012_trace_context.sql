-- The W3C traceparent of the request that created a claim (set only while tracing is on): the
-- payout's span links back to it (docs/operations.md, "Traces"). Nullable, no default: adding it
-- rewrites nothing.
ALTER TABLE claims ADD COLUMN IF NOT EXISTS trace_context text;
